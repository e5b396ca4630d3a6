"""Probes of the sockets' gate on a live site (Daphne and autobahn, a Redis of the test's own):
what the issue found, over real sockets. A 4,000-deep frame on the tournament socket (which logged
a RecursionError and closed 1011) gets an error frame and the socket lives; one address past its
cap is closed 4429; a revoked token closes its socket 4401; a socket opened while Redis is down is
closed 4013 (autobahn cannot send 1013) without a traceback in the log."""

from __future__ import annotations

import json
import time

import pytest
from django.conf import settings as django_settings
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tests.reliability.live import (
    PORTS,
    Rest,
    database_url,
    live_site,
    port_open,
    redis_server,
    site_env,
    wait_for,
)
from tests.reliability.test_races import assert_clean

pytestmark = [pytest.mark.requires_postgres, pytest.mark.django_db(transaction=True)]

CAP = 6


def open_socket(port: int, path: str) -> ClientConnection:
    return connect(f"ws://127.0.0.1:{port}{path}", open_timeout=30, legacy=True)


def frame(ws: ClientConnection, timeout: float = 15) -> dict:
    return json.loads(ws.recv(timeout))


def close_code(ws: ClientConnection, timeout: float = 15) -> int | None:
    """The server's close code (frames before it are skipped)."""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ws.recv(max(0.01, deadline - time.monotonic()))
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else None
    raise AssertionError("the socket stayed open")


def test_the_gate_on_a_live_site(tmp_path):
    from rest_framework.authtoken.models import Token

    from tests.factories import UserFactory
    from tests.tournaments.factories import make_tournament

    key = Token.objects.create(user=UserFactory()).key
    tournament = make_tournament(players=1, rounds=1)
    port, redis_port = PORTS["gate"], PORTS["gate-redis"]
    env = site_env(
        DATABASE_URL=database_url(django_settings.DATABASES["default"]),
        REDIS_URL=f"redis://127.0.0.1:{redis_port}/0",
        SIESTA_WS_CONNECTIONS_PER_ADDRESS=str(CAP),
    )
    with redis_server(redis_port, tmp_path) as redis, live_site(port, env, tmp_path) as site:
        rest = Rest(port)
        status, game = rest.request("POST", "/api/games/", {}, token=key)
        assert status == 201

        # The tournament socket and a 4,000-deep frame.
        watcher = open_socket(port, f"/ws/tournaments/{tournament.pk}/")
        assert frame(watcher)["type"] == "tournament"
        watcher.send("[" * 4000 + "]" * 4000)
        assert frame(watcher)["error"] == "Message too large: the limit is 4096 bytes."
        watcher.send("[" * 2000 + "]" * 2000)
        assert frame(watcher)["error"] == "The JSON is nested too deeply: at most 32 levels."
        watcher.send(json.dumps({"type": "sync"}))
        assert frame(watcher)["type"] == "tournament"

        # The address's cap, across kinds of sockets (the watcher counts).
        more = [open_socket(port, "/ws/lobby/") for _ in range(CAP - 1)]
        for socket in more:
            assert frame(socket)["type"] == "welcome"
        extra = open_socket(port, f"/ws/games/{game['id']}/")
        assert "Too many connections" in frame(extra)["error"]
        assert close_code(extra) == 4429
        for socket in more:
            socket.close()

        # A token socket, then the token revoked (POST /api/auth/logout/).
        player = open_socket(port, f"/ws/games/{game['id']}/")
        player.send(json.dumps({"type": "auth", "token": key}))
        assert frame(player)["type"] == "auth"
        assert frame(player)["type"] == "state"
        assert rest.request("POST", "/api/auth/logout/", token=key)[0] == 204
        assert frame(player)["error"] == "You were signed out: this connection is closed."
        assert close_code(player) == 4401

        # Redis goes away: the open socket and a new one are told to come back later.
        redis.stop()
        assert wait_for(lambda: not port_open(redis_port), 10)
        assert close_code(watcher, timeout=30) == 4013
        late = open_socket(port, f"/ws/tournaments/{tournament.pk}/")
        assert (
            frame(late, timeout=30)["error"] == "Live updates are unavailable: try again shortly."
        )
        assert close_code(late) == 4013
        time.sleep(0.5)
        log = site.output()
    assert "RecursionError" not in log
    assert_clean(log)

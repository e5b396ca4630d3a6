"""Broadcasts made from request threads keep reaching other processes (issue: live updates
stopped after ~100 of them). Two Daphne processes share PostgreSQL and a Redis of this test's own;
a watcher on the second process sees the change made by a request to the first after a thousand
requests there, each run on a fresh thread of its own and each broadcasting."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings as django_settings
from websockets.sync.client import connect

from tests.reliability.live import (
    PORTS,
    Rest,
    database_url,
    live_site,
    redis_server,
    site_env,
)

pytestmark = [
    pytest.mark.requires_postgres,
    pytest.mark.requires_redis,
    pytest.mark.django_db(transaction=True),
]

REQUESTS = 1000


def test_a_watcher_on_another_process_gets_the_next_broadcast_after_a_thousand(tmp_path):
    from rest_framework.authtoken.models import Token

    from tests.factories import UserFactory
    from tests.tournaments.factories import make_tournament

    users = [UserFactory() for _ in range(4)]
    tokens = [Token.objects.create(user=user).key for user in users]
    tournament = make_tournament(max_players=4)
    redis_port = PORTS["redis"]
    env = site_env(
        DATABASE_URL=database_url(django_settings.DATABASES["default"]),
        REDIS_URL=f"redis://127.0.0.1:{redis_port}/0",
    )
    first, second = PORTS["broadcast-a"], PORTS["broadcast-b"]
    with (
        redis_server(redis_port, tmp_path),
        live_site(first, env, tmp_path) as site,
        live_site(second, env, tmp_path) as other_site,
    ):
        watcher = connect(
            f"ws://127.0.0.1:{second}/ws/tournaments/{tournament.pk}/",
            open_timeout=30,
            legacy=True,
            # The thousand frames wait unread until the end: an unbounded buffer keeps the client
            # reading (and answering pings) meanwhile, however long the requests take.
            max_queue=None,
        )
        frame = json.loads(watcher.recv(30))
        assert frame["type"] == "tournament", frame

        def toggle(index: int) -> None:
            """Join then leave, on a client of the thread's own: each request broadcasts."""
            rest = Rest(first, tokens[index])
            for _ in range(REQUESTS // 8):
                for action in ("join", "leave"):
                    status, body = rest.request(
                        "POST", f"/api/tournaments/{tournament.pk}/{action}/"
                    )
                    assert status == 200, (status, body)
            rest.close()

        with ThreadPoolExecutor(4) as pool:
            list(pool.map(toggle, range(4)))  # 4 x 125 x 2 = 1,000 broadcasting requests

        seen_before = _drain(watcher)
        assert seen_before, "the watcher got none of the thousand changes"
        status, body = Rest(first, tokens[0]).request(
            "POST", f"/api/tournaments/{tournament.pk}/join/"
        )
        assert status == 200, (status, body)
        latest = _wait_for_player(watcher, users[0].username, timeout=10)
        assert latest is not None, "the next broadcast did not reach the other process"
        watcher.close()
        for log in (site.output(), other_site.output()):
            assert "Too many connections" not in log
            assert "could not broadcast" not in log
            assert "Traceback" not in log


def _drain(watcher, quiet: float = 1.0) -> list[dict]:
    frames = []
    try:
        while True:
            frames.append(json.loads(watcher.recv(quiet)))
    except TimeoutError:
        return frames


def _wait_for_player(watcher, username: str, timeout: float) -> dict | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            frame = json.loads(watcher.recv(max(0.01, deadline - time.monotonic())))
        except TimeoutError:
            return None
        players = frame.get("tournament", {}).get("players", [])
        if any(_name_of(player) == username for player in players):
            return frame
    return None


def _name_of(player) -> str:
    return player.get("username") if isinstance(player, dict) else str(player)

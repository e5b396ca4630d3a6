"""Redis stopped mid-game (docs/reliability.md): a separate ``redis-server`` of this test's own
serves the site's channel layer and broker, and is stopped between moves. Moves still commit and
answer 201, never 500; once Redis is back, watchers catch up by ``sync`` (or by reconnecting,
which sends the state), live pushes resume, and a bot turn whose task could not be enqueued during
the outage is played once the periodic sweep (a worker with its beat) runs."""

from __future__ import annotations

import sys
import time

import pytest
from django.conf import settings as django_settings
from websockets.exceptions import ConnectionClosed

from games.engine import Position
from games.engine.search import best_turn
from tests.reliability.live import (
    PORTS,
    Process,
    Rest,
    Socket,
    database_url,
    live_site,
    port_open,
    redis_server,
    site_env,
    wait_for,
)
from tests.reliability.test_races import assert_no_server_error

pytestmark = [pytest.mark.requires_postgres, pytest.mark.django_db(transaction=True)]


def next_move(position: Position) -> str:
    best = best_turn(position)
    assert best.turn is not None
    position.play(str(best.turn))
    return str(best.turn)


def test_moves_commit_while_redis_is_down_and_watchers_recover_by_sync(tmp_path):
    from rest_framework.authtoken.models import Token

    from tests.factories import UserFactory

    tokens = [Token.objects.create(user=UserFactory()).key for _ in range(2)]
    port, redis_port = PORTS["redis-down"], PORTS["redis"]
    env = site_env(
        DATABASE_URL=database_url(django_settings.DATABASES["default"]),
        REDIS_URL=f"redis://127.0.0.1:{redis_port}/0",
        CELERY_EAGER="0",  # the broker is that Redis too: the game's end enqueues its analysis
    )
    with redis_server(redis_port, tmp_path) as redis, live_site(port, env, tmp_path) as site:
        rest = Rest(port)
        status, game = rest.request("POST", "/api/games/", {}, token=tokens[0])
        assert status == 201
        game_id = game["id"]
        assert rest.request("POST", f"/api/games/{game_id}/join/", token=tokens[1])[0] == 200
        status, bot_game = rest.request(
            "POST", "/api/games/", {"bots": [{"seat": 2, "level": "easy"}]}, token=tokens[0]
        )
        assert status == 201
        watcher = Socket(port, game_id)
        player = Socket(port, game_id, tokens[1])
        position = Position(players=2)

        def play_rest() -> float:
            seat = position.to_move
            ply = position.ply
            move = next_move(position)
            started = time.monotonic()
            status, body = rest.request(
                "POST", f"/api/games/{game_id}/moves/", {"move": move, "ply": ply},
                token=tokens[seat - 1],
            )  # fmt: skip
            assert status == 201, (status, body)
            return time.monotonic() - started

        play_rest()
        play_rest()
        assert wait_for(lambda: (watcher.drain(0.1), watcher.latest_version())[1] >= 4, 10)

        redis.stop()  # Redis goes away mid-game
        slowest = max(play_rest() for _ in range(4))
        # Against the bot: the move commits; its reply's task cannot be enqueued (logged).
        opening = str(best_turn(Position(players=2)).turn)
        status, _ = rest.request(
            "POST", f"/api/games/{bot_game['id']}/moves/", {"move": opening, "ply": 0},
            token=tokens[0],
        )  # fmt: skip
        assert status == 201
        version = rest.get(f"/api/games/{game_id}/")["version"]
        assert rest.get(f"/api/games/{game_id}/")["ply"] == 6
        # A retry of the last move is a stale ply (409), as it should be: the first one counted.
        status, _ = rest.request(
            "POST", f"/api/games/{game_id}/moves/", {"move": "SA1", "ply": 5}, token=tokens[0]
        )
        assert status == 409

        redis.start()  # Redis is back
        assert wait_for(lambda: port_open(redis_port), 10)
        recovered = []
        for socket, token in ((watcher, None), (player, tokens[1])):
            try:
                socket.drain(0.2)
                socket.send({"type": "sync"})
                frame = socket.reply_of_type("state", "sync", timeout=15)
            except ConnectionClosed:
                # The socket did not outlive the outage (closed 1011 when the layer failed): the
                # client reconnects, as game.js does, and gets the state on opening; a sync then
                # is answered up to date.
                socket = Socket(port, game_id, token)
                frame = socket.states[-1]
                socket.send({"type": "sync", "version": frame["version"]})
                assert socket.reply_of_type("sync", "state", timeout=15) == {
                    "type": "sync",
                    "version": frame["version"],
                }
            recovered.append((socket, frame))
        for _socket, frame in recovered:
            assert frame["type"] == "state", frame
            assert frame["version"] == version, frame

        # Live pushes work again, and the WebSocket path plays too.
        sockets = [s for s, _ in recovered]
        seat = position.to_move
        ply = position.ply
        move = next_move(position)
        if seat == 2:
            answer = sockets[1].request({"type": "move", "move": move, "ply": ply})
            assert answer["type"] == "ack", answer
        else:
            status, _ = rest.request(
                "POST", f"/api/games/{game_id}/moves/", {"move": move, "ply": ply},
                token=tokens[0],
            )  # fmt: skip
            assert status == 201
        assert wait_for(
            lambda: (sockets[0].drain(0.1), sockets[0].latest_version())[1] == version + 1, 15
        )
        print(f"slowest move with Redis down: {slowest:.2f} s")
        assert slowest < 10

        # The lost bot turn: a worker and its beat on the same Redis; the sweep sends it again.
        assert "could not enqueue games.tasks.bot_move" in site.output()
        assert rest.get(f"/api/games/{bot_game['id']}/")["ply"] == 1
        worker = Process(
            [sys.executable, "-m", "celery", "-A", "siesta_site", "worker", "--beat",
             "--pool=solo", "--queues", "bots,periodic,celery", "--without-mingle",
             "--without-gossip", "--schedule", str(tmp_path / "beat-schedule"), "-l", "INFO"],
            env,
            tmp_path / "worker.log",
        )  # fmt: skip
        worker.start()
        try:
            assert wait_for(
                lambda: rest.get(f"/api/games/{bot_game['id']}/")["ply"] == 2, 60, step=0.5
            ), worker.output()[-3000:]
        finally:
            worker.stop()
        turns = rest.get(f"/api/games/{bot_game['id']}/")["turns"]
        assert [t["ply"] for t in turns] == [1, 2]
        log = site.output()
    assert_no_server_error(log)

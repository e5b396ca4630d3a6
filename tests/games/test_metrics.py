"""The metrics (core/metrics.py) move where the things they count happen: a move over the game
socket, a socket opened and closed, a frame received, an engine call refused, a player put out."""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from prometheus_client import REGISTRY

from games import services
from games.engine_budget import EngineBudgetSpent
from siesta_site.asgi import application
from tests.factories import UserFactory
from tests.games import test_consumers
from tests.games.factories import make_game
from tests.games.test_consumers import (
    FIRST_MOVE,
    HOST,
    SAME_ORIGIN,
    TIMEOUT,
    receive,
    receive_state,
    seated,
)

# The game socket tests' fixtures: sockets closed at the end, a table of two players and a watcher,
# a channel layer prefix of each test's own.
connect = test_consumers.connect
table = test_consumers.table
_own_channel_layer_prefix = test_consumers._own_channel_layer_prefix


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.mark.django_db(transaction=True)
async def test_a_move_over_the_socket_is_observed_once_and_a_refused_one_not(connect, table):
    first, _second, _watcher = await seated(connect, table)
    moves = value("siesta_move_seconds_count")

    await first.send_json_to({"type": "move", "move": "SA1 RL12 HC1", "ply": 0, "id": "bad"})
    assert (await receive(first))["type"] == "error"
    assert value("siesta_move_seconds_count") == moves

    await first.send_json_to({"type": "move", "move": FIRST_MOVE, "ply": 0, "id": "m1"})
    assert (await receive(first))["type"] == "ack"
    assert value("siesta_move_seconds_count") == moves + 1
    assert value("siesta_move_seconds_sum") > 0


@pytest.mark.django_db(transaction=True)
async def test_open_sockets_are_counted_by_kind_and_frames_by_kind(connect, table):
    games, lobbies = (
        value("siesta_sockets_open", kind="game"),
        value("siesta_sockets_open", kind="lobby"),
    )
    frames = value("siesta_socket_messages_total", kind="game")

    socket = await connect(table.game.pk, user=table.first)
    await receive_state(socket)
    assert value("siesta_sockets_open", kind="game") == games + 1
    lobby = WebsocketCommunicator(application, "/ws/lobby/", [HOST, SAME_ORIGIN])
    connected, _ = await lobby.connect(timeout=TIMEOUT)
    assert connected
    assert value("siesta_sockets_open", kind="lobby") == lobbies + 1

    await socket.send_json_to({"type": "sync"})
    await socket.send_to(text_data="not json")
    await receive(socket)
    await receive(socket)
    assert value("siesta_socket_messages_total", kind="game") == frames + 2

    await lobby.disconnect(timeout=TIMEOUT)
    await socket.disconnect(timeout=TIMEOUT)
    assert value("siesta_sockets_open", kind="game") == games
    assert value("siesta_sockets_open", kind="lobby") == lobbies


@pytest.mark.django_db(transaction=True)
async def test_a_refused_socket_is_not_left_open(connect):
    games = value("siesta_sockets_open", kind="game")
    socket = await connect(987654321)  # unknown: an error, then closed with 4404
    await receive(socket)
    assert (await socket.receive_output(timeout=TIMEOUT))["code"] == 4404
    await socket.disconnect(timeout=TIMEOUT)
    assert value("siesta_sockets_open", kind="game") == games


@pytest.mark.django_db
def test_a_refused_engine_call_is_counted_and_the_work_charged(engine_budget):
    from games import engine_budget as module

    refused = value("siesta_engine_refusals_total", code="engine_budget")
    charged = value("siesta_engine_cpu_seconds_total")
    engine_budget.budget.charge("user:1", 2.5)
    assert value("siesta_engine_cpu_seconds_total") == pytest.approx(charged + 2.5)
    with pytest.raises(EngineBudgetSpent):
        module.search("user:1", sorted, [3, 1, 2])
    assert value("siesta_engine_refusals_total", code="engine_budget") == refused + 1


@pytest.mark.django_db
def test_timeouts_forfeits_and_resignations_are_counted_once_committed(
    django_capture_on_commit_callbacks,
):
    def out(reason: str) -> float:
        return value("siesta_players_out_total", reason=reason)

    before = {reason: out(reason) for reason in ("timeout", "forfeit", "resigned")}
    timed_out = make_game()
    forfeited = services.game_create_seated(users=[UserFactory(), UserFactory()], grace_seconds=30)
    resigned = make_game(users=[UserFactory(), UserFactory()])
    later = max(timed_out.deadline, forfeited.deadline) + timedelta(seconds=1)

    with django_capture_on_commit_callbacks(execute=False) as pending:
        services.game_resign(game_id=resigned.pk, user=resigned.seats.get(seat=1).user)
    assert out("resigned") == before["resigned"]  # not before the commit
    for callback in pending:
        callback()
    with django_capture_on_commit_callbacks(execute=True):
        expired = services.game_turn_timeouts_expire(now=later)

    assert set(expired) == {timed_out.pk, forfeited.pk}
    assert out("timeout") == before["timeout"] + 1
    assert out("forfeit") == before["forfeit"] + 1
    assert out("resigned") == before["resigned"] + 1


@pytest.mark.django_db(transaction=True)
async def test_the_move_histogram_is_what_the_endpoint_shows(connect, table, client):
    first, *_ = await seated(connect, table)
    await first.send_json_to({"type": "move", "move": FIRST_MOVE, "ply": 0, "id": "m1"})
    assert (await receive(first))["type"] == "ack"
    text = (await database_sync_to_async(client.get)("/metrics")).content.decode()
    count = next(
        line for line in text.splitlines() if line.startswith("siesta_move_seconds_count ")
    )
    assert float(count.split()[1]) == value("siesta_move_seconds_count") >= 1

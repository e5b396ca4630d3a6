"""Every broadcast and frame of a game, from real flows, round-trips through JSON and matches its
TypedDict (``games.state``): the state of an open, active, hinted, finished (by the rules, by
resignation, with teams) and cancelled game, and every frame of ``/ws/games/{id}/``."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import TestCase
from rest_framework.authtoken.models import Token

from games import services
from games.models import Game
from games.state import GameFrame, GameState, GameStateEvent, HintResult, TurnPreview
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.games.services.helpers import best_move, play_best_turn, seat_user
from tests.games.test_consumers import (  # noqa: F401 - fixtures
    FIRST_MOVE,
    _own_channel_layer_prefix,
    connect,
    receive,
    table,
)
from tests.payloads import Broadcasts, assert_documented, assert_round_trips


def _committed(call: Any, /, **kwargs: Any) -> Any:
    with TestCase.captureOnCommitCallbacks(execute=True):
        return call(**kwargs)


def _assert_states(broadcasts: Broadcasts) -> list[GameState]:
    assert broadcasts.types() == {"game.state"}
    states = []
    for group, event in broadcasts.sent:
        decoded = assert_round_trips(event, GameStateEvent)
        assert group == f"game.{decoded['game']['id']}"
        assert decoded["version"] == decoded["game"]["version"]
        states.append(decoded["game"])
    return states


@pytest.mark.django_db
def test_a_two_player_game_from_open_to_its_end(broadcasts):
    ana, bo = UserFactory(), UserFactory()
    game = _committed(services.game_create, user=ana, players=2)
    _committed(services.game_join, game_id=game.pk, user=bo)
    game.refresh_from_db()
    preview = services.game_turn_preview(
        game_id=game.pk, user=ana, move=best_move(game), ply=game.ply
    )
    assert_round_trips(preview, TurnPreview)
    hint = _committed(services.game_hint, game_id=game.pk, user=ana)
    assert_round_trips(hint, HintResult)
    while game.status == Game.Status.ACTIVE:
        _committed(play_best_turn, game=game)
        game.refresh_from_db()
    states = _assert_states(broadcasts)
    assert [s["status"] for s in states][:2] == ["open", "active"]
    assert states[-1]["result"] is not None
    assert states[-1]["result"]["end_reason"] in (
        "last_sun",
        "last_shadow",
        "last_roof",
        "no_scoring_move",
    )
    assert any(seat["hinted"] for seat in states[-1]["seats"])
    assert states[-1]["turns"]


@pytest.mark.django_db
def test_a_team_game_a_resignation_a_bot_and_a_cancel(broadcasts):
    people = [UserFactory() for _ in range(4)]
    teams = make_game(players=4, mode="teams", users=people)
    _committed(play_best_turn, game=teams)
    for seat in (2, 3, 4):  # a bot plays a seat that resigned; the last one ends the game
        teams.refresh_from_db()
        if teams.status == Game.Status.ACTIVE:
            _committed(services.game_resign, game_id=teams.pk, user=seat_user(teams, seat))
    with_bot = make_game(players=2, bots=[(2, "easy")])
    _committed(play_best_turn, game=with_bot)  # the bot answers on commit
    _committed(services.game_resign, game_id=with_bot.pk, user=seat_user(with_bot, 1))
    open_game = make_game(players=3, start=False)
    _committed(services.game_cancel, game_id=open_game.pk, user=seat_user(open_game, 1))

    states = _assert_states(broadcasts)
    finished = [s for s in states if s["result"] is not None]
    assert {s["result"]["end_reason"] for s in finished} >= {"resigned", "cancelled"}
    assert any(s["result"]["team_scores"] is not None for s in finished)
    assert any(seat["out_reason"] == "resigned" for s in states for seat in s["seats"])
    assert any(seat["bot"] == "easy" for s in states for seat in s["seats"])


@pytest.mark.django_db(transaction=True)
async def test_every_frame_of_the_game_socket(connect, table):  # noqa: F811
    player = await connect(table.game.pk, user=table.first)
    frames = [await receive(player)]
    for message in (
        {"type": "sync"},
        {"type": "sync"},  # the same version again: a short answer
        {"type": "check", "move": "SA1", "id": "c1"},
        {"type": "hint", "id": "h1"},
        {"type": "move", "move": FIRST_MOVE, "ply": 5, "id": "stale"},
        {"type": "move", "move": FIRST_MOVE, "ply": 0, "id": 7},
        {"type": "nonsense"},
    ):
        await player.send_json_to(message)
        while not await player.receive_nothing(timeout=0.3):
            frames.append(await receive(player))
    script = await connect(table.game.pk)
    frames.append(await receive(script))
    key = (await database_sync_to_async(Token.objects.get_or_create)(user=table.second))[0].key
    await script.send_json_to({"type": "auth", "token": key})
    frames.append(await receive(script))

    for frame in frames:
        assert_round_trips(frame, GameFrame)
        assert_documented("game", frame)
    kinds = [frame["type"] for frame in frames]
    assert set(kinds) == {"state", "sync", "check", "hint", "ack", "error", "auth"}
    assert any(frame["type"] == "error" and "ply" in frame for frame in frames)

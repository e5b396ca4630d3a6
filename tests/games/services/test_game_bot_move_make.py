"""game_bot_move_make: a bot's move is played only if that bot (or a bot standing in for a player
who is out) is still to move at the given ply; otherwise it returns False and changes nothing."""

from __future__ import annotations

import pytest
from django.utils import timezone

from games import services
from games.services import InvalidMove
from tests.games.factories import make_game
from tests.games.services.helpers import (
    assert_deadline,
    best_move,
    play_best_turn,
    seat_user,
    snapshot,
)

pytestmark = pytest.mark.django_db


def test_bot_answers_in_process(django_capture_on_commit_callbacks):
    game = make_game(players=2, bots=[(2, "medium")])
    creator = game.seats.get(seat=1).user
    with django_capture_on_commit_callbacks(execute=True):
        services.game_move_make(game_id=game.pk, user=creator, move="SA1 RB1 HC1", ply=0)
    game.refresh_from_db()
    assert game.ply == 2
    assert game.to_move == 1


def _bot_to_move():
    """A game where the bot in seat 2 is to move at ply 1 (its task not run)."""
    game = make_game(bots=[(2, "medium")])
    play_best_turn(game)
    game.refresh_from_db()
    assert (game.ply, game.to_move) == (1, 2)
    return game


def test_the_bots_move_is_played(watch, django_capture_on_commit_callbacks):
    game = _bot_to_move()
    version = game.version
    move = best_move(game)
    watcher = watch(game.pk)
    before = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.game_bot_move_make(game_id=game.pk, ply=1, move=move) is True
    after = timezone.now()
    game.refresh_from_db()
    turn = game.turns.get(ply=2)
    assert (turn.seat, turn.move, turn.by_bot, turn.hint) == (2, move, True, False)
    assert (game.ply, game.to_move, game.version) == (2, 1, version + 1)
    assert game.seats.get(seat=2).score == sum(t.points[1] for t in game.turns.all())
    assert_deadline(game, before, after)  # the person's clock runs again
    assert watcher.versions() == [version + 1]


@pytest.mark.parametrize("ply", [0, 2, 7])
def test_a_stale_ply_changes_nothing(ply: int):
    game = _bot_to_move()
    before = snapshot(game)
    assert services.game_bot_move_make(game_id=game.pk, ply=ply, move=best_move(game)) is False
    assert snapshot(game) == before


def test_a_persons_turn_is_never_played_by_a_bot():
    game = make_game(bots=[(2, "medium")])
    before = snapshot(game)
    assert services.game_bot_move_make(game_id=game.pk, ply=0, move=best_move(game)) is False
    assert snapshot(game) == before


def test_a_repeated_bot_move_plays_once():
    game = _bot_to_move()
    move = best_move(game)
    assert services.game_bot_move_make(game_id=game.pk, ply=1, move=move) is True
    after_first = snapshot(game)
    assert services.game_bot_move_make(game_id=game.pk, ply=1, move=move) is False
    assert snapshot(game) == after_first
    assert game.turns.filter(seat=2).count() == 1


def test_no_bot_move_in_a_finished_game_or_no_game():
    game = _bot_to_move()
    move = best_move(game)
    services.game_resign(game_id=game.pk, user=seat_user(game, 1))
    before = snapshot(game)
    assert services.game_bot_move_make(game_id=game.pk, ply=1, move=move) is False
    assert snapshot(game) == before
    assert services.game_bot_move_make(game_id=10**9, ply=0, move=move) is False


def test_a_bot_plays_for_a_player_who_is_out():
    game = make_game(players=3)
    services.game_resign(game_id=game.pk, user=seat_user(game, 1))
    assert services.game_bot_move_make(game_id=game.pk, ply=0, move="SA1 RB1 HC1") is True
    turn = game.turns.get()
    assert (turn.seat, turn.by_bot, turn.points) == (1, True, [1, 0, 0])
    game.refresh_from_db()
    assert game.seats.get(seat=1).score == 1  # the out seat still scores; it still ranks last
    assert game.to_move == 2


def test_an_illegal_bot_move_is_refused_and_changes_nothing():
    game = _bot_to_move()
    before = snapshot(game)
    with pytest.raises(InvalidMove) as refused:
        services.game_bot_move_make(game_id=game.pk, ply=1, move="SA1 RB1 HC1")
    assert refused.value.cell == "A1"
    assert snapshot(game) == before

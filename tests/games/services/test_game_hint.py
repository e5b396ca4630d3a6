"""game_hint: the engine's best turn for the player to move, who is marked hinted; the turn they
play next carries the mark."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser

from core.errors import ErrorKind
from games import services
from games.engine.search import best_turn
from games.selectors import game_get, position_of
from games.services import Conflict, NotAllowed
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.games.services.helpers import play_best_turn, seat_user, snapshot

pytestmark = pytest.mark.django_db

FIRST_MOVE = "SA1 RB1 HC1"


def _engine_best(game) -> dict:
    best = best_turn(position_of(game_get(game.pk)))
    return {"move": str(best.turn), "points": best.points}


@pytest.mark.parametrize("turns_before", [0, 5])
def test_the_hint_is_the_engines_best_turn(turns_before: int):
    game = make_game(players=3)
    for _ in range(turns_before):
        play_best_turn(game)
    game.refresh_from_db()
    hint = services.game_hint(game_id=game.pk, user=seat_user(game, game.to_move))
    assert hint == _engine_best(game)
    assert hint["points"] >= 1


def test_a_hint_marks_the_seat_and_is_pushed(watch, django_capture_on_commit_callbacks):
    game = make_game()
    version = game.version
    watcher = watch(game.pk)
    with django_capture_on_commit_callbacks(execute=True):
        services.game_hint(game_id=game.pk, user=seat_user(game, 1))
    first, second = game.seats.order_by("seat")
    assert (first.hinted, first.hint_pending) == (True, True)
    assert (second.hinted, second.hint_pending) == (False, False)
    game.refresh_from_db()
    [event] = watcher.events()
    assert event["version"] == game.version == version + 1
    assert [s["hinted"] for s in event["game"]["seats"]] == [True, False]


def test_the_next_turn_of_the_hinted_seat_is_marked_and_only_that_one():
    game = make_game()
    first = seat_user(game, 1)
    hint = services.game_hint(game_id=game.pk, user=first)
    result = services.game_move_make(game_id=game.pk, user=first, move=hint["move"], ply=0)
    assert result.points[0] == hint["points"]
    seat = game.seats.get(seat=1)
    assert (seat.hinted, seat.hint_pending) == (True, False)  # hinted for the whole game
    play_best_turn(game)  # seat 2, no hint
    play_best_turn(game)  # seat 1 again, no hint this time
    assert list(game.turns.values_list("seat", "hint")) == [(1, True), (2, False), (1, False)]


def test_a_hint_may_be_followed_by_another_move():
    game = make_game()
    first = seat_user(game, 1)
    services.game_hint(game_id=game.pk, user=first)
    services.game_move_make(game_id=game.pk, user=first, move=FIRST_MOVE, ply=0)
    assert game.turns.get().hint is True


def test_asking_twice_in_one_turn_changes_the_game_once():
    game = make_game()
    version = game.version
    first = seat_user(game, 1)
    hints = [services.game_hint(game_id=game.pk, user=first) for _ in range(2)]
    assert hints[0] == hints[1]
    game.refresh_from_db()
    assert game.version == version + 1
    # A new turn, a new hint: a change again.
    services.game_move_make(game_id=game.pk, user=first, move=hints[0]["move"], ply=0)
    play_best_turn(game)
    services.game_hint(game_id=game.pk, user=first)
    game.refresh_from_db()
    assert game.version == version + 4  # hint, move, move, hint
    assert game.seats.get(seat=1).hint_pending is True


@pytest.mark.parametrize("who", ["seat 2", "spectator", "anonymous"])
def test_only_the_player_to_move_may_ask(who: str):
    game = make_game()
    user = {"seat 2": seat_user(game, 2), "spectator": UserFactory(), "anonymous": AnonymousUser()}
    before = snapshot(game)
    with pytest.raises(NotAllowed) as refused:
        services.game_hint(game_id=game.pk, user=user[who])
    assert refused.value.kind == ErrorKind.NOT_ALLOWED
    assert snapshot(game) == before


def test_no_hint_before_the_start_or_after_the_end():
    game = make_game(players=3, start=False)
    with pytest.raises(Conflict, match="not started"):
        services.game_hint(game_id=game.pk, user=seat_user(game, 1))
    game = make_game()
    services.game_resign(game_id=game.pk, user=seat_user(game, 2))
    before = snapshot(game)
    with pytest.raises(Conflict, match="over"):
        services.game_hint(game_id=game.pk, user=seat_user(game, 1))
    assert snapshot(game) == before


def test_a_player_who_is_out_gets_no_hint():
    game = make_game(players=3)
    out = seat_user(game, 1)
    services.game_resign(game_id=game.pk, user=out)
    with pytest.raises(NotAllowed, match="out of this game"):
        services.game_hint(game_id=game.pk, user=out)
    assert game.seats.get(seat=1).hinted is False

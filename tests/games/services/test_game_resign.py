"""game_resign: in a two-player game the other seat wins; with more players the seat is out, a bot
plays its turns and it ranks last; the game ends when no person is left in play."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from core.errors import ErrorKind
from games import services
from games.models import Turn
from games.services import Conflict, NotAllowed
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.games.services.helpers import assert_deadline, play_best_turn, seat_user, snapshot

pytestmark = pytest.mark.django_db


def test_in_a_two_player_game_the_other_seat_wins(
    finished_outcomes, watch, django_capture_on_commit_callbacks
):
    game = make_game()
    version = game.version
    watcher = watch(game.pk)
    with django_capture_on_commit_callbacks(execute=True):
        services.game_resign(game_id=game.pk, user=seat_user(game, 2))
    game.refresh_from_db()
    assert (game.status, game.end_reason, game.winners) == ("finished", "resigned", [1])
    assert (game.to_move, game.deadline, game.version) == (None, None, version + 1)
    assert game.finished_at is not None
    assert list(game.seats.order_by("seat").values_list("out_reason", flat=True)) == [
        "",
        "resigned",
    ]
    [outcome] = finished_outcomes
    assert (outcome.game_id, outcome.end_reason, outcome.winners) == (game.pk, "resigned", [1])
    [event] = watcher.events()
    assert event["version"] == version + 1
    assert event["game"]["result"]["end_reason"] == "resigned"
    assert [s["resigned"] for s in event["game"]["seats"]] == [False, True]


def test_who_resigns_loses_even_when_ahead():
    game = make_game()
    play_best_turn(game)  # seat 1 scores, seat 2 does not
    assert game.seats.get(seat=1).score > game.seats.get(seat=2).score
    services.game_resign(game_id=game.pk, user=seat_user(game, 1))
    game.refresh_from_db()
    assert (game.status, game.winners) == ("finished", [2])


def test_with_three_players_the_seat_to_move_is_out_and_a_bot_plays_it(
    finished_outcomes, django_capture_on_commit_callbacks
):
    game = make_game(players=3)
    version = game.version
    before = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        services.game_resign(game_id=game.pk, user=seat_user(game, 1))
        # Before the commit: the seat is out, the game goes on, nobody's clock runs.
        game.refresh_from_db()
        assert (game.status, game.to_move, game.deadline) == ("active", 1, None)
        assert game.seats.get(seat=1).out_reason == "resigned"
    after = timezone.now()
    # After it: the bot's task played seat 1's turn, and seat 2's clock runs.
    game.refresh_from_db()
    [turn] = Turn.objects.filter(game=game)
    assert (turn.ply, turn.seat, turn.by_bot, turn.hint) == (1, 1, True, False)
    assert (game.status, game.ply, game.to_move) == ("active", 1, 2)
    assert game.version == version + 2  # the resignation, the bot's turn
    assert_deadline(game, before, after)
    assert finished_outcomes == []


def test_a_seat_that_resigns_out_of_turn_is_played_by_a_bot_when_its_turn_comes(
    django_capture_on_commit_callbacks,
):
    game = make_game(players=3)
    deadline = game.deadline
    services.game_resign(game_id=game.pk, user=seat_user(game, 2))
    game.refresh_from_db()
    assert (game.status, game.to_move, game.deadline) == ("active", 1, deadline)
    before = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        play_best_turn(game)
    after = timezone.now()
    game.refresh_from_db()
    assert list(game.turns.values_list("seat", "by_bot")) == [(1, False), (2, True)]
    assert (game.ply, game.to_move) == (2, 3)
    assert_deadline(game, before, after)


def test_resigning_drops_a_pending_hint():
    game = make_game(players=3)
    first = seat_user(game, 1)
    services.game_hint(game_id=game.pk, user=first)
    services.game_resign(game_id=game.pk, user=first)
    seat = game.seats.get(seat=1)
    assert (seat.hinted, seat.hint_pending, seat.out_reason) == (True, False, "resigned")
    assert services.game_bot_move_make(game_id=game.pk, ply=0, move="SA1 RB1 HC1")
    assert game.turns.get().hint is False


def test_a_seat_that_is_out_ranks_last_even_with_the_highest_score(finished_outcomes):
    game = make_game(players=3)
    play_best_turn(game)  # only seat 1 scores
    services.game_resign(game_id=game.pk, user=seat_user(game, 1))
    game.refresh_from_db()
    assert game.status == "active"
    services.game_resign(game_id=game.pk, user=seat_user(game, 2))  # one seat left in play
    game.refresh_from_db()
    assert game.seats.get(seat=1).score > game.seats.get(seat=3).score
    assert (game.status, game.end_reason, game.winners) == ("finished", "resigned", [3])
    assert len(finished_outcomes) == 1


def test_the_game_ends_when_no_person_is_left_in_play(finished_outcomes):
    game = make_game(players=4, bots=[(3, "easy"), (4, "easy")])
    services.game_resign(game_id=game.pk, user=seat_user(game, 1))
    game.refresh_from_db()
    assert game.status == "active"  # seat 2 still plays
    services.game_resign(game_id=game.pk, user=seat_user(game, 2))
    game.refresh_from_db()
    assert (game.status, game.end_reason, game.to_move) == ("finished", "resigned", None)
    assert game.winners == [3, 4]  # the bots, level on points; the people who left rank last
    assert len(finished_outcomes) == 1


def test_a_team_game_goes_on_after_a_person_resigns():
    game = make_game(players=4, mode="teams")
    services.game_resign(game_id=game.pk, user=seat_user(game, 3))
    game.refresh_from_db()
    assert (game.status, game.to_move) == ("active", 1)


def test_resigning_twice_is_refused():
    game = make_game(players=3)
    second = seat_user(game, 2)
    services.game_resign(game_id=game.pk, user=second)
    before = snapshot(game)
    with pytest.raises(Conflict, match="already out") as refused:
        services.game_resign(game_id=game.pk, user=second)
    assert refused.value.kind == ErrorKind.CONFLICT
    assert snapshot(game) == before


@pytest.mark.parametrize("who", ["spectator", "anonymous"])
def test_someone_without_a_seat_may_not_resign(who: str):
    game = make_game()
    user = UserFactory() if who == "spectator" else AnonymousUser()
    before = snapshot(game)
    with pytest.raises(NotAllowed) as refused:
        services.game_resign(game_id=game.pk, user=user)
    assert refused.value.kind == ErrorKind.NOT_ALLOWED
    assert snapshot(game) == before


def test_an_open_or_finished_game_cannot_be_resigned(finished_outcomes):
    game = make_game(players=3, start=False)
    with pytest.raises(Conflict, match="in progress"):
        services.game_resign(game_id=game.pk, user=seat_user(game, 1))
    assert game.seats.get(seat=1).out_reason == ""
    game = make_game()
    services.game_resign(game_id=game.pk, user=seat_user(game, 1))
    before = snapshot(game)
    with pytest.raises(Conflict, match="in progress"):
        services.game_resign(game_id=game.pk, user=seat_user(game, 2))
    assert snapshot(game) == before
    assert len(finished_outcomes) == 1

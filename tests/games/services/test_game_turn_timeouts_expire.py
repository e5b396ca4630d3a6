"""game_turn_timeouts_expire: a person whose turn time ran out is out (``timeout``), as if they had
resigned; nothing happens before the deadline, and a bot is never timed out."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.models import Game
from tests.games.factories import make_game
from tests.games.services.helpers import play_best_turn, seat_user, snapshot

pytestmark = pytest.mark.django_db

SECOND = timedelta(seconds=1)


def test_in_a_two_player_game_the_other_seat_wins(
    finished_outcomes, watch, django_capture_on_commit_callbacks
):
    game = make_game()
    version = game.version
    watcher = watch(game.pk)
    with django_capture_on_commit_callbacks(execute=True):
        expired = services.game_turn_timeouts_expire(now=game.deadline + SECOND)
    assert expired == [game.pk]
    game.refresh_from_db()
    assert (game.status, game.end_reason, game.winners) == ("finished", "timeout", [2])
    assert (game.to_move, game.deadline, game.version) == (None, None, version + 1)
    assert game.seats.get(seat=1).out_reason == "timeout"
    [outcome] = finished_outcomes
    assert (outcome.game_id, outcome.end_reason, outcome.winners) == (game.pk, "timeout", [2])
    assert watcher.versions() == [version + 1]


@pytest.mark.parametrize("early", [timedelta(0), SECOND, timedelta(minutes=1)])
def test_nothing_happens_until_the_deadline_has_passed(early: timedelta, finished_outcomes):
    game = make_game()
    before = snapshot(game)
    assert services.game_turn_timeouts_expire(now=game.deadline - early) == []
    assert snapshot(game) == before
    assert finished_outcomes == []


def test_by_default_the_clock_is_now():
    game = make_game()
    assert services.game_turn_timeouts_expire() == []
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - SECOND)
    assert services.game_turn_timeouts_expire() == [game.pk]
    game.refresh_from_db()
    assert (game.status, game.end_reason) == ("finished", "timeout")


def test_with_three_players_the_game_goes_on_and_a_bot_plays_the_seat(
    finished_outcomes, django_capture_on_commit_callbacks
):
    game = make_game(players=3)
    play_best_turn(game)  # seat 2 is to move
    game.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.game_turn_timeouts_expire(now=game.deadline + SECOND) == [game.pk]
    game.refresh_from_db()
    assert game.seats.get(seat=2).out_reason == "timeout"
    assert game.status == "active"
    assert list(game.turns.values_list("seat", "by_bot")) == [(1, False), (2, True)]
    assert game.to_move == 3
    assert game.deadline is not None
    assert finished_outcomes == []


def test_a_bot_to_move_is_never_timed_out():
    game = make_game(bots=[(2, "medium")])
    play_best_turn(game)  # the bot's task is not run here: the bot stays to move
    game.refresh_from_db()
    assert (game.to_move, game.deadline) == (2, None)
    far = timezone.now() + timedelta(days=30)
    assert services.game_turn_timeouts_expire(now=far) == []
    # Even a deadline left over by mistake only goes away.
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - SECOND)
    assert services.game_turn_timeouts_expire(now=far) == []
    game.refresh_from_db()
    assert (game.status, game.to_move, game.deadline) == ("active", 2, None)
    assert [s.out_reason for s in game.seats.order_by("seat")] == ["", ""]


def test_only_games_past_their_deadline_expire_and_their_ids_are_returned():
    late = [make_game(turn_seconds=60), make_game(players=3, turn_seconds=60)]
    on_time = make_game(turn_seconds=3600)
    open_game = make_game(start=False)
    finished = make_game(turn_seconds=60)
    services.game_resign(game_id=finished.pk, user=seat_user(finished, 2))
    now = timezone.now() + timedelta(minutes=5)

    assert sorted(services.game_turn_timeouts_expire(now=now)) == sorted(g.pk for g in late)
    for game in late:
        assert game.seats.get(seat=1).out_reason == "timeout"
    for game in (on_time, open_game):
        game.refresh_from_db()
        assert game.status in ("active", "open")
        assert not game.seats.exclude(out_reason="").exists()
    finished.refresh_from_db()
    assert finished.end_reason == "resigned"
    # A second run finds nothing left to do (the three-player game's bot turn has no deadline).
    assert services.game_turn_timeouts_expire(now=now) == []

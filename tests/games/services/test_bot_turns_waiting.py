"""bot_turns_waiting: the (game, ply) of active games where a bot has been to move for longer than
given, counted from the last turn or, before any, from the start."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import F
from django.utils import timezone

from games import services
from games.models import Game, Turn
from tests.games.factories import make_game
from tests.games.services.helpers import play_best_turn, seat_user

pytestmark = pytest.mark.django_db

STALL = timedelta(seconds=5)


def _age(game: Game, by: timedelta) -> None:
    """Make the game's start, turns and bot's wait ``by`` older."""
    Game.objects.filter(pk=game.pk).update(
        started_at=timezone.now() - by, bot_since=F("bot_since") - by
    )
    Turn.objects.filter(game=game).update(played_at=timezone.now() - by)


def test_a_bot_waiting_since_the_last_turn_is_listed_with_its_ply():
    game = make_game(bots=[(2, "medium")])
    play_best_turn(game)  # the bot's task is not run here
    assert services.bot_turns_waiting(older_than=STALL) == []  # just played
    _age(game, timedelta(seconds=30))
    assert services.bot_turns_waiting(older_than=STALL) == [(game.pk, 1)]
    assert services.bot_turns_waiting(older_than=timedelta(minutes=1)) == []


def test_a_seat_played_by_a_bot_for_a_player_who_is_out_counts_from_the_start():
    game = make_game(players=3)
    services.game_resign(game_id=game.pk, user=seat_user(game, 1))  # seat 1 to move, no turn yet
    assert services.bot_turns_waiting(older_than=STALL) == []
    _age(game, timedelta(seconds=30))
    assert services.bot_turns_waiting(older_than=STALL) == [(game.pk, 0)]


def test_people_to_move_and_finished_games_are_not_listed():
    person_to_move = make_game(bots=[(2, "medium")])
    finished = make_game(bots=[(2, "medium")])
    play_best_turn(finished)
    services.game_resign(game_id=finished.pk, user=seat_user(finished, 1))
    for game in (person_to_move, finished):
        _age(game, timedelta(hours=1))
    assert services.bot_turns_waiting(older_than=STALL) == []

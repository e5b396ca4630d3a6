"""The winners a finished game stores come from its ``GameOutcome`` (tests/engine/test_outcome.py
has the tables): played to the end, and with a resignation."""

from __future__ import annotations

import pytest

from games import services
from games.models import Game
from tests.games.factories import make_game
from tests.games.services.helpers import play_best_turn, seat_user


@pytest.mark.django_db
def test_a_team_game_played_to_its_end_goes_to_the_higher_sum():
    game = make_game(players=4, mode="teams")
    while game.status == Game.Status.ACTIVE:
        play_best_turn(game)
        game.refresh_from_db()
    assert game.end_reason in ("last_sun", "last_shadow", "last_roof", "no_scoring_move")
    seats = list(game.seats.order_by("seat"))
    sums = {team: sum(s.score for s in seats if s.team == team) for team in (1, 2)}
    best = max(sums.values())
    assert game.winners == [s.seat for s in seats if sums[s.team] == best]
    assert len(game.winners) in (2, 4)


@pytest.mark.django_db
def test_a_team_whose_member_resigned_loses_though_ahead():
    game = make_game(players=4, mode="teams", bots=[(2, "easy"), (3, "easy"), (4, "easy")])
    play_best_turn(game)  # only seat 1 scores: its team is ahead
    services.game_resign(game_id=game.pk, user=seat_user(game, 1))  # no person left: the end
    game.refresh_from_db()
    assert (game.status, game.end_reason) == ("finished", "resigned")
    teams = dict(game.seats.values_list("seat", "team"))
    assert game.winners == [seat for seat in (1, 2, 3, 4) if teams[seat] != teams[1]]

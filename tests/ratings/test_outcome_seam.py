"""Ratings decide no result of their own: the rating formula, the replay's snapshot and the
profile's win/draw/loss all come from the games' ``GameOutcome``."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accounts.selectors import user_recent_games
from games.engine import GameOutcome
from ratings import elo
from ratings.models import RatedGame
from tests.factories import UserFactory
from tests.ratings.play import resigned_game


@given(st.lists(st.integers(0, 50), min_size=2, max_size=4), st.sets(st.integers(1, 4)))
def test_the_formula_duels_as_the_outcome_does(scores, out):
    outcome = GameOutcome.of(scores, out=out)
    entrants = [
        elo.Entrant(seat=s.seat, rating=1500, games=0, score=s.score, out=s.out)
        for s in outcome.seats
    ]
    for a, b in itertools.permutations(entrants, 2):
        assert elo.duel_score(a, b) == outcome.duel(a.seat, b.seat)
    for change in elo.ffa_changes(entrants):
        assert change.result == outcome.verdict(change.seat)


@given(st.lists(st.integers(0, 30), min_size=4, max_size=4), st.sets(st.integers(1, 4)))
def test_team_results_are_the_outcomes(scores, out):
    outcome = GameOutcome.of(scores, out=out, teams=[1, 2, 1, 2])
    sums = outcome.team_scores
    assert sums is not None
    for team, other in ((1, 2), (2, 1)):
        assert elo.team_score(team, sums, outcome.teams_out) == outcome.team_duel(team, other)


@pytest.mark.django_db
def test_a_rated_games_snapshot_rebuilds_its_outcome_and_the_profile_reads_it():
    ana, bo = UserFactory(), UserFactory()
    game = resigned_game([ana, bo], bo)
    game.refresh_from_db()
    rated = RatedGame.objects.get(game_id=game.pk)
    assert rated.outcome.winners == game.winners
    assert rated.outcome.seat(game.seats.get(user=bo).seat).out
    verdicts = {g.id: g.outcome for g in user_recent_games(username=ana.username)}
    assert verdicts[game.pk] == "win"
    assert {g.id: g.outcome for g in user_recent_games(username=bo.username)}[game.pk] == "loss"

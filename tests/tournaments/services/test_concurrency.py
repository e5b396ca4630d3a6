"""Two beats and several workers on PostgreSQL: a tournament starts once and a round is paired
once, whoever gets there first (row locks with skip_locked, unique constraints behind them)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services as games
from games.models import Game
from tests.games.services.helpers import seat_user
from tests.games.services.test_concurrency import race
from tests.tournaments.factories import make_tournament
from tests.tournaments.helpers import round_games
from tournaments import services
from tournaments.models import Pairing, Round

pytestmark = [
    pytest.mark.requires_postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.parametrize("attempt", range(3)),
]


def test_two_concurrent_sweeps_start_a_tournament_once(attempt):
    tournament = make_tournament(players=6, rounds=2, starts_in=timedelta(seconds=-1))
    now = timezone.now()
    outcomes = race(
        first=lambda: services.tournaments_sweep(now=now),
        second=lambda: services.tournaments_sweep(now=now),
    )
    started = outcomes["first"]["started"] + outcomes["second"]["started"]
    assert started == [tournament.pk]
    tournament.refresh_from_db()
    assert (tournament.status, tournament.current_round) == ("running", 1)
    assert Round.objects.filter(tournament=tournament).count() == 1
    assert Pairing.objects.filter(tournament=tournament).count() == 6
    assert Game.objects.count() == 3


def test_the_last_two_games_ending_at_once_pair_the_next_round_once(attempt, monkeypatch):
    tournament = make_tournament(players=4, rounds=3, starts_in=timedelta(seconds=-1))
    services.tournament_start(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    first, second = round_games(tournament)
    # Both games end with their game_ended tasks held back; then both tasks and a sweep race.
    with monkeypatch.context() as held:
        held.setattr("tournaments.receivers.enqueue_game_ended", lambda game_id: None)
        games.game_resign(game_id=first.pk, user=seat_user(first, 1))
        games.game_resign(game_id=second.pk, user=seat_user(second, 2))
    tournament.refresh_from_db()
    assert tournament.current_round == 1
    race(
        one=lambda: services.tournament_game_ended(game_id=first.pk),
        two=lambda: services.tournament_game_ended(game_id=second.pk),
        sweep=lambda: services.tournaments_sweep(),
    )
    tournament.refresh_from_db()
    assert tournament.current_round == 2
    assert list(Round.objects.filter(tournament=tournament).values_list("number", flat=True)) == [
        1,
        2,
    ]
    assert Pairing.objects.filter(tournament=tournament, round__number=2).count() == 4
    assert Game.objects.filter(status="active").count() == 2
    assert not Pairing.objects.filter(round__number=1, points=None).exists()

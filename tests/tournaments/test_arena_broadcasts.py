"""An arena's broadcasts: the live leaderboard on the tournament socket. Each late join, pause,
result and pairing wave pushes a state that round-trips through JSON and matches
``tournaments.state`` (its ``arena`` part included)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games.models import Game
from tests.factories import UserFactory
from tests.payloads import assert_round_trips
from tests.tournaments.factories import make_tournament
from tests.tournaments.helpers import committed, finish, start
from tournaments import services
from tournaments.models import Pairing
from tournaments.state import TournamentStateEvent


@pytest.mark.django_db
def test_an_arena_pushes_its_leaderboard(broadcasts):
    users = [UserFactory() for _ in range(3)]
    arena = start(
        make_tournament(
            players=users, format="arena", rounds=None, duration_minutes=30, starts_in=timedelta(0)
        )
    )
    late = UserFactory()
    committed(services.tournament_join, tournament_id=arena.pk, user=late)
    committed(services.tournament_pause, tournament_id=arena.pk, user=late)
    for game_id in set(Pairing.objects.filter(tournament=arena).values_list("game_id", flat=True)):
        finish(Game.objects.get(pk=game_id))
    states = [e["tournament"] for e in broadcasts.of_type("tournament.state")]
    for event in broadcasts.of_type("tournament.state"):
        assert_round_trips(event, TournamentStateEvent)
    assert [s["version"] for s in states] == sorted(s["version"] for s in states)
    assert any(s["arena"]["paused"] == [late.username] for s in states)
    assert any(s["arena"]["top_game"] is not None for s in states)
    last = states[-1]
    assert max(row["points"] for row in last["standings"]) >= 1.0
    assert len(last["pairings"]) >= 3  # the start, the late joiner's wave, a wave after a result

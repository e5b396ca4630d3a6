"""Whole tournaments played through the services, from creation to final standings: a small
round robin, a Swiss at tables of 2, one at tables of 3 and 4, and a team Swiss."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from games.models import Game
from tests.tournaments.factories import make_tournament
from tests.tournaments.helpers import finish, play_out, round_games, start
from tournaments.models import Pairing, Tournament
from tournaments.selectors import tournament_get, tournament_state

pytestmark = pytest.mark.django_db


def play_round(tournament: Tournament, *, played_out: int = 0) -> None:
    """Finish every game of the current round: the first ``played_out`` by the rules, the others
    after a few turns by resignations (the leader wins)."""
    for index, game in enumerate(round_games(tournament)):
        if index < played_out:
            play_out(game)
        else:
            finish(game, turns=2 + index % 3)
    tournament.refresh_from_db()


def run(tournament: Tournament) -> dict:
    tournament = start(tournament)
    assert tournament.status == "running"
    played = 0
    while tournament.status == "running":
        play_round(tournament, played_out=1 if played == 0 else 0)
        played += 1
    assert tournament.status == "finished"
    assert played == tournament.rounds
    return tournament_state(tournament_get(tournament.pk))


def expected_points(tournament: Tournament) -> dict[str, float]:
    """Each player's points recomputed from the games' stored winners (2 seats: win 1, shared
    win ½) plus 1 per bye."""
    points: Counter[str] = Counter()
    for pairing in Pairing.objects.filter(tournament=tournament).select_related(
        "game", "player__user"
    ):
        name = pairing.player.user.username
        if pairing.game is None:
            points[name] += 1.0
        elif pairing.seat in pairing.game.winners:
            points[name] += 1.0 / len(pairing.game.winners)
        else:
            points[name] += 0.0
    return dict(points)


def meetings(state: dict) -> Counter[frozenset[str]]:
    return Counter(
        frozenset(pair)
        for rnd in state["pairings"]
        for game in rnd["games"]
        for pair in itertools.combinations(game["players"], 2)
    )


def test_a_round_robin_of_four_meets_every_pair_once():
    tournament = make_tournament(players=4, format="round_robin")
    state = run(tournament)
    names = [p["username"] for p in state["players"]]
    assert state["rounds"] == 3
    assert meetings(state) == Counter({frozenset(p): 1 for p in itertools.combinations(names, 2)})
    assert all(len(rnd["games"]) == 2 and not rnd["byes"] for rnd in state["pairings"])
    points = {row["username"]: row["points"] for row in state["standings"]}
    assert points == expected_points(tournament)
    assert sum(points.values()) == 6  # one point per game
    games = Game.objects.filter(tournament_pairings__tournament=tournament).distinct()
    assert all(g.rated and g.status == "finished" for g in games)
    # Buchholz: the sum of the final points of everyone met (everyone, in a round robin).
    for row in state["standings"]:
        assert row["buchholz"] == sum(points.values()) - row["points"]
    ranks = [row["rank"] for row in state["standings"]]
    assert ranks == sorted(ranks)
    assert state["winners"] == [r["username"] for r in state["standings"] if r["rank"] == 1]
    placed = dict(tournament.players.values_list("user__username", "rank"))
    assert placed == {row["username"]: row["rank"] for row in state["standings"]}


def test_a_round_robin_of_three_gives_each_player_one_bye():
    state = run(make_tournament(players=3, format="round_robin"))
    assert state["rounds"] == 3
    byes = Counter(name for rnd in state["pairings"] for name in rnd["byes"])
    assert sorted(byes.values()) == [1, 1, 1]
    assert set(meetings(state).values()) == {1}
    assert all(row["games"] == 2 for row in state["standings"])


def test_a_swiss_of_five_at_tables_of_two_never_repeats_and_spreads_byes():
    tournament = make_tournament(players=5, rounds=3)
    state = run(tournament)
    assert set(meetings(state).values()) == {1}
    byes = [name for rnd in state["pairings"] for name in rnd["byes"]]
    assert len(byes) == 3
    assert len(set(byes)) == 3
    assert {row["username"]: row["points"] for row in state["standings"]} == expected_points(
        tournament
    )
    keys = [(-r["points"], -r["buchholz"], -r["score"]) for r in state["standings"]]
    assert keys == sorted(keys)


def test_a_swiss_at_tables_of_four_seats_tables_of_three_and_four():
    tournament = make_tournament(players=7, rounds=2, table_size=4, min_players=3)
    state = run(tournament)
    for rnd in state["pairings"]:
        assert sorted(len(g["players"]) for g in rnd["games"]) == [3, 4]
        assert rnd["byes"] == []
    # A table of n hands out n / 2 points (every pair shares one).
    total = sum(row["points"] for row in state["standings"])
    assert total == pytest.approx(2 * (3 / 2 + 4 / 2))
    assert all(row["games"] == 2 for row in state["standings"])


def test_a_team_swiss_plays_tables_of_four_with_teams_drawn_per_game():
    tournament = make_tournament(players=5, rounds=2, table_size=4, mode="teams", min_players=4)
    state = run(tournament)
    for rnd in state["pairings"]:
        assert [len(g["players"]) for g in rnd["games"]] == [4]
        assert len(rnd["byes"]) == 1
    assert len({name for rnd in state["pairings"] for name in rnd["byes"]}) == 2
    for game in Game.objects.filter(tournament_pairings__tournament=tournament).distinct():
        assert game.mode == "teams"
        teams = Counter(game.seats.values_list("team", flat=True))
        assert teams == Counter({1: 2, 2: 2})
        points = dict(Pairing.objects.filter(game=game).values_list("seat", "points"))
        team_of = dict(game.seats.values_list("seat", "team"))
        for seat, value in points.items():
            mate = next(s for s in team_of if s != seat and team_of[s] == team_of[seat])
            assert points[mate] == value  # teammates share the team's result
        assert sorted(points.values()) in ([0.0, 0.0, 1.0, 1.0], [0.5] * 4)

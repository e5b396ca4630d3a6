"""The arena through the services: join while it runs, pause and resume, the end at its
duration, and an arena of six played for simulated minutes (an injected tournament clock)."""

from __future__ import annotations

from datetime import timedelta
from itertools import pairwise

import pytest

from games.models import Game
from games.services import Conflict, InvalidInput
from tests.factories import UserFactory
from tests.tournaments.factories import make_tournament
from tests.tournaments.helpers import committed, finish, start
from tournaments import services
from tournaments.models import Pairing, Tournament
from tournaments.selectors import tournament_get, tournament_state

pytestmark = pytest.mark.django_db


class Clock:
    """The tournament services' clock (``services._now``), moved by the test."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, tournament: Tournament) -> None:
        self.now = tournament.starts_at + timedelta(seconds=1)
        monkeypatch.setattr(services, "_now", lambda: self.now)

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def arena(players: int = 0, **options) -> Tournament:
    return make_tournament(
        players=players, format="arena", rounds=None, duration_minutes=30, **options
    )


def games_under_way(tournament: Tournament) -> list[Game]:
    ids = Pairing.objects.filter(tournament=tournament, game__status="active").values("game_id")
    return list(Game.objects.filter(pk__in=ids).order_by("pk"))


def state(tournament: Tournament) -> dict:
    return dict(tournament_state(tournament_get(tournament.pk)))


def test_an_arena_needs_a_duration_and_no_rounds():
    with pytest.raises(InvalidInput):
        make_tournament(format="arena", rounds=None)
    with pytest.raises(InvalidInput):
        make_tournament(format="arena", rounds=3, duration_minutes=30)
    with pytest.raises(InvalidInput):
        make_tournament(format="swiss", rounds=3, duration_minutes=30)
    with pytest.raises(InvalidInput):
        make_tournament(format="arena", rounds=None, duration_minutes=5)
    assert arena().duration_minutes == 30


def test_a_late_joiner_is_paired_at_once_with_a_waiting_player(monkeypatch):
    tournament = arena(players=3)
    Clock(monkeypatch, tournament)
    tournament = start(tournament)
    assert len(games_under_way(tournament)) == 1  # the third waits
    late = UserFactory()
    committed(services.tournament_join, tournament_id=tournament.pk, user=late)
    assert len(games_under_way(tournament)) == 2
    assert Pairing.objects.filter(tournament=tournament, player__user=late).exists()
    assert state(tournament)["pairings"][-1]["round"] == 2  # one round per pairing wave


def test_a_paused_player_plays_out_their_game_and_is_not_paired_until_they_join_again(
    monkeypatch,
):
    users = [UserFactory() for _ in range(4)]
    tournament = arena(players=users)
    Clock(monkeypatch, tournament)
    tournament = start(tournament)
    paused = users[0]
    committed(services.tournament_pause, tournament_id=tournament.pk, user=paused)
    assert state(tournament)["arena"]["paused"] == [paused.username]
    for game in games_under_way(tournament):
        finish(game)
    mine = Pairing.objects.filter(tournament=tournament, player__user=paused)
    assert mine.count() == 1
    assert len(games_under_way(tournament)) == 1  # the other three: two play, one waits
    committed(services.tournament_join, tournament_id=tournament.pk, user=paused)
    assert mine.count() == 2
    assert state(tournament)["arena"]["paused"] == []


def test_pausing_is_for_arena_players_only():
    swiss = start(make_tournament(players=2))
    with pytest.raises(Conflict):
        services.tournament_pause(tournament_id=swiss.pk, user=UserFactory())


def test_no_new_game_after_the_end_and_games_under_way_finish_and_count(monkeypatch):
    tournament = arena(players=2)
    clock = Clock(monkeypatch, tournament)
    tournament = start(tournament)
    [game] = games_under_way(tournament)
    clock.advance(minutes=31)
    with pytest.raises(Conflict):
        services.tournament_join(tournament_id=tournament.pk, user=UserFactory())
    finish(game)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    assert not games_under_way(tournament)
    rows = state(tournament)["standings"]
    assert [row["points"] for row in rows] == [1.0, 0.0]
    assert rows[0]["games"] == 1


def test_an_arena_of_six_played_for_simulated_minutes(monkeypatch):
    """Six players, three of whom play the engine's best turns to the end (bots) while the
    others play a few turns and then the leader is left to win (people resigning): every two
    simulated minutes the games under way are finished and the sweep runs."""
    users = [UserFactory() for _ in range(6)]
    tournament = arena(players=users[:5], table_size=2)
    clock = Clock(monkeypatch, tournament)
    tournament = start(tournament)
    late = users[5]
    step = 0
    while tournament.status == "running":
        step += 1
        assert step < 30, "the arena never ended"
        if step == 2:
            committed(services.tournament_join, tournament_id=tournament.pk, user=late)
        if step == 4:
            committed(services.tournament_pause, tournament_id=tournament.pk, user=users[1])
        if step == 7:
            committed(services.tournament_join, tournament_id=tournament.pk, user=users[1])
        for index, game in enumerate(games_under_way(tournament)):
            seats = list(game.seats.order_by("seat"))
            first = seats[0].user_id
            winner = 1 if (first + step) % 3 else 2  # the same player often wins in a row
            finish(game, turns=1 + index % 2, winner=winner)
        clock.advance(minutes=2)
        committed(services.tournaments_sweep, now=clock.now)
        tournament.refresh_from_db()
    final = state(tournament)
    assert tournament.status == "finished"
    games = [game for rnd in final["pairings"] for game in rnd["games"]]
    assert len(games) >= 12
    assert all(game["status"] == "finished" for game in games)
    assert any(game["players"].count(late.username) for game in games)
    # Never the same opponent twice in a row.
    history: dict[str, list[str]] = {}
    for rnd in final["pairings"]:
        for game in rnd["games"]:
            for name in game["players"]:
                history.setdefault(name, []).append(
                    next(other for other in game["players"] if other != name)
                )
    for name, opponents in history.items():
        assert all(a != b for a, b in pairwise(opponents)), name
    # Points: the games' points with wins doubled on a streak, and someone had a streak.
    plain = {name: 0.0 for name in history}
    for game in games:
        for name, points in zip(game["players"], game["points"], strict=True):
            plain[name] += points
    points = {row["username"]: row["points"] for row in final["standings"]}
    assert any(points[name] > plain[name] for name in plain)
    assert all(points[name] >= plain[name] for name in plain)
    ranked = [
        (row["points"], final["arena"]["performance"][row["username"]])
        for row in final["standings"]
    ]
    assert ranked == sorted(ranked, reverse=True)


def test_arena_games_get_the_tournament_grace(monkeypatch, settings):
    tournament = arena(players=2)
    Clock(monkeypatch, tournament)
    tournament = start(tournament)
    (game,) = games_under_way(tournament)
    assert game.grace_seconds == settings.SIESTA_TOURNAMENT_GRACE_SECONDS == 30
    assert game.first_turn_forfeits


def test_at_three_players_the_one_who_waited_plays_next_and_seats_rotate(monkeypatch):
    tournament = arena(players=3)
    Clock(monkeypatch, tournament)
    tournament = start(tournament)
    for _ in range(6):
        (game,) = games_under_way(tournament)
        finish(game)
    rows = (
        Pairing.objects.filter(tournament=tournament)
        .exclude(game=None)
        .order_by("round__number", "seat")
    )
    tables = [
        tuple(r.player_id for r in rows if r.round_id == rid)
        for rid in sorted({r.round_id for r in rows})
    ]
    assert len(tables) == 7
    for before, after in pairwise(tables):
        waited = set(tournament.players.values_list("pk", flat=True)) - set(before)
        assert waited <= set(after)  # nobody waits two games in a row
    for entry in tournament.players.all():
        seats = [r.seat for r in rows if r.player_id == entry.pk]
        assert max(seats.count(1), seats.count(2)) - min(seats.count(1), seats.count(2)) <= 1

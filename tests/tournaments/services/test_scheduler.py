"""The sweep and the after-commit task run tournaments by themselves: start on time, cancel when
too few joined, pair the next round when the last game of a round ends, finish with standings."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games.models import Game
from tests.tournaments.factories import make_tournament
from tests.tournaments.helpers import committed, finish, round_games, start
from tournaments import services, tasks
from tournaments.models import Pairing, Round, Tournament

pytestmark = pytest.mark.django_db


def test_nothing_starts_before_its_time():
    tournament = make_tournament(players=4)
    report = committed(services.tournaments_sweep, now=tournament.starts_at - timedelta(seconds=1))
    tournament.refresh_from_db()
    assert report["started"] == []
    assert (tournament.status, tournament.current_round) == ("scheduled", None)
    assert not Round.objects.exists()


def test_a_due_tournament_starts_and_round_1_is_seated():
    tournament = start(make_tournament(players=4))
    assert (tournament.status, tournament.current_round, tournament.version) == (
        "running",
        1,
        tournament.version,
    )
    games = round_games(tournament)
    assert len(games) == 2
    for game in games:
        assert (game.status, game.players, game.rated, game.created_by) == (
            "active",
            2,
            True,
            None,
        )
        assert game.turn_seconds == tournament.turn_seconds
    seated = Pairing.objects.filter(tournament=tournament, round__number=1)
    assert seated.count() == 4
    assert not seated.filter(game=None).exists()


def test_too_few_players_cancel_with_a_reason():
    tournament = make_tournament(players=2, min_players=3)
    start(tournament)
    tournament.refresh_from_db()
    assert (tournament.status, tournament.cancel_reason) == ("cancelled", "too_few_players")
    assert not Game.objects.exists()
    # A second sweep leaves it alone.
    assert committed(services.tournaments_sweep, now=tournament.starts_at)["started"] == []


def test_the_next_round_comes_when_the_last_game_of_the_round_ends():
    tournament = start(make_tournament(players=4))
    first, second = round_games(tournament)
    finish(first)
    tournament.refresh_from_db()
    assert tournament.current_round == 1  # one game still running
    finish(second)
    tournament.refresh_from_db()
    assert tournament.current_round == 2
    assert all(g.status == "active" for g in round_games(tournament, 2))
    recorded = Pairing.objects.filter(tournament=tournament, round__number=1)
    assert sorted(p.points for p in recorded) == [0.0, 0.0, 1.0, 1.0]


def test_the_last_round_ends_the_tournament_with_standings_and_winners():
    tournament = start(make_tournament(players=2, rounds=2))
    (game,) = round_games(tournament, 1)
    champion = game.seats.get(seat=1).user
    for number in (1, 2):
        (game,) = round_games(tournament, number)
        finish(game, winner=game.seats.get(user=champion).seat)  # seats alternate
        tournament.refresh_from_db()
    assert (tournament.status, tournament.current_round) == ("finished", 2)
    ranks = dict(tournament.players.values_list("user__username", "rank"))
    assert sorted(ranks.values()) == [1, 2]
    from tournaments.selectors import tournament_get, tournament_state

    state = tournament_state(tournament_get(tournament.pk))
    assert state["winners"] == [row["username"] for row in state["standings"] if row["rank"] == 1]
    assert [row["points"] for row in state["standings"]] in ([2.0, 0.0], [1.0, 1.0])


def test_the_game_ended_task_is_idempotent_and_ignores_other_games():
    tournament = start(make_tournament(players=2, rounds=2))
    (game,) = round_games(tournament)
    finish(game)
    tournament.refresh_from_db()
    version = tournament.version
    assert tasks.game_ended(game.pk) is False  # already recorded and advanced
    tournament.refresh_from_db()
    assert (tournament.version, tournament.current_round) == (version, 2)
    assert tasks.game_ended(10**9) is False


def test_the_sweep_catches_up_a_round_whose_task_was_lost():
    tournament = start(make_tournament(players=2, rounds=2))
    (game,) = round_games(tournament)
    # The game ends, but the after-commit work is dropped (a lost task).
    from games import services as games
    from tests.games.services.helpers import seat_user

    games.game_resign(game_id=game.pk, user=seat_user(game, 1))
    tournament.refresh_from_db()
    assert tournament.current_round == 1
    report = committed(services.tournaments_sweep)
    tournament.refresh_from_db()
    assert report["advanced"] == [tournament.pk]
    assert tournament.current_round == 2


def test_a_withdrawal_mid_round_resigns_the_game_and_is_not_paired_again():
    tournament = start(make_tournament(players=4, rounds=3))
    game = round_games(tournament)[0]
    leaving = game.seats.get(seat=1).user
    committed(services.tournament_leave, tournament_id=tournament.pk, user=leaving)
    game.refresh_from_db()
    assert (game.status, game.end_reason, game.winners) == ("finished", "resigned", [2])
    entry = tournament.players.get(user=leaving)
    assert entry.withdrawn
    tournament.refresh_from_db()
    assert tournament.current_round == 1
    finish(round_games(tournament)[1])
    tournament.refresh_from_db()
    assert tournament.current_round == 2
    later = Pairing.objects.filter(tournament=tournament, round__number=2)
    assert not later.filter(player=entry).exists()
    assert later.count() == 3
    assert later.filter(game=None).count() == 1  # a bye for the odd one out
    assert tournament.status == Tournament.Status.RUNNING


def test_a_tournament_left_with_one_player_finishes():
    tournament = start(make_tournament(players=2, rounds=3))
    game = round_games(tournament)[0]
    leaving = game.seats.get(seat=2).user
    committed(services.tournament_leave, tournament_id=tournament.pk, user=leaving)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    winner = game.seats.get(seat=1).user
    assert tournament.players.get(user=winner).rank == 1


def test_the_sweep_is_a_periodic_task_for_celery_beat_and_the_in_process_beat():
    from django.conf import settings

    from core.inprocess import InProcessBeat

    entry = settings.CELERY_BEAT_SCHEDULE["tournaments-sweep"]
    assert entry["task"] == tasks.sweep.name
    names = [name for name, *_ in InProcessBeat()._entries()]
    assert "tournaments-sweep" in names


def test_the_sweep_task_runs_the_sweep():
    tournament = make_tournament(players=2, starts_in=timedelta(seconds=-1))
    report = tasks.sweep()
    assert report["started"] == [tournament.pk]


def test_a_round_robin_withdrawal_gives_the_opponents_byes():
    tournament = start(make_tournament(players=4, format="round_robin"))
    assert tournament.rounds == 3
    first = round_games(tournament)[0]
    leaving = first.seats.get(seat=1).user
    committed(services.tournament_leave, tournament_id=tournament.pk, user=leaving)
    entry = tournament.players.get(user=leaving)
    for game in round_games(tournament):
        finish(game)
    tournament.refresh_from_db()
    while tournament.status == "running":
        later = Pairing.objects.filter(
            tournament=tournament, round__number=tournament.current_round
        )
        assert not later.filter(player=entry).exists()
        assert later.filter(game=None).count() == 1  # the withdrawn player's opponent
        for game in round_games(tournament):
            finish(game)
        tournament.refresh_from_db()
    assert tournament.status == "finished"
    assert tournament.current_round == 3

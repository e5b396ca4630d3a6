"""No-shows: a tournament game's first turns have a grace period; a player who misses their first
turn forfeits (0 points, shown as a forfeit, not rated), and two forfeits in a row withdraw them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games import services as games
from games.models import Game, Seat
from games.selectors import game_get, game_state
from ratings.models import RatedGame, Rating
from tests.factories import UserFactory
from tests.games.services.helpers import best_move, play_best_turn, seat_user
from tests.tournaments.factories import make_tournament
from tests.tournaments.helpers import committed, finish, round_games, start
from tournaments.models import Pairing, Tournament
from tournaments.selectors import tournament_get, tournament_state

pytestmark = pytest.mark.django_db

GRACE = 30
TURN = 120


@pytest.fixture(autouse=True)
def _grace(settings):
    settings.SIESTA_TOURNAMENT_GRACE_SECONDS = GRACE


def expire(game: Game) -> list[int]:
    """The timeout sweep, run just after the game's current deadline."""
    game.refresh_from_db()
    assert game.deadline is not None
    return committed(games.game_turn_timeouts_expire, now=game.deadline + timedelta(seconds=1))


def test_the_first_turn_clock_starts_after_the_grace_and_the_page_says_so() -> None:
    tournament = start(make_tournament(players=2, turn_seconds=TURN))
    (game,) = round_games(tournament)
    assert game.grace_seconds == GRACE
    assert game.started_at is not None
    assert game.deadline is not None
    assert game.deadline - game.started_at == timedelta(seconds=GRACE + TURN)
    state = game_state(game_get(game.pk))
    assert state["forfeit_on_timeout"] is True
    assert tournament_state(tournament_get(tournament.pk))["grace_seconds"] == GRACE

    play_best_turn(game)  # seat 2's first turn: still a forfeit if missed
    assert game_state(game_get(game.pk))["forfeit_on_timeout"] is True
    play_best_turn(game)  # both have shown: from now on an ordinary clock
    game.refresh_from_db()
    assert game_state(game_get(game.pk))["forfeit_on_timeout"] is False
    assert game.deadline is not None
    assert game.deadline <= timezone.now() + timedelta(seconds=TURN)


def test_a_game_outside_tournaments_has_no_grace() -> None:
    users = [UserFactory(), UserFactory()]
    game = committed(games.game_create_seated, users=users, turn_seconds=TURN)
    game.refresh_from_db()
    assert game.grace_seconds == 0
    assert game.deadline is not None
    assert game.started_at is not None
    assert abs(game.deadline - game.started_at - timedelta(seconds=TURN)) < timedelta(seconds=1)
    assert game_state(game_get(game.pk))["forfeit_on_timeout"] is False
    expire(game)
    game.refresh_from_db()
    assert game.end_reason == "timeout"


def test_a_missed_first_turn_forfeits_the_game_unrated_and_the_opponent_gets_the_point() -> None:
    tournament = start(make_tournament(players=2, rounds=2, turn_seconds=TURN))
    (game,) = round_games(tournament)
    absent = seat_user(game, 1)
    present = seat_user(game, 2)
    ratings_before = dict(Rating.objects.values_list("user_id", "rating"))

    assert expire(game) == [game.pk]

    game.refresh_from_db()
    assert (game.status, game.end_reason, game.winners) == ("finished", "forfeit", [2])
    assert game.seats.get(seat=1).out_reason == Seat.OutReason.FORFEIT
    rated = RatedGame.objects.get(game_id=game.pk)
    assert (rated.counted, rated.reason) == (False, "aborted")
    assert dict(Rating.objects.values_list("user_id", "rating")) == ratings_before
    rows = {p.player.user_id: p for p in Pairing.objects.filter(game=game)}
    assert (rows[absent.pk].points, rows[absent.pk].forfeit) == (0.0, True)
    assert (rows[present.pk].points, rows[present.pk].forfeit) == (1.0, False)

    state = tournament_state(tournament_get(tournament.pk))
    assert state["pairings"][0]["games"][0]["forfeits"] == [absent.username]
    by_name = {row["username"]: row for row in state["standings"]}
    assert by_name[absent.username]["forfeits"] == 1
    assert by_name[present.username]["points"] == 1.0
    assert state["current_round"] == 2  # the round ended: the next one is paired


def test_the_second_seat_missing_its_first_turn_forfeits_too() -> None:
    tournament = start(make_tournament(players=2, rounds=1, turn_seconds=TURN))
    (game,) = round_games(tournament)
    play_best_turn(game)
    game.refresh_from_db()
    # Seat 2's clock also starts no earlier than the grace's end.
    assert game.deadline is not None
    assert game.started_at is not None
    assert game.deadline >= game.started_at + timedelta(seconds=GRACE + TURN)
    expire(game)
    game.refresh_from_db()
    assert (game.end_reason, game.winners) == ("forfeit", [1])
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED


def test_a_late_first_move_is_refused_as_a_forfeit(monkeypatch) -> None:
    tournament = start(make_tournament(players=2, rounds=1, turn_seconds=TURN))
    (game,) = round_games(tournament)
    game.refresh_from_db()
    assert game.deadline is not None
    move = best_move(game)
    late = game.deadline + timedelta(seconds=1)
    monkeypatch.setattr("games.services._now", lambda: late)
    with pytest.raises(games.TurnTimedOut):
        committed(games.game_move_make, game_id=game.pk, user=seat_user(game, 1), move=move, ply=0)
    game.refresh_from_db()
    assert game.end_reason == "forfeit"


def test_after_the_first_turns_a_missed_turn_is_an_ordinary_timeout() -> None:
    tournament = start(make_tournament(players=2, rounds=1, turn_seconds=TURN))
    (game,) = round_games(tournament)
    play_best_turn(game)
    play_best_turn(game)
    expire(game)
    game.refresh_from_db()
    assert game.end_reason == "timeout"
    assert RatedGame.objects.get(game_id=game.pk).counted
    assert not Pairing.objects.filter(game=game, forfeit=True).exists()


def test_two_forfeits_in_a_row_withdraw_the_player() -> None:
    tournament = start(make_tournament(players=3, rounds=4, turn_seconds=TURN))
    (game,) = round_games(tournament)
    absent = seat_user(game, 1)
    expire(game)  # forfeit 1
    tournament.refresh_from_db()
    assert tournament.current_round == 2
    entry = tournament.players.get(user=absent)
    assert not entry.withdrawn
    games_2 = round_games(tournament)
    mine = [g for g in games_2 if g.seats.filter(user=absent).exists()]
    if not mine:  # the absentee rests this round: play the others' game, then look again
        finish(games_2[0])
        tournament.refresh_from_db()
        mine = [g for g in round_games(tournament) if g.seats.filter(user=absent).exists()]
    (game,) = mine
    absent_seat = game.seats.get(user=absent).seat
    if absent_seat == 2:
        play_best_turn(game)
    expire(game)  # forfeit 2
    entry.refresh_from_db()
    assert entry.withdrawn
    tournament.refresh_from_db()
    later = Pairing.objects.filter(tournament=tournament, round__number__gt=game_round(game))
    assert not later.filter(player=entry).exists()
    state = tournament_state(tournament_get(tournament.pk))
    row = next(r for r in state["standings"] if r["username"] == absent.username)
    assert row["forfeits"] == 2
    assert row["points"] == pytest.approx(
        Pairing.objects.filter(player=entry, game=None).count() * 1.0
    )


def game_round(game: Game) -> int:
    return Pairing.objects.filter(game=game).values_list("round__number", flat=True).first() or 0


def test_one_forfeit_between_played_games_does_not_withdraw() -> None:
    tournament = start(make_tournament(players=2, rounds=3, turn_seconds=TURN))
    (game,) = round_games(tournament)
    absent = seat_user(game, 1)
    expire(game)
    tournament.refresh_from_db()
    (game,) = round_games(tournament)
    finish(game)  # everyone showed in round 2
    tournament.refresh_from_db()
    (game,) = round_games(tournament)
    if game.seats.get(user=absent).seat == 2:
        play_best_turn(game)
    expire(game)  # a forfeit again, but not two in a row
    entry = tournament.players.get(user=absent)
    assert not entry.withdrawn
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED


def test_at_a_table_of_three_the_absentee_forfeits_and_the_others_play_on() -> None:
    tournament = start(make_tournament(players=3, table_size=3, rounds=1, turn_seconds=TURN))
    (game,) = round_games(tournament)
    absent = seat_user(game, 1)
    expire(game)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE  # a bot plays the seat, as after a resignation
    assert game.seats.get(seat=1).out_reason == Seat.OutReason.FORFEIT
    finish(game, turns=3, winner=2)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert RatedGame.objects.get(game_id=game.pk).counted is False
    rows = {p.player.user_id: p for p in Pairing.objects.filter(game=game)}
    assert (rows[absent.pk].points, rows[absent.pk].forfeit) == (0.0, True)
    others = [p for uid, p in rows.items() if uid != absent.pk]
    assert sum(p.points or 0 for p in others) == pytest.approx(1.5)  # 1 + ½ + 0 among the two
    assert all((p.points or 0) >= 0.5 for p in others)  # each beat the absentee


def test_the_page_announces_the_grace_and_shows_seats_and_forfeits(client) -> None:
    tournament = start(make_tournament(players=2, rounds=2, turn_seconds=TURN))
    (game,) = round_games(tournament)
    expire(game)
    client.cookies["django_language"] = "en"
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert f"first turns start their clock {GRACE} seconds after pairing" in page
    # Rounds 1 and 2 (paired at once): seat 1, then seat 2, and the other way round.
    assert '<td class="col-seats seat-history" data-label="Seats">1 2</td>' in page
    assert '<td class="col-seats seat-history" data-label="Seats">2 1</td>' in page
    assert '<span class="badge">forfeit</span>' in page
    assert "(1 forfeit)" in page
    tournament.refresh_from_db()
    (game,) = round_games(tournament)
    game_page = client.get(reverse("game", args=[game.pk])).content.decode()
    note = game_page.split('id="forfeit-note"')[1].split(">")[0]
    assert "hidden" not in note

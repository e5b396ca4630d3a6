"""game_join: the lowest free seat, the start when the last seat is filled (teams drawn then), and
the joins it refuses."""

from __future__ import annotations

from collections import Counter

import pytest
from django.utils import timezone

from core.errors import ErrorKind
from games import services
from games.models import Game
from games.services import Conflict, NotFound
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.games.services.helpers import assert_deadline, seat_user, snapshot

pytestmark = pytest.mark.django_db


def test_a_player_takes_the_lowest_free_seat_and_the_game_stays_open():
    game = make_game(players=4, start=False)
    joiner = UserFactory()
    services.game_join(game_id=game.pk, user=joiner)
    game.refresh_from_db()
    assert seat_user(game, 2) == joiner
    assert (seat_user(game, 3), seat_user(game, 4)) == (None, None)
    assert (game.status, game.to_move, game.deadline, game.started_at) == ("open", None, None, None)
    assert game.version == 2


def test_seats_taken_by_bots_are_skipped():
    game = make_game(players=4, bots=[(2, "easy"), (4, "hard")], start=False)
    joiner = UserFactory()
    services.game_join(game_id=game.pk, user=joiner)
    game.refresh_from_db()
    seats = game.seats.order_by("seat")
    assert [(s.seat, s.user, s.bot_level) for s in seats][1:] == [
        (2, None, "easy"),
        (3, joiner, ""),
        (4, None, "hard"),
    ]
    assert game.status == "active"  # that was the last free seat


def test_the_last_seat_starts_the_game_with_seat_1_to_move(
    watch, django_capture_on_commit_callbacks
):
    game = make_game(players=3, start=False, turn_seconds=300)
    services.game_join(game_id=game.pk, user=UserFactory())
    watcher = watch(game.pk)
    before = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        services.game_join(game_id=game.pk, user=UserFactory())
    after = timezone.now()
    game.refresh_from_db()
    assert (game.status, game.to_move, game.ply, game.version) == ("active", 1, 0, 3)
    assert before <= game.started_at <= after
    assert_deadline(game, before, after)
    assert [s.team for s in game.seats.all()] == [None] * 3  # teams only in team games
    [event] = watcher.events()
    assert event["version"] == 3
    assert (event["game"]["status"], event["game"]["to_move"]) == ("active", 1)
    assert all(seat["username"] for seat in event["game"]["seats"])


def test_teams_are_drawn_when_the_game_starts():
    game = make_game(players=4, mode="teams", start=False)
    for _ in range(2):
        services.game_join(game_id=game.pk, user=UserFactory())
    assert list(game.seats.values_list("team", flat=True)) == [None] * 4  # not before the start
    services.game_join(game_id=game.pk, user=UserFactory())
    game.refresh_from_db()
    assert game.status == "active"
    assert Counter(game.seats.values_list("team", flat=True)) == {1: 2, 2: 2}


def test_teams_are_drawn_at_random():
    """Seat 1's partner is seat 2, 3 or 4 with a chance of one in three each: in 40 games each
    pairing comes up (all but certainly: a miss has a chance below 1 in 10 million)."""
    partners = Counter()
    for _ in range(40):
        game = make_game(players=4, mode="teams")
        teams = dict(game.seats.values_list("seat", "team"))
        [partner] = [seat for seat in (2, 3, 4) if teams[seat] == teams[1]]
        partners[partner] += 1
    assert set(partners) == {2, 3, 4}


@pytest.mark.parametrize("status", ["active", "finished"])
def test_a_started_or_finished_game_cannot_be_joined(status: str):
    game = make_game(players=2)
    if status == "finished":
        services.game_resign(game_id=game.pk, user=seat_user(game, 2))
    before = snapshot(game)
    with pytest.raises(Conflict) as refused:
        services.game_join(game_id=game.pk, user=UserFactory())
    assert refused.value.kind == ErrorKind.CONFLICT
    assert snapshot(game) == before


def test_a_full_game_cannot_be_joined():
    game = make_game(players=2, bots=[(2, "medium")], start=False)
    assert game.status == Game.Status.ACTIVE  # full, so started
    with pytest.raises(Conflict):
        services.game_join(game_id=game.pk, user=UserFactory())


def test_nobody_takes_two_seats():
    creator, joiner = UserFactory(), UserFactory()
    game = make_game(players=4, users=[creator], start=False)
    services.game_join(game_id=game.pk, user=joiner)
    before = snapshot(game)
    for user in (creator, joiner):
        with pytest.raises(Conflict, match="already have a seat"):
            services.game_join(game_id=game.pk, user=user)
    assert snapshot(game) == before


def test_an_unknown_game_cannot_be_joined():
    with pytest.raises(NotFound) as refused:
        services.game_join(game_id=10**9, user=UserFactory())
    assert refused.value.kind == ErrorKind.NOT_FOUND
    assert "10000000" in refused.value.message

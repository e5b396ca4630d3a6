"""The names a game gives to its own questions: whose seat is to move, and a user's seat."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser

from games.models import Game
from games.selectors import game_get, game_seats
from tests.factories import UserFactory
from tests.games.factories import make_game

pytestmark = pytest.mark.django_db


def test_the_seat_to_move_from_given_seats_or_the_prefetch(django_assert_num_queries):
    game = make_game(players=3)
    seats = game_seats(game)
    assert game.seat_to_move(seats) is seats[0]
    game.to_move = 3
    assert game.seat_to_move(seats) is seats[2]
    loaded = game_get(game.pk)
    with django_assert_num_queries(0):
        seat = loaded.seat_to_move()
    assert seat is not None
    assert seat.seat == 1


def test_no_seat_is_to_move_before_the_start_or_after_the_end():
    game = make_game(start=False)
    assert game.to_move is None
    assert game.seat_to_move() is None
    game.status, game.to_move = Game.Status.FINISHED, None
    assert game.seat_to_move(game_seats(game)) is None


def test_a_users_seat():
    ana, bo = UserFactory(), UserFactory()
    game = game_get(make_game(users=[ana, bo]).pk)
    seat = game.seat_of(bo)
    assert seat is not None
    assert (seat.seat, seat.user) == (2, bo)
    assert game.seat_of(UserFactory()) is None
    assert game.seat_of(AnonymousUser()) is None
    assert game.seat_of(None) is None

"""Clients for the API tests: anonymous, and signed in with a token as scripts are."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games.models import Game
from tests.factories import UserFactory
from tests.games.factories import make_game


def token_client(user) -> APIClient:
    """A client that sends ``Authorization: Token <key>``, as a script or bot does."""
    token, _ = Token.objects.get_or_create(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def seat_user(game: Game, seat: int):
    return game.seats.get(seat=seat).user


@pytest.fixture
def anon() -> APIClient:
    return APIClient()


@pytest.fixture
def alice(db):
    return UserFactory(username="alice")


@pytest.fixture
def bob(db):
    return UserFactory(username="bob")


@pytest.fixture
def active_game(alice, bob) -> Game:
    """A 2-player game in progress: alice (seat 1) is to move at ply 0."""
    return make_game(users=[alice, bob])

"""Fixtures for the API tests: an anonymous client, two players and a game between them."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from games.models import Game
from tests.factories import UserFactory
from tests.games.factories import make_game


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

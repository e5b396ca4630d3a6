"""Helpers for the API tests: clients that act as scripts do, and the engine choosing moves."""

from __future__ import annotations

from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games import selectors
from games.engine.search import best_turn
from games.models import Game


def token_client(user) -> APIClient:
    """A client that sends ``Authorization: Token <key>``, as a script or bot does."""
    token, _ = Token.objects.get_or_create(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def seat_user(game: Game, seat: int):
    return game.seats.get(seat=seat).user


def best_move(game_id: int) -> str:
    """The engine's best turn for whoever is to move."""
    best = best_turn(selectors.position_of(selectors.game_get(game_id)))
    assert best.turn is not None
    return str(best.turn)


def play(client: APIClient, game_id: int, move: str, ply: int) -> dict:
    response = client.post(
        reverse("api-game-moves", args=[game_id]), {"move": move, "ply": ply}, format="json"
    )
    assert response.status_code == 201, response.json()
    return response.json()

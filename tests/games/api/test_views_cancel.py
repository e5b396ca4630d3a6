"""POST /api/games/{id}/cancel/ and the lobby's cancel form, and the limits as API answers."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from games.models import Game
from tests.factories import PASSWORD, UserFactory
from tests.games.api.helpers import token_client
from tests.games.factories import make_game

pytestmark = pytest.mark.django_db

GAMES = reverse("api-games")


def cancel_url(game_id: int) -> str:
    return reverse("api-game-cancel", args=[game_id])


def test_the_creator_cancels_and_gets_the_cancelled_game(alice):
    game = make_game(users=[alice], start=False)
    response = token_client(alice).post(cancel_url(game.pk))
    assert response.status_code == 200
    body = response.json()
    assert (body["id"], body["status"], body["result"]["end_reason"]) == (
        game.pk,
        "cancelled",
        "cancelled",
    )
    listed = token_client(alice).get(GAMES, {"status": "open"}).json()["results"]
    assert game.pk not in [g["id"] for g in listed]
    assert token_client(alice).get(GAMES, {"status": "cancelled"}).json()["count"] == 1


@pytest.mark.parametrize(
    ("who", "status", "error"),
    [
        ("other", 403, "Only the player who opened this game can cancel it."),
        ("anonymous", 401, None),
    ],
)
def test_others_cannot_cancel(alice, who, status, error):
    game = make_game(users=[alice], start=False)
    client = token_client(UserFactory()) if who == "other" else APIClient()
    response = client.post(cancel_url(game.pk))
    assert response.status_code == status
    if error:
        assert response.json() == {"error": error, "code": "not_allowed"}
    assert Game.objects.get(pk=game.pk).status == "open"


def test_a_started_game_cannot_be_cancelled_and_an_unknown_one_is_404(active_game, alice):
    response = token_client(alice).post(cancel_url(active_game.pk))
    assert response.status_code == 409
    assert response.json() == {
        "error": "Only a game still waiting for players can be cancelled.",
        "code": "conflict",
    }
    assert token_client(alice).post(cancel_url(99999)).status_code == 404


def test_the_open_games_limit_is_a_clear_409(settings, alice):
    settings.SIESTA_MAX_OPEN_GAMES = 1
    client = token_client(alice)
    assert client.post(GAMES, {}, format="json").status_code == 201
    response = client.post(GAMES, {}, format="json", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 409
    assert response.json() == {
        "error": "You already have 1 open game waiting for players: "
        "cancel it or wait until it starts.",
        "code": "conflict",
    }


def test_the_bot_games_limit_is_a_clear_409(settings, alice):
    settings.SIESTA_MAX_BOT_GAMES = 1
    client = token_client(alice)
    with_bot = {"bots": [{"seat": 2, "level": "easy"}]}
    assert client.post(GAMES, with_bot, format="json").status_code == 201
    response = client.post(GAMES, with_bot, format="json")
    assert response.status_code == 409
    assert response.json() == {
        "error": "You are already playing 1 game with bots: finish it first.",
        "code": "conflict",
    }


def test_the_lobby_cancel_form(client):
    creator = UserFactory()
    game = make_game(users=[creator], start=False)
    assert client.login(username=creator.username, password=PASSWORD)
    response = client.post(reverse("game_cancel", args=[game.pk]), follow=True)
    assert response.redirect_chain[-1][0] == reverse("lobby")
    assert f"Game {game.pk} is cancelled." in response.content.decode()
    assert Game.objects.get(pk=game.pk).status == "cancelled"
    # Again: refused with the reason, nothing changes.
    response = client.post(reverse("game_cancel", args=[game.pk]), follow=True)
    assert "Only a game still waiting for players can be cancelled." in response.content.decode()
    # The game page of a cancelled game says so.
    page = client.get(reverse("game", args=[game.pk])).content.decode()
    assert "This game was cancelled." in page


def test_an_expired_open_game_leaves_the_lobby_page(client, settings):
    from datetime import timedelta

    from django.utils import timezone

    from games import services

    settings.SIESTA_OPEN_GAME_MINUTES = 10
    stale, fresh = make_game(start=False), make_game(start=False)
    Game.objects.filter(pk=stale.pk).update(created_at=timezone.now() - timedelta(minutes=11))
    lobby = client.get(reverse("lobby")).content.decode()
    assert reverse("game", args=[stale.pk]) in lobby

    assert services.game_open_expire() == [stale.pk]

    lobby = client.get(reverse("lobby")).content.decode()
    assert reverse("game", args=[stale.pk]) not in lobby
    assert reverse("game", args=[fresh.pk]) in lobby

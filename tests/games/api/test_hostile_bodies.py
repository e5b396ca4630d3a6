"""Bodies built to break the parser: JSON nested thousands of levels deep is a 400 (it was a
500 RecursionError on the auth endpoints, before any authentication), on every POST endpoint."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.models import Game
from tests.games.api.helpers import token_client

pytestmark = pytest.mark.django_db


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def nested_object(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


@pytest.mark.parametrize("body", [nested(3000), nested_object(3000), nested(100)])
@pytest.mark.parametrize("name", ["api-token", "api-register"])
def test_deep_json_on_the_auth_endpoints_is_a_400(anon, name, body):
    response = anon.post(reverse(name), body, content_type="application/json")

    assert response.status_code == 400
    assert "nested too deeply" in response.json()["error"]


def test_deep_json_on_a_move_is_a_400_and_changes_nothing(active_game, alice):
    body = '{"move": "SA1 RB1 HC1", "ply": 0, "x": ' + nested(2000) + "}"

    response = token_client(alice).post(
        reverse("api-game-moves", args=[active_game.pk]), body, content_type="application/json"
    )

    assert response.status_code == 400
    assert Game.objects.get(pk=active_game.pk).ply == 0


def test_json_as_deep_as_the_api_needs_is_fine(alice):
    body = {"players": 2, "bots": [{"seat": 2, "level": "easy"}]}

    response = token_client(alice).post(reverse("api-games"), body, format="json")

    assert response.status_code == 201


def test_a_body_larger_than_any_request_is_a_413(anon):
    """DRF reads the stream itself, past Django's upload limit: 50 MB of JSON were parsed."""
    body = '{"username": "' + "a" * 200_000 + '", "password": "x"}'

    response = anon.post(reverse("api-token"), body, content_type="application/json")

    assert response.status_code == 413
    assert "too large" in response.json()["error"]


@pytest.mark.parametrize("body", ["{not json", '{"a": NaN}', b"\xff\xfe{}"])
def test_malformed_json_is_still_a_400(anon, body):
    response = anon.post(reverse("api-token"), body, content_type="application/json")

    assert response.status_code == 400
    assert response.json()["error"].startswith("JSON parse error")

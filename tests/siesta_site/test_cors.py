"""Read-only CORS under /api/ (siesta_site/cors.py): another site's page may read the API, never
with the visitor's cookies, and may not write."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import UserFactory
from tests.games.factories import make_game

pytestmark = pytest.mark.django_db

ORIGIN = "https://bots.example"


def test_a_cross_origin_read_is_allowed_without_credentials(client: Client):
    game = make_game()

    response = client.get(reverse("api-game", args=[game.pk]), HTTP_ORIGIN=ORIGIN)

    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in response
    assert "Retry-After" in response["Access-Control-Expose-Headers"]


def test_errors_of_reads_are_readable_too(client: Client):
    response = client.get("/api/games/999999/", HTTP_ORIGIN=ORIGIN)

    assert response.status_code == 404
    assert response["Access-Control-Allow-Origin"] == "*"


@pytest.mark.parametrize("method", ["GET", "HEAD", "get"])
def test_a_preflight_for_a_read_is_answered_at_once(client: Client, method: str):
    response = client.options(
        reverse("api-games"),
        HTTP_ORIGIN=ORIGIN,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD=method,
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization",
    )

    assert response.status_code == 204
    assert response["Access-Control-Allow-Origin"] == "*"
    assert response["Access-Control-Allow-Methods"] == "GET, HEAD, OPTIONS"
    assert "Authorization" in response["Access-Control-Allow-Headers"]
    assert int(response["Access-Control-Max-Age"]) > 0
    assert "Access-Control-Allow-Credentials" not in response


@pytest.mark.parametrize("method", ["POST", "DELETE", "PUT", "PATCH"])
def test_a_preflight_for_a_write_gets_no_permission(client: Client, method: str):
    response = client.options(
        reverse("api-games"), HTTP_ORIGIN=ORIGIN, HTTP_ACCESS_CONTROL_REQUEST_METHOD=method
    )

    assert "Access-Control-Allow-Origin" not in response
    assert "Access-Control-Allow-Methods" not in response


def test_a_write_gets_no_cors_header(client: Client):
    client.force_login(UserFactory())

    response = client.post(
        reverse("api-games"), {}, content_type="application/json", HTTP_ORIGIN=ORIGIN
    )

    assert "Access-Control-Allow-Origin" not in response


def test_pages_get_no_cors_header(client: Client):
    assert "Access-Control-Allow-Origin" not in client.get("/", HTTP_ORIGIN=ORIGIN)


def test_an_api_read_without_origin_carries_the_header_too(client: Client):
    """The same answer for every reader: a cache in between cannot serve another site one
    without the header."""
    assert client.get(reverse("api-games"))["Access-Control-Allow-Origin"] == "*"

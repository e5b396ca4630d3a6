"""The database away: every route answers 503 with ``Retry-After`` (JSON under ``/api/``, a plain
page elsewhere), never a 500, and nothing is logged at ERROR (siesta_site/outage.py).

The outage is real, not mocked: the default connection's settings point at a closed port (or, on
SQLite, at a file that cannot exist) for the test, as ``/health/``'s tests do
(``unreachable_database`` in conftest.py). The real server stopped under `make up` is
tests/test_stack.py's.
"""

from __future__ import annotations

import logging

import pytest
from django.test import Client
from django.urls import get_resolver
from rest_framework.test import APIClient

from tests.reliability.test_hostile_routes import _routes, fill

API_ROUTES = sorted(
    {route for route, _name in _routes(get_resolver().url_patterns) if route.startswith("api/")}
)


@pytest.fixture
def no_errors_logged(caplog):
    caplog.set_level(logging.WARNING)
    yield caplog
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage()[:300] for r in errors[:3]]


def unavailable(response, path: str) -> None:
    """A 503 of the outage under /api/: the API's error shape and Retry-After."""
    where = (path, response.status_code, response.content[:200])
    assert response.status_code == 503, where
    assert response["Retry-After"] == "10", where
    assert response["Content-Type"] == "application/json", where
    body = response.json()
    assert body["code"] == "unavailable", where
    assert body["error"] == "The site is briefly unavailable. Please try again in a moment."


def test_the_games_list_answers_503_with_retry_after(unreachable_database, no_errors_logged):
    for _ in range(11):  # the report's count
        unavailable(Client().get("/api/games/"), "/api/games/")
    warnings = [r for r in no_errors_logged.records if r.name == "siesta_site.outage"]
    assert len(warnings) == 11
    assert "GET /api/games/ answered 503" in warnings[0].getMessage()


def test_every_api_route_answers_503_or_without_the_database(
    unreachable_database, no_errors_logged
):
    """Anonymous GETs, and token-signed POSTs (the token's lookup needs the database): each is a
    503 of the outage, or an answer that needed no database (the schema's documents, a 405);
    never a 500."""
    anonymous = APIClient(REMOTE_ADDR="192.0.2.30")
    signed = APIClient(REMOTE_ADDR="192.0.2.31", HTTP_AUTHORIZATION="Token " + "a" * 40)
    outages = 0
    for route in API_ROUTES:
        path = fill(route, number="1", text="x")
        for response in (anonymous.get(path), signed.post(path, {}, format="json")):
            if response.status_code == 503:
                unavailable(response, path)
                outages += 1
            else:
                assert response.status_code < 500, (path, response.status_code)
    assert outages > len(API_ROUTES)  # every signed POST at least


def test_a_page_answers_a_plain_503(unreachable_database, no_errors_logged):
    response = Client().get("/")
    assert response.status_code == 503
    assert response["Retry-After"] == "10"
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert "<h1>Service Unavailable (503)</h1>" in page
    assert "The site is briefly unavailable" in page


@pytest.fixture
def signed_in_client(django_user_model):
    """A browser signed in before the outage: its session must be read from the database."""
    client = Client()
    client.force_login(django_user_model.objects.create_user("sleeper", password="x"))
    return client


@pytest.mark.django_db(transaction=True)
def test_a_signed_in_page_and_api_call_answer_503(signed_in_client, request, no_errors_logged):
    request.getfixturevalue("unreachable_database")
    assert signed_in_client.get("/").status_code == 503
    unavailable(signed_in_client.get("/api/games/"), "/api/games/")


def test_other_errors_are_still_500s(db, settings):
    """Only the database's unavailability is an outage: a bug stays a 500, logged."""
    from siesta_site.outage import database_unavailable

    assert not database_unavailable(ValueError("a bug"))
    assert not database_unavailable(KeyError("x"))

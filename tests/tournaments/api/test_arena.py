"""The arena through the API (API.md, Tournaments second edition): creation with a duration,
joining while it runs, pausing, and the arena's part of the state."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from tests.factories import UserFactory
from tests.tournaments.api.test_views import LIST, client_for, create_body, url
from tests.tournaments.factories import make_tournament
from tests.tournaments.helpers import start

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_throttles():
    cache.clear()
    yield
    cache.clear()


def test_staff_create_an_arena_with_a_duration_instead_of_rounds():
    staff = UserFactory(is_staff=True)
    body = create_body(format="arena", rounds=None, duration_minutes=45)
    response = client_for(staff).post(LIST, body, format="json")
    assert response.status_code == 201, response.json()
    created = response.json()
    assert (created["format"], created["duration_minutes"], created["rounds"]) == (
        "arena",
        45,
        None,
    )
    assert created["arena"]["top_game"] is None
    refused = client_for(staff).post(LIST, create_body(format="arena", rounds=None), format="json")
    assert refused.status_code == 400
    assert "error" in refused.json()


def test_join_while_running_pause_and_resume():
    tournament = start(make_tournament(players=2, format="arena", rounds=None, duration_minutes=30))
    late = UserFactory()
    joined = client_for(late).post(url(tournament.pk, "join"), format="json")
    assert joined.status_code == 200, joined.json()
    assert late.username in [p["username"] for p in joined.json()["players"]]
    paused = client_for(late).post(url(tournament.pk, "pause"))
    assert paused.status_code == 200
    assert paused.json()["arena"]["paused"] == [late.username]
    resumed = client_for(late).post(url(tournament.pk, "join"), format="json")
    assert resumed.json()["arena"]["paused"] == []
    state = client_for().get(url(tournament.pk)).json()
    assert state["arena"]["top_game"] == state["pairings"][0]["games"][0]["id"]


def test_pause_refusals():
    swiss = start(make_tournament(players=2))
    player = UserFactory()
    assert client_for(player).post(url(swiss.pk, "pause")).status_code == 409
    assert client_for().post(url(swiss.pk, "pause")).status_code in (401, 403)
    assert client_for(player).post(url(999999, "pause")).status_code == 404

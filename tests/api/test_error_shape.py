"""The fixes schemathesis asked for, one by one: one error shape with a ``code`` on every 4xx,
401 for a bad token everywhere, input as strict as the schema says."""

from __future__ import annotations

from datetime import timedelta

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.factories import UserFactory
from tests.tournaments.factories import make_tournament

pytestmark = pytest.mark.django_db


def _client(user=None):
    client = APIClient()
    if user is not None:
        key = Token.objects.get_or_create(user=user)[0].key
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.mark.parametrize(
    "path",
    [
        "/api/ratings/leaderboard/",
        "/api/users/nobody/ratings/",
        "/api/users/nobody/",
        "/api/games/",
        "/api/tournaments/",
        "/api/presence/?users=a",
    ],
)
def test_a_bad_token_is_401_everywhere(path):
    response = APIClient().get(path, HTTP_AUTHORIZATION="Token not-a-token")
    assert response.status_code == 401
    assert response.json() == {"error": "Invalid token.", "code": "authentication_failed"}


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/api/users/nobody/", 404, "not_found"),
        ("/api/ratings/leaderboard/?mode=", 400, "invalid"),
        ("/api/ratings/leaderboard/?mode=chess", 400, "invalid"),
        ("/api/games/?status=", 400, "invalid"),
        ("/api/tournaments/?status=", 400, "invalid"),
        ("/api/games/?page=", 404, "not_found"),
        ("/api/games/?page=0", 404, "not_found"),
        ("/api/games/abc/", 404, "not_found"),
        ("/api/games/99999999999999999999/", 404, "not_found"),
    ],
)
def test_every_4xx_has_error_and_code(path, status, code):
    response = APIClient().get(path)
    assert response.status_code == status
    body = response.json()
    assert body["code"] == code
    assert isinstance(body["error"], str)
    assert body["error"]


@pytest.mark.parametrize("path", ["moves", "resign", "join", "cancel", "hint"])
def test_a_huge_id_on_a_game_action_is_a_json_404(path):
    response = _client(UserFactory()).post(
        f"/api/games/99999999999999999999/{path}/", {}, format="json"
    )
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_missing_credentials_are_401_with_a_code():
    response = APIClient().post("/api/games/", {}, format="json")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


@pytest.mark.parametrize("value", [0, 1, "true", "yes", None])
def test_booleans_are_json_booleans(value):
    client = _client(UserFactory())
    response = client.post("/api/games/", {"rated": value}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert "rated" in response.json()
    assert client.post("/api/games/", {"rated": False}, format="json").status_code == 201


def test_a_seek_takes_only_json_booleans():
    response = _client(UserFactory()).post("/api/seeks/", {"bot_fill": 0}, format="json")
    assert response.status_code == 400
    assert "bot_fill" in response.json()


@pytest.mark.parametrize("body", [{"record": [1, 2]}, {"record": {}, "position": "x"}])
def test_analysis_input_is_an_object(body):
    response = APIClient().post("/api/analysis/best/", body, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"


def test_an_illegal_move_in_analysis_names_the_cell_and_a_code():
    body = {"position": {"board": ["X"]}}
    response = APIClient().post("/api/analysis/best/", body, format="json")
    assert response.status_code == 400
    assert set(response.json()) >= {"error", "code", "cell"}


def test_tournaments_newest_first_means_most_recently_created():
    later_start = make_tournament(starts_in=timedelta(days=9))
    created_last = make_tournament(starts_in=timedelta(days=1))
    ids = [t["id"] for t in APIClient().get("/api/tournaments/").json()["results"]]
    assert ids.index(created_last.pk) < ids.index(later_start.pk)

"""The filters of ``GET /api/games/`` (player, mode, variant, rated, since, status) and the
bounded ``page_size`` every paginated list takes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.urls import reverse

from core.api.pagination import MAX_PAGE_SIZE
from games.models import Game
from tests.factories import UserFactory
from tests.games.factories import make_game

pytestmark = pytest.mark.django_db

GAMES = reverse("api-games")


def ids(client, query: str) -> set[int]:
    response = client.get(GAMES + query)
    assert response.status_code == 200, response.json()
    return {game["id"] for game in response.json()["results"]}


@pytest.fixture
def games(alice, bob):
    carol, dan = UserFactory(username="carol"), UserFactory(username="dan")
    made = {
        "duel": make_game(users=[alice, bob]),
        "classic_casual": make_game(users=[alice, carol], variant="classic", rated=False),
        "teams": make_game(players=4, mode="teams", users=[bob, carol, dan, alice]),
        "three": make_game(players=3, users=[carol, dan], rated=False),
    }
    Game.objects.filter(pk=made["duel"].pk).update(created_at=datetime(2026, 11, 1, tzinfo=UTC))
    Game.objects.filter(pk=made["three"].pk).update(
        created_at=datetime(2026, 11, 2, 23, 59, tzinfo=UTC)
    )
    return {name: game.pk for name, game in made.items()}


def test_each_filter_narrows_the_list(anon, games):
    everything = set(games.values())
    assert ids(anon, "") == everything
    assert ids(anon, "?player=alice") == everything - {games["three"]}
    assert ids(anon, "?mode=teams") == {games["teams"]}
    assert ids(anon, "?mode=ffa") == everything - {games["teams"]}
    assert ids(anon, "?variant=classic") == {games["classic_casual"]}
    assert ids(anon, "?rated=false") == {games["classic_casual"], games["three"]}
    assert ids(anon, "?rated=true") == {games["duel"], games["teams"]}
    # since: created on that UTC day or later.
    assert ids(anon, "?since=2026-11-02") == everything - {games["duel"]}
    assert ids(anon, "?since=2026-11-01") == everything


def test_filters_combine(anon, games):
    assert ids(anon, "?player=alice&rated=false&variant=classic") == {games["classic_casual"]}
    assert ids(anon, "?player=dan&mode=ffa&since=2026-11-02") == {games["three"]}
    assert ids(anon, "?player=bob&status=open") == set()


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("?mode=solo", "mode"),
        ("?variant=chess", "variant"),
        ("?rated=1", "rated"),
        ("?rated=yes", "rated"),
        ("?since=2026-02-30", "since"),
        ("?since=last+week", "since"),
    ],
)
def test_a_bad_filter_is_a_400_naming_it(anon, query, field):
    response = anon.get(GAMES + query)

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert body["error"].startswith(f"{field}: ")
    assert field in body


def test_page_size_sets_the_length_of_a_page(anon, games):
    first = anon.get(GAMES + "?page_size=3").json()
    second = anon.get(GAMES + "?page_size=3&page=2").json()

    assert first["count"] == 4
    assert len(first["results"]) == 3
    assert len(second["results"]) == 1
    assert "page_size=3" in first["next"]
    assert len(anon.get(GAMES).json()["results"]) == 4  # default 20


@pytest.mark.parametrize("size", ["0", "-1", str(MAX_PAGE_SIZE + 1), "1000000", "ten", ""])
@pytest.mark.parametrize("url", [GAMES, reverse("api-tournaments"), reverse("api-puzzles")])
def test_a_page_size_out_of_bounds_is_a_400(anon, db, url, size):
    response = anon.get(f"{url}?page_size={size}")

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert body["error"].startswith("page_size: ")
    assert "page_size" in body


def test_the_largest_page_size_is_accepted(anon, db):
    for url in (GAMES, reverse("api-ratings-leaderboard"), reverse("api-puzzles")):
        assert anon.get(f"{url}?page_size={MAX_PAGE_SIZE}").status_code == 200


def test_the_schema_states_the_bounds(anon, db):
    schema = anon.get("/api/schema/?format=json").json()
    for path in ("/api/games/", "/api/tournaments/", "/api/puzzles/", "/api/ratings/leaderboard/"):
        parameters = {p["name"]: p for p in schema["paths"][path]["get"]["parameters"]}
        assert parameters["page_size"]["schema"] == {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_PAGE_SIZE,
        }

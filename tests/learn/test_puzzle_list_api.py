"""``GET /api/puzzles/``: the list page's puzzles (same selector, same order) by theme and
difficulty, with the caller's result on each and nothing of the answers."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from learn import services as learn_services
from learn.models import Puzzle
from tests.factories import UserFactory
from tests.games.api.helpers import token_client
from tests.learn.test_puzzles import _small_puzzle

pytestmark = pytest.mark.django_db

PUZZLES = reverse("api-puzzles")


def variant_of(puzzle: Puzzle, *, themes: list[str], difficulty: int, rating: float) -> Puzzle:
    """Another puzzle on the same position, with its own key, themes, difficulty and rating."""
    puzzle.pk = None
    puzzle.key = f"{puzzle.key[:30]}-{difficulty}-{int(rating)}"
    puzzle.themes = Puzzle.themes_text(themes)
    puzzle.difficulty = difficulty
    puzzle.rating = rating
    puzzle.save()
    return puzzle


@pytest.fixture
def puzzles() -> dict[str, Puzzle]:
    first = _small_puzzle()  # double_siesta, difficulty 3
    Puzzle.objects.filter(pk=first.pk).update(rating=1500.0)
    return {
        "double": Puzzle.objects.get(pk=first.pk),
        "crossing_easy": variant_of(
            _small_puzzle(), themes=["crossing"], difficulty=1, rating=1200.0
        ),
        "both_hard": variant_of(
            _small_puzzle(), themes=["crossing", "double_siesta"], difficulty=5, rating=1900.0
        ),
    }


def ids(client: APIClient, query: str = "") -> list[int]:
    response = client.get(PUZZLES + query)
    assert response.status_code == 200, response.json()
    return [p["id"] for p in response.json()["results"]]


def test_every_puzzle_easiest_first_with_its_position_and_no_answer(puzzles):
    response = APIClient().get(PUZZLES)

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 3
    order = [puzzles["crossing_easy"], puzzles["double"], puzzles["both_hard"]]
    assert [p["id"] for p in body["results"]] == [p.pk for p in order]
    first, puzzle = body["results"][0], puzzles["crossing_easy"]
    assert first == {
        "id": puzzle.pk,
        "players": puzzle.players,
        "variant": puzzle.variant,
        "board": puzzle.board,
        "to_move": puzzle.to_move,
        "supply": puzzle.supply,
        "scores": puzzle.scores,
        "difficulty": 1,
        "kind": "most_points",
        "rating": 1200.0,
        "attempts": 0,
        "solved": 0,
        "mine": None,
    }


def test_theme_and_difficulty_filter_as_on_the_list_page(puzzles):
    client = APIClient()
    assert ids(client, "?theme=crossing") == [puzzles["crossing_easy"].pk, puzzles["both_hard"].pk]
    assert ids(client, "?theme=double_siesta&difficulty=5") == [puzzles["both_hard"].pk]
    assert ids(client, "?difficulty=3") == [puzzles["double"].pk]
    assert ids(client, "?theme=last_sun") == []
    page = client.get(reverse("puzzle_list") + "?theme=crossing")
    assert [p.pk for p in page.context["page"]] == ids(client, "?theme=crossing")


def test_the_callers_results_are_marked(puzzles):
    user = UserFactory()
    learn_services.puzzle_attempt_make(
        puzzle_id=puzzles["double"].pk, move=puzzles["double"].solution, user=user
    )
    learn_services.puzzle_attempt_make(
        puzzle_id=puzzles["both_hard"].pk, move="HE1 HF1 HG1", user=user
    )

    results = token_client(user).get(PUZZLES).json()["results"]

    assert {p["id"]: p["mine"] for p in results} == {
        puzzles["crossing_easy"].pk: None,
        puzzles["double"].pk: "solved",
        puzzles["both_hard"].pk: "tried",
    }
    assert all(p["mine"] is None for p in APIClient().get(PUZZLES).json()["results"])


@pytest.mark.parametrize(
    ("query", "field"),
    [("?theme=forks", "theme"), ("?difficulty=6", "difficulty"), ("?difficulty=0", "difficulty")],
)
def test_an_unknown_theme_or_difficulty_is_a_400(db, query, field):
    response = APIClient().get(PUZZLES + query)

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert response.json()["error"].startswith(f"{field}: ")

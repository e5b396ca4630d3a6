"""The two kinds of puzzle (most points now, best turn): the list shows and filters the kind, the
next puzzle can be asked for by kind (page and API), and the home page names both kinds."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.urls import reverse
from rest_framework.test import APIClient

from learn.models import Puzzle
from learn.views import learn_strings
from tests.learn.test_puzzle_list_api import variant_of
from tests.learn.test_puzzles import _small_puzzle

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_kinds() -> dict[str, Puzzle]:
    most = _small_puzzle()
    best = variant_of(_small_puzzle(), themes=["crossing"], difficulty=2, rating=1300.0)
    Puzzle.objects.filter(pk=best.pk).update(kind=Puzzle.Kind.BEST_TURN, solution_value=3.0)
    return {"most": most, "best": Puzzle.objects.get(pk=best.pk)}


def test_the_list_shows_each_kind_and_filters_by_it(client, two_kinds):
    page = client.get(reverse("puzzle_list"))
    html = page.content.decode()
    assert '<select name="kind">' in html
    assert '<th scope="col">Kind</th>' in html
    assert "Best turn</td>" in html
    assert "Most points now</td>" in html
    page = client.get(reverse("puzzle_list") + "?kind=best_turn")
    assert [p.pk for p in page.context["page"]] == [two_kinds["best"].pk]
    assert '<option value="best_turn" selected>' in page.content.decode()
    # the filter goes on to each puzzle's link, so that "Next puzzle" keeps to the kind
    assert f'href="/puzzles/{two_kinds["best"].pk}/?kind=best_turn"' in page.content.decode()
    page = client.get(reverse("puzzle_list") + "?kind=nonsense")
    assert page.context["page"].paginator.count == 2


def test_the_next_puzzle_keeps_to_the_kind_asked_for(client, two_kinds):
    for _ in range(3):
        client.cookies.clear()
        answer = client.get(reverse("puzzle_next") + "?kind=best_turn")
        assert answer.status_code == 302
        assert answer["Location"] == f"/puzzles/{two_kinds['best'].pk}/?kind=best_turn"
        answer = client.get(reverse("puzzle_next") + "?kind=most_points")
        assert answer["Location"] == f"/puzzles/{two_kinds['most'].pk}/?kind=most_points"
    page = client.get(answer["Location"])
    assert page.context["state"]["next_url"] == "/puzzles/next/?kind=most_points"


def test_the_api_filters_by_kind_and_names_it(two_kinds):
    client = APIClient()
    rows = client.get(reverse("api-puzzles") + "?kind=best_turn").json()["results"]
    assert [(p["id"], p["kind"]) for p in rows] == [(two_kinds["best"].pk, "best_turn")]
    rows = client.get(reverse("api-puzzles")).json()["results"]
    assert {p["kind"] for p in rows} == {"best_turn", "most_points"}
    answer = client.get(reverse("api-puzzles") + "?kind=nonsense")
    assert answer.status_code == 400
    assert "kind" in str(answer.json())


def test_the_home_page_names_both_kinds_and_links_each(client, two_kinds):
    html = client.get(reverse("puzzles")).content.decode()
    assert "“most points now”" in html
    assert "“best turn”" in html
    assert (
        'href="/puzzles/next/?kind=best_turn">Best turn</a> <span class="count">(1)</span>' in html
    )
    assert 'href="/puzzles/next/?kind=most_points">Most points now</a>' in html


@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_a_best_turn_result_has_its_own_translated_words(language):
    from django.utils import translation

    with translation.override(language):
        words = learn_strings()["learn"]
    assert "%(ply)s" in words["source_bots"]
    assert "%(ply)s" in words["source_site"]
    assert "%(best)s" in words["best_turn_gave_up"]["other"]
    assert "%(points)s" in words["best_turn_found"]["other"]
    if language != "en":
        with translation.override("en"):
            english = learn_strings()["learn"]
        for key in ("source_bots", "source_site", "best_turn_solved"):
            assert words[key] != english[key], (language, key)
        assert words["best_turn_gave_up"]["other"] != english["best_turn_gave_up"]["other"]

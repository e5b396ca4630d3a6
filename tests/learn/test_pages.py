"""The learn pages in every language, signed in and out; the replay links to the board."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.utils import translation

from learn import board
from learn.models import Puzzle
from learn.views import learn_strings
from tests.factories import UserFactory
from tests.learn.test_puzzles import _finished_game, _small_puzzle

pytestmark = pytest.mark.django_db

TITLES = {"analysis": "Analysis board", "puzzles": "Puzzles"}


@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_pages_in_every_language(client, language):
    puzzle = _small_puzzle()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    with translation.override(language):
        expected = {key: translation.gettext(text) for key, text in TITLES.items()}
    for url, title in [
        ("/analysis/", expected["analysis"]),
        ("/puzzles/", expected["puzzles"]),
        (f"/puzzles/{puzzle.pk}/", None),
        ("/", None),
    ]:
        page = client.get(url)
        assert page.status_code == 200, url
        assert f'lang="{language}"' in page.content.decode()
        if title:
            assert title in page.content.decode()
        assert 'href="/puzzles/"' in page.content.decode()  # the header link
    if language != "en":
        assert expected["puzzles"] != "Puzzles"


def test_the_home_page_shows_the_daily_puzzle(client):
    puzzle = _small_puzzle()
    assert f"/puzzles/{puzzle.pk}/" in client.get("/").content.decode()


def test_next_puzzle_redirects_and_history_needs_a_login(client):
    puzzle = _small_puzzle()
    assert client.get("/puzzles/next/").url == f"/puzzles/{puzzle.pk}/"
    assert client.get("/puzzles/history/").status_code == 302
    user = UserFactory()
    client.force_login(user)
    client.post(
        f"/api/puzzles/{puzzle.pk}/attempts/", {"move": puzzle.solution}, "application/json"
    )
    history = client.get("/puzzles/history/").content.decode()
    assert puzzle.solution in history
    # Every puzzle tried: nothing left for this player.
    assert "No puzzle is left" in client.get("/puzzles/next/").content.decode()
    assert client.get("/puzzles/999999/").status_code == 404


def test_analysis_board_opens_a_finished_game_at_a_turn_and_a_shared_link(client):
    game = _finished_game()
    replay = client.get(f"/games/{game.pk}/replay/").content.decode()
    assert f"/analysis/?game={game.pk}&amp;ply=" in replay
    page = client.get(f"/analysis/?game={game.pk}&ply=3")
    initial = page.context["initial"]
    assert initial["ply"] == 3
    assert initial["record"]["moves"] == [t.move for t in game.turns.order_by("ply")]
    record = {"players": 3, "variant": "classic", "moves": ["SA1 RB1 HC1"]}
    shared = client.get(f"/analysis/?r={board.encode_record(record)}&ply=1")
    assert shared.context["initial"]["record"] == record
    broken = client.get("/analysis/?r=not-a-record")
    assert broken.context["initial"]["error"]
    assert Puzzle.objects.count() == 0


FOUND = ("You found %(points)s point of %(best)s.", "You found %(points)s points of %(best)s.")
TROVATO = ("Hai trovato %(points)s punto su %(best)s.", "Hai trovato %(points)s punti su %(best)s.")


@pytest.mark.parametrize(
    ("language", "key", "forms"),
    [
        ("en", "found", FOUND),
        ("it", "found", TROVATO),
        ("es", "points", ("%(points)s punto", "%(points)s puntos")),
    ],
)
def test_counted_points_reach_the_scripts_in_both_forms(language, key, forms):
    """Both plural forms go to the scripts, which pick one for the count (Intl.PluralRules)."""
    with translation.override(language):
        words = learn_strings()["learn"]
    assert words[key] == {"one": forms[0], "other": forms[1]}

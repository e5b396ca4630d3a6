"""The learn pages at desktop and phone widths, in English and Italian: nothing wider than the
screen, the analysis board's controls on the first screen, the post-game analysis a list."""

from __future__ import annotations

import pytest

from games.analysis import game_analyse
from learn.models import Puzzle
from tests.browser.conftest import DESKTOP, PHONE, off_the_loop
from tests.browser.test_pages import finished_game
from tests.learn.test_puzzles import _small_puzzle


def _analysed_game(player):
    game = finished_game(player)
    off_the_loop(lambda: game_analyse(game_id=game.pk))
    return game


@pytest.mark.parametrize("language", ["en", "it"])
@pytest.mark.parametrize(("width", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_the_learn_pages_fit_the_screen(pages, player, screenshot, language, width, viewport):
    game = _analysed_game(player)
    puzzle = off_the_loop(_small_puzzle)
    off_the_loop(lambda: Puzzle.objects.filter(pk=puzzle.pk).update(themes=",crossing,"))
    page = pages.open(player, viewport=viewport, language=language)
    for name, url in [
        ("analysis", f"/analysis/?game={game.pk}&ply=2"),
        ("puzzle", f"/puzzles/{puzzle.pk}/"),
        ("puzzle-list", "/puzzles/list/"),
        ("puzzle-history", "/puzzles/history/"),
        ("puzzles", "/puzzles/"),
        ("replay-analysis", f"/games/{game.pk}/replay/"),
    ]:
        response = page.goto(url)
        assert response is not None
        assert response.ok, url
        page.wait_for_load_state("load")
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"{url} is {overflow}px wider than the {width} screen"
        if name == "analysis":
            page.wait_for_selector("#line-list li")
            bottom = page.evaluate(
                "document.querySelector('.board-area .replay-controls').getBoundingClientRect()"
                ".bottom"
            )
            assert bottom <= viewport["height"], "the line's controls are below the first screen"
        if name == "replay-analysis":
            page.wait_for_selector("#analysis-table tbody tr")
            box = page.evaluate(
                """() => {
                  const table = document.getElementById('analysis-table');
                  return [table.scrollWidth, table.parentElement.clientWidth];
                }"""
            )
            assert box[0] <= box[1] + 1, f"the analysis table is {box[0]}px in {box[1]}px"
            page.locator("#analysis-table").scroll_into_view_if_needed()
        screenshot(page, f"learn-{name}-{width}-{language}")

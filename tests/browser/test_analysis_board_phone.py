"""The analysis board on a phone: the board, the line's steps and the turn's main button (Play)
on the first screen, in English and German."""

from __future__ import annotations

import pytest

from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.test_learn_pages import _analysed_game

PARTS = {
    "the line's steps": ".board-area .replay-controls",
    "Play": "#play-button",
}


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize(("width", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_the_analysis_boards_main_button_is_on_the_first_screen(
    pages, player, screenshot, language, width, viewport
):
    game = _analysed_game(player)
    page = pages.open(player, viewport=viewport, language=language)
    for name, url in [("empty", "/analysis/"), ("game", f"/analysis/?game={game.pk}&ply=2")]:
        page.goto(url)
        page.wait_for_load_state("load")
        if name == "game":
            page.wait_for_selector("#line-list li")
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"{url} is {overflow}px wider than the {width} screen"
        for part, selector in PARTS.items():
            bottom = page.evaluate(
                f"document.querySelector('{selector}').getBoundingClientRect().bottom"
            )
            assert bottom <= viewport["height"], f"{part} ends at y={bottom} on {url} ({width})"
        screenshot(page, f"analysis-board-{name}-{width}-{language}")

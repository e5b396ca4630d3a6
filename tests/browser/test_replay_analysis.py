"""The post-game analysis on the replay page, on a phone and a desktop: the analysis of the turn
on the board sits beside the board, a mistake's reason is a tap (or Enter) away, a negative lead
reads "behind by", the biggest misses count their points in the language's plural, with no stray
comma."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.analysis import game_analyse
from games.models import Analysis
from tests.browser.conftest import DESKTOP, PHONE, off_the_loop
from tests.browser.test_pages import finished_game

WORDS = {
    "en": {
        "turn": "Turn 2: bob scored",
        "behind": "behind by 12",
        "reason": "It scores fewer points now (2 less).",
        "alice": "turn 1: 4 points missed, turn 3: 1 point missed",
        "bob": "turn 2: 1 point missed",
    },
    "de": {
        "turn": "Zug 2: bob erzielte",
        "behind": "12 zurück",
        "reason": "Er bringt jetzt weniger Punkte (2 weniger).",
        "alice": "Zug 1: 4 Punkte verpasst, Zug 3: 1 Punkt verpasst",
        "bob": "Zug 2: 1 Punkt verpasst",
    },
}


def _game_with_a_mistake(player):
    """A finished, analysed game whose analysis is edited to hold what the page must show: a
    mistake at turn 2 (behind by 12, one point missed) and misses of 4 and 1 points for alice."""
    game = finished_game(player)

    def edit() -> None:
        game_analyse(game_id=game.pk)
        analysis = Analysis.objects.get(game=game)
        data = analysis.data
        turns = {turn["ply"]: turn for turn in data["turns"]}
        for ply, missed in [(1, 4), (2, 1), (3, 1)]:
            turns[ply]["best_points"] = turns[ply]["played_points"] + missed
            turns[ply]["missed"] = missed
        turns[2]["expert"] = {
            "lead": -12,
            "best_move": "HA1 HA2 HA3",
            "best_lead": -3.5,
            "loss": 8.5,
            "reason": "fewer_points",
            "reason_points": 2,
            "mistake": True,
        }
        data["players"][0]["biggest_misses"] = [turns[1], turns[3]]
        data["players"][1]["biggest_misses"] = [turns[2]]
        analysis.data = data
        analysis.save(update_fields=["data"])

    off_the_loop(edit)
    return game


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize(("width", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_the_replay_analysis_explains_the_turn_on_the_board(
    pages, player, screenshot, language, width, viewport
):
    game = _game_with_a_mistake(player)
    words = WORDS[language]
    page = pages.open(player, viewport=viewport, language=language)
    page.goto(f"/games/{game.pk}/replay/")
    page.wait_for_selector("#analysis-table tbody tr")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the replay is {overflow}px wider than the {width} screen"

    # The mistake's mark is a button: a tap (a click) or Enter shows that turn and its reason.
    mark = page.locator('#turn-list tr[data-ply="2"] button.turn-mark')
    assert "✗" in mark.inner_text()
    if width == "phone":
        mark.click()
    else:
        mark.focus()
        page.keyboard.press("Enter")
    text = page.locator("#analysis-turn-text")
    expect(text).to_be_in_viewport()  # brought into view above the turn list
    page.wait_for_function(
        "() => document.getElementById('replay-position').textContent.includes('2')"
    )
    shown = text.inner_text()
    assert words["turn"] in shown
    assert words["behind"] in shown
    assert words["reason"] in shown
    assert "-12" not in shown
    assert "−12" not in shown

    # The explanation sits beside the board: right of it on a desktop, just under it on a phone.
    board = page.locator("#replay-board").bounding_box()
    box = page.locator("#analysis-turn").bounding_box()
    assert board is not None
    assert box is not None
    if width == "desktop":
        assert box["x"] >= board["x"] + board["width"] - 1
        assert box["y"] < viewport["height"], "the turn's analysis is below the first screen"
    else:
        assert box["y"] - (board["y"] + board["height"]) < 300, "the analysis is far below"
    page.locator("#analysis-turn").scroll_into_view_if_needed()
    screenshot(page, f"replay-analysis-turn-{width}-{language}")

    # The best turn is drawn on the board before the turn shown.
    page.locator("#analysis-best-button").click()
    assert page.locator("#analysis-best-button").get_attribute("aria-pressed") == "true"

    # The biggest misses: counted in the language's plural, the commas between the turns.
    cells = page.locator("#analysis-table tbody tr td:last-child .miss-list")
    assert cells.nth(0).inner_text().strip() == words["alice"]
    assert cells.nth(1).inner_text().strip() == words["bob"]
    page.locator("#analysis-table").scroll_into_view_if_needed()
    screenshot(page, f"replay-analysis-table-{width}-{language}")

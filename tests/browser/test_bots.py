"""The leaderboard's "Bots" box in a real browser, desktop and phone: each level's performance
apart from the players, and "Challenge a bot", which goes straight into the game."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.models import Game
from ratings.selectors import BOT_PERFORMANCE_MIN_GAMES
from tests.browser.conftest import DESKTOP, PHONE, off_the_loop
from tests.ratings.factories import RatingFactory, bot_game


def _history(player):
    RatingFactory(user=player, rating=1640.0)
    for _ in range(BOT_PERFORMANCE_MIN_GAMES):
        bot_game("expert", [(1600.0, 1.0), (1700.0, 0.5)])


@pytest.mark.parametrize(("width", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_the_bots_box_and_a_challenge_to_the_expert(pages, player, screenshot, width, viewport):
    off_the_loop(_history, player)
    page = pages.open(player, viewport=viewport)
    page.goto("/leaderboard/")
    box = page.locator("section.bots-box")
    expect(box.get_by_role("heading", name="Bots")).to_be_visible()
    expert = box.locator('tr[data-level="expert"] td')
    expect(expert.nth(0)).to_have_text("Bot (expert)")
    expect(expert.nth(1)).to_have_text(re.compile(r"^\d{4}$"))
    expect(expert.nth(2)).to_have_text(str(BOT_PERFORMANCE_MIN_GAMES))
    expect(box.locator('tr[data-level="easy"] td').nth(1)).to_have_text("–")
    # The players' table does not rank the bots.
    expect(page.locator("table.leaderboard")).not_to_contain_text("Bot (")
    box.locator("table").scroll_into_view_if_needed()
    screenshot(page, f"leaderboard-bots-table-{width}")
    table = box.locator("table").bounding_box()
    assert table is not None
    assert table["x"] + table["width"] <= viewport["width"], "the bots' table fits the screen"

    box.get_by_text("Challenge a bot").click()
    expect(box.get_by_label("Bot", exact=True)).to_have_value("expert")
    box.get_by_label("Variant").select_option("classic")
    box.get_by_role("button", name="Start the game").scroll_into_view_if_needed()
    screenshot(page, f"leaderboard-bots-{width}")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the leaderboard is {overflow}px wider than the {width} screen"

    box.get_by_role("button", name="Start the game").click()
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    game = Game.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    assert (game.variant, game.rated, game.status) == ("classic", False, Game.Status.ACTIVE)
    expect(page.get_by_text("Bot (expert)").first).to_be_visible()
    screenshot(page, f"bot-challenge-game-{width}")

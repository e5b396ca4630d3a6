"""The account page in a real browser, at desktop and phone widths: a token for a bot is
created, its secret shown once, and revoked; nothing is wider than the screen."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE


@pytest.mark.parametrize(("width", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_a_token_is_created_shown_once_and_revoked(pages, player, screenshot, width, viewport):
    page = pages.open(player, viewport=viewport)
    page.goto("/accounts/")
    page.get_by_role("textbox", name="Name:").fill("ladder bot")
    page.get_by_label("tournaments: join and leave tournaments").check()
    page.get_by_role("combobox", name="Expires:").select_option("never")
    page.get_by_role("button", name="Create token").click()

    secret = page.get_by_label("Your new token", exact=True)
    expect(secret).to_have_value(re.compile(r"^siesta_pat_[\w-]{43}$"))
    expect(page.get_by_role("cell", name="read, play, tournaments")).to_be_visible()
    screenshot(page, f"account-{width}")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the account page is {overflow}px wider than the {width} screen"

    page.reload()
    expect(page.get_by_label("Your new token", exact=True)).to_have_count(0)
    page.get_by_role("button", name="Revoke ladder bot").click()
    expect(page.get_by_text("The token is revoked: it no longer works.")).to_be_visible()
    expect(page.get_by_text("You have no tokens yet.")).to_be_visible()

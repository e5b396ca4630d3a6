"""The tournament form in a real browser at desktop and phone widths: it fits the screen, a
refused combination is shown on the form, the rounds show only for a Swiss tournament and
the duration only for an arena, and an invitation's page shows its link."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE, off_the_loop
from tests.tournaments.creation import veteran
from tournaments.models import Tournament


@pytest.mark.parametrize(("width", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_a_player_creates_an_invitation_with_the_form(pages, screenshot, width, viewport):
    creator = off_the_loop(veteran)
    page = pages.open(creator, viewport=viewport)
    page.goto("/tournaments/")
    screenshot(page, f"tournament-list-{width}")
    page.locator("#tournament-create a").click()
    expect(page.locator("#tournament-form")).to_be_visible()
    expect(page.locator("#id_password")).to_be_hidden()  # public: no password to ask
    screenshot(page, f"tournament-form-{width}")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the form is {overflow}px wider than the {width} screen"
    expect(page.locator("#id_rounds")).to_be_visible()  # Swiss: rounds, no duration
    expect(page.locator("#id_duration_minutes")).to_be_hidden()
    page.select_option("#id_format", "arena")
    expect(page.locator("#id_rounds")).to_be_hidden()  # an arena: a duration, no rounds
    expect(page.locator("#id_duration_minutes")).to_be_visible()
    page.fill("#id_name", "Friends' evening")
    page.select_option("#id_format", "round_robin")
    expect(page.locator("#id_rounds")).to_be_hidden()  # a round robin has no rounds to choose
    expect(page.locator("#id_duration_minutes")).to_be_hidden()
    page.select_option("#id_table_size", "3")
    page.locator("#tournament-submit").click()
    expect(page.locator(".form-errors")).to_contain_text("A round robin is played at tables of 2.")
    page.locator(".form-errors").scroll_into_view_if_needed()
    screenshot(page, f"tournament-form-error-{width}")
    page.select_option("#id_table_size", "2")
    page.locator("#id_visibility_1").check()
    expect(page.locator("#id_password")).to_be_visible()
    page.fill("#id_password", "s3cret")
    page.locator("#tournament-submit").click()
    expect(page.locator("#invite-link input")).to_have_value(
        f"{pages.base_url}/tournaments/invite/"
        + off_the_loop(lambda: Tournament.objects.get().invite_token)
        + "/"
    )
    expect(page.locator("h1")).to_contain_text("Friends' evening")
    expect(page.locator("#tournament-manage")).to_be_visible()
    screenshot(page, f"tournament-invite-{width}")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the page is {overflow}px wider than the {width} screen"

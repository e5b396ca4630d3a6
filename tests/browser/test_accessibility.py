"""axe-core on every main page, at desktop and phone widths, signed in and out: no serious or
critical violation of the WCAG 2.x A/AA rules (colour contrast, names, labels, landmarks...)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from games.models import Game
from tests.browser.axe import axe_run, axe_violations
from tests.browser.conftest import DESKTOP, PHONE, off_the_loop
from tests.browser.test_pages import _finished_game
from tests.games.factories import make_game
from tests.learn.test_puzzles import _small_puzzle
from tests.tournaments.factories import make_tournament


def _world(player: Any) -> dict[str, int]:
    # Rows in every list: a finished rated game against bob (leaderboard, profile, lobby).
    _finished_game(player, 4)
    bob = User.objects.get(username="bob")
    # A turn clock that does not run low while the pages are checked (a busy machine is slow).
    game = make_game(users=[player, bob], turn_seconds=Game.MAX_TURN_SECONDS)
    tournament = make_tournament(players=[bob], name="Siesta Cup")
    return {"game": game.pk, "tournament": tournament.pk, "puzzle": _small_puzzle().pk}


def main_pages(player: Any, ids: dict[str, int], signed_in: bool) -> list[tuple[str, str]]:
    pages = [
        ("home", "/"),
        ("lobby", "/play/"),
        ("tournaments", "/tournaments/"),
        ("tournament", f"/tournaments/{ids['tournament']}/"),
        ("leaderboard", "/leaderboard/"),
        ("profile", f"/users/{player.username}/"),
        ("puzzles", "/puzzles/"),
        ("puzzle-list", "/puzzles/list/"),
        ("puzzle", f"/puzzles/{ids['puzzle']}/"),
        ("analysis", "/analysis/"),
        ("game", f"/games/{ids['game']}/"),
        ("without-sight", "/rules/without-sight/"),
    ]
    if signed_in:
        pages.append(("settings", "/accounts/"))
        pages.append(("notification-settings", "/notifications/preferences/"))
    else:
        pages.append(("sign-in", "/accounts/login/"))
        pages.append(("sign-up", "/accounts/register/"))
    return pages


def _settle(page: Any, name: str) -> None:
    """Wait for what the page's scripts draw (the board, the lists) before axe looks."""
    page.wait_for_load_state("load")
    if name in ("game", "analysis", "puzzle"):
        expect(page.get_by_role("gridcell", name=re.compile(r"^F6: ")).first).to_be_attached()


@pytest.mark.parametrize("signed_in", [True, False], ids=["signed-in", "signed-out"])
@pytest.mark.parametrize(("width", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_no_serious_axe_violation_on_the_main_pages(
    pages, player, screenshot, width, viewport, signed_in
):
    ids = off_the_loop(_world, player)
    page = pages.open(player if signed_in else None, viewport=viewport)
    failures = []
    for name, url in main_pages(player, ids, signed_in):
        response = page.goto(url)
        assert response is not None, url
        assert response.ok, url
        _settle(page, name)
        failures += [f"{name} ({url}) {line}" for line in axe_violations(page)]
    assert not failures, f"{len(failures)} serious axe violations:\n" + "\n".join(failures)


NARROW = {"width": 320, "height": 640}


def test_the_main_pages_fit_a_320_pixel_screen(pages, player, screenshot):
    """WCAG's reflow: usable at 320 CSS px, nothing wider than the screen."""
    ids = off_the_loop(_world, player)
    page = pages.open(player, viewport=NARROW)
    too_wide = []
    for name, url in main_pages(player, ids, signed_in=True):
        page.goto(url)
        _settle(page, name)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        if overflow > 1:
            too_wide.append(f"{name} ({url}) by {overflow}px")
        if name == "game":
            screenshot(page, "game-320")
    assert not too_wide, "wider than a 320 px screen: " + ", ".join(too_wide)


def test_more_contrast_and_less_motion_are_honoured(pages, player):
    ids = off_the_loop(_world, player)
    page = pages.open(player)
    page.emulate_media(contrast="more", reduced_motion="reduce")
    page.goto(f"/games/{ids['game']}/")
    _settle(page, "game")
    assert axe_violations(page) == []
    link = page.locator("main a").first
    expect(link).to_have_css("text-decoration-line", "underline")
    expect(page.locator(".cell").first).to_have_css(
        "animation-duration", re.compile(r"^1e-05s$|^0")
    )


def test_a_title_shows_on_focus_and_on_tap_too(pages, player):
    off_the_loop(_world, player)
    page = pages.open(player)
    page.goto("/leaderboard/")
    header = page.locator("table.leaderboard th[title]").first
    words = header.get_attribute("title")
    tip = page.get_by_role("tooltip")
    for _ in range(80):  # by the Tab key alone
        if header.evaluate("(element) => element === document.activeElement"):
            break
        page.keyboard.press("Tab")
    expect(tip).to_have_text(words)
    page.keyboard.press("Escape")
    expect(tip).to_have_count(0)
    header.click()
    expect(tip).to_have_text(words)
    assert axe_violations(page) == []


LANDMARK_RULES = [
    "page-has-heading-one",
    "landmark-one-main",
    "landmark-no-duplicate-banner",
    "landmark-no-duplicate-contentinfo",
    "landmark-unique",
    "region",
    "heading-order",
]


def test_every_main_page_has_one_h1_and_its_landmarks(pages, player):
    """What axe rates below serious, held here too: one h1, one main, the header's navigation."""
    ids = off_the_loop(_world, player)
    page = pages.open(player)
    found = []
    for name, url in main_pages(player, ids, signed_in=True):
        page.goto(url)
        _settle(page, name)
        shape = page.evaluate(
            """() => ({
              h1: document.querySelectorAll('h1').length,
              main: document.querySelectorAll('main').length,
              header: document.querySelectorAll('body > header, header.site-header').length,
              nav: document.querySelectorAll('header nav[aria-label]').length,
              footer: document.querySelectorAll('footer').length,
            })"""
        )
        if shape != {"h1": 1, "main": 1, "header": 1, "nav": 1, "footer": 1}:
            found.append(f"{name} ({url}): {shape}")
        found += [
            f"{name} ({url}) {v['id']}: {v['help']} {[n['target'] for n in v['nodes']]}"
            for v in axe_run(page)
            if v["id"] in LANDMARK_RULES
        ]
    assert not found, "\n".join(found)


def test_the_confirmation_dialog_keeps_and_returns_the_focus(pages, player):
    ids = off_the_loop(_world, player)
    page = pages.open(player)
    page.goto(f"/games/{ids['game']}/")
    _settle(page, "game")
    resign = page.get_by_role("button", name="Resign")
    resign.focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_have_accessible_name("Resign this game? You cannot come back to it.")
    where = []
    for key in ["Tab", "Tab", "Tab", "Shift+Tab", "Shift+Tab"]:  # the Tab key stays in it
        where.append(page.evaluate("document.activeElement.id || document.activeElement.tagName"))
        page.keyboard.press(key)
    where.append(page.evaluate("document.activeElement.id"))
    # Cancel, OK, wrap to Cancel, OK; Shift+Tab back to Cancel, wrap to OK.
    assert where == ["confirm-cancel", "confirm-ok"] * 3, where
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(resign).to_be_focused()  # back where it was
    page.get_by_role("button", name="Hint").focus()
    page.keyboard.press("Enter")
    expect(dialog).to_be_visible()
    page.get_by_role("button", name="Cancel").click()
    expect(page.get_by_role("button", name="Hint")).to_be_focused()
    assert off_the_loop(lambda: Game.objects.get(pk=ids["game"]).status) == Game.Status.ACTIVE

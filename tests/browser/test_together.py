"""Playing together in a real browser: two people quick-pair from the lobby, land in the same game,
play a turn each, chat (markup shown as text, quick messages, spectators apart), and rematch.

Debian's Chromium driven by Playwright (never downloaded) against Daphne serving the site from a
thread of the test process (tests/browser/conftest.py), so the server shares the test database and
channel layer. Screenshots (1366x900 and 375x800) go to
``screenshots/social/`` (git-ignored) to look at.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.test import Client

from games import services as game_services
from games.engine.search import best_turn
from games.models import Game
from games.selectors import game_get, position_of
from tests.browser.conftest import off_the_loop
from tests.factories import UserFactory

DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 375, "height": 800}
SHOTS = Path(django_settings.BASE_DIR) / "screenshots" / "social"
TIMEOUT_MS = 15_000


def _slow_machine_timeouts() -> None:
    """Two shared cores: give Playwright's expectations as long as its actions."""
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)


# The live server (Daphne in a thread: one Twisted reactor per process, shared by every browser
# test), the browser and the skip without Chromium come from tests/browser/conftest.py.
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class Pages:
    """Browser contexts signed in as given people; JavaScript errors fail the test."""

    def __init__(self, browser: Any, base_url: str) -> None:
        self.browser, self.base_url = browser, base_url
        self.contexts: list[Any] = []
        self.errors: list[str] = []

    def open(self, user: Any = None, viewport: dict[str, int] = DESKTOP) -> Any:
        context = self.browser.new_context(
            base_url=self.base_url, viewport=viewport, extra_http_headers={"Accept-Language": "en"}
        )
        context.set_default_timeout(TIMEOUT_MS)
        if user is not None:
            client = Client()
            client.force_login(user)
            cookie = client.cookies[django_settings.SESSION_COOKIE_NAME]
            context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": self.base_url}])
        page = context.new_page()
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))
        page.on(
            "console",
            lambda message: (
                self.errors.append(f"{page.url}: {message.text}")
                # The browser's own favicon.ico request is not the page's doing.
                if message.type == "error"
                and not message.location.get("url", "").endswith("/favicon.ico")
                else None
            ),
        )
        self.contexts.append(context)
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def pages(browser: Any, live_server_url: str, settings: Any) -> Iterator[Pages]:
    from playwright.sync_api import expect

    settings.ALLOWED_HOSTS = ["*"]
    _slow_machine_timeouts()
    opened = Pages(browser, live_server_url)
    yield opened
    opened.close()
    expect.set_options(timeout=5_000)  # Playwright's default, for the other browser tests
    assert not opened.errors, "JavaScript errors:\n" + "\n".join(opened.errors)


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def play_best_turn_by_clicking(page: Any, opponent: Any, game_id: int) -> None:
    """Click the engine's best turn on ``page``; done when the opponent's board shows it."""
    from playwright.sync_api import expect

    turn = best_turn(position_of(game_get(game_id))).turn
    assert turn is not None
    names = {"S": "Sun", "R": "Roof", "H": "Shadow"}
    placements = str(turn).split()
    confirm = page.get_by_role("button", name="Confirm turn")
    for attempt in range(3):
        for placement in placements:
            page.get_by_role("button", name=re.compile("^" + names[placement[0]])).click()
            page.get_by_role("gridcell", name=re.compile(rf"^{placement[1:]}: ")).click()
        try:
            expect(confirm).to_be_enabled(timeout=5_000)
            break
        except AssertionError:
            # The state the page's socket gets on connect may redraw the board over the first
            # clicks: clear and place again.
            if attempt == 2:
                raise
            page.get_by_role("button", name="Clear").click()
    confirm.click()
    last = placements[-1][1:]
    expect(
        opponent.get_by_role("gridcell", name=re.compile(rf"^{last}: (sun|shadow|roof)"))
    ).to_be_visible()


def test_two_people_quick_pair_play_chat_and_rematch(pages):
    from playwright.sync_api import expect

    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    ana_page, bo_page = pages.open(ana), pages.open(bo)

    # Quick pairing: ana waits, bo arrives, both pages jump into the new game.
    ana_page.goto("/play/")
    two_minutes = '#quick-pair .quick-button[data-players="2"][data-turn="120"]'
    ana_page.locator(two_minutes).click()
    expect(ana_page.locator("#seek-status")).to_be_visible()
    expect(ana_page.locator("#seek-text")).to_contain_text("Looking for opponents")
    shot(ana_page, "lobby-waiting-desktop")
    phone = pages.open(UserFactory(username="cy"), viewport=PHONE)
    phone.goto("/play/")
    shot(phone, "lobby-phone")

    bo_page.goto("/play/")
    bo_page.locator(two_minutes).click()
    ana_page.wait_for_url(re.compile(r"/games/\d+/$"))
    bo_page.wait_for_url(re.compile(r"/games/\d+/$"))
    assert ana_page.url == bo_page.url
    game_id = int(ana_page.url.rstrip("/").rsplit("/", 1)[1])
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.ACTIVE
    assert game.turn_seconds == 120
    by_seat = {s.seat: s.user.username for s in game.seats.all()}
    assert sorted(by_seat.values()) == ["ana", "bo"]
    page_of = {"ana": ana_page, "bo": bo_page}
    first, second = page_of[by_seat[1]], page_of[by_seat[2]]

    # A turn each, by clicking.
    play_best_turn_by_clicking(first, second, game_id)
    play_best_turn_by_clicking(second, first, game_id)

    # Chat: markup shows as text; quick messages; spectators don't read the players.
    watcher = pages.open()
    watcher.goto(f"/games/{game_id}/")
    expect(watcher.locator("#chat-heading")).to_have_text("Spectators' chat")
    expect(ana_page.locator("#chat-heading")).to_have_text("Players' chat")
    ana_page.locator("#chat-input").fill("<b>hello</b> bo")
    ana_page.locator("#chat-input").press("Enter")
    expect(bo_page.locator("#chat-lines")).to_contain_text("<b>hello</b> bo")
    assert bo_page.locator("#chat-lines b").count() == 0
    bo_page.get_by_role("button", name="Good game").click()
    expect(ana_page.locator("#chat-lines")).to_contain_text("Good game")
    expect(watcher.locator("#chat-lines")).to_contain_text("No message yet.")
    shot(ana_page, "game-chat-desktop")
    phone_game = pages.open(ana, viewport=PHONE)
    phone_game.goto(f"/games/{game_id}/")
    expect(phone_game.locator("#chat-lines")).to_contain_text("Good game")
    phone_game.locator("#chat").scroll_into_view_if_needed()
    shot(phone_game, "game-chat-phone")

    # The game ends; the result offers a rematch; both must ask.
    off_the_loop(lambda: game_services.game_resign(game_id=game_id, user=ana))
    for page in (ana_page, bo_page):
        # The live page shows the result by itself (it reloads); else open it again.
        try:
            expect(page.locator("#rematch-button")).to_be_visible(timeout=6000)
        except AssertionError:
            page.goto(f"/games/{game_id}/")
            expect(page.locator("#rematch-button")).to_be_visible()
        # The chat's socket is open once the (merged) lines are in.
        expect(page.locator("#chat-lines")).to_contain_text("<b>hello</b> bo")
    ana_page.locator("#rematch-button").click()
    expect(bo_page.locator("#rematch-status")).to_contain_text("ana would like a rematch")
    expect(ana_page.locator("#rematch-status")).to_contain_text("Waiting for bo")
    shot(bo_page, "rematch-offer-desktop")
    phone_result = pages.open(bo, viewport=PHONE)
    phone_result.goto(f"/games/{game_id}/")
    shot(phone_result, "result-phone")

    bo_page.locator("#rematch-button").click()
    # Both pages jump into the new game.
    another_game = re.compile(rf"/games/(?!{game_id}/)\d+/$")
    ana_page.wait_for_url(another_game)
    bo_page.wait_for_url(another_game)
    new_id = int(ana_page.url.rstrip("/").rsplit("/", 1)[1])
    assert new_id != game_id
    assert bo_page.url == ana_page.url
    new = Game.objects.get(pk=new_id)
    assert new.status == Game.Status.ACTIVE
    rotated = {s.seat: s.user.username for s in new.seats.all()}
    assert rotated == {1: by_seat[2], 2: by_seat[1]}


def test_a_challenge_from_a_profile_reaches_the_other_person_live(pages):
    from playwright.sync_api import expect

    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    ana_page, bo_page = pages.open(ana), pages.open(bo, viewport=PHONE)
    bo_page.goto("/")
    expect(bo_page.locator("#online-count")).to_be_visible()
    ana_page.goto("/users/bo/")
    # bo has a page open: a dot on his name.
    expect(ana_page.locator(".profile-presence")).to_be_visible()
    ana_page.locator("#challenge-box summary").click()
    ana_page.locator("#challenge-form select[name=turn_seconds]").select_option("86400")
    shot(ana_page, "profile-challenge-desktop")
    ana_page.get_by_role("button", name="Challenge bo").click()
    expect(ana_page.locator("#toasts")).to_contain_text("Challenge sent to bo.")

    toast = bo_page.locator(".toast", has_text="ana challenges you")
    expect(toast).to_be_visible()
    expect(bo_page.locator("#notice-count")).to_have_text("1")
    shot(bo_page, "challenge-toast-phone")
    toast.get_by_role("button", name="Accept").click()
    bo_page.wait_for_url(re.compile(r"/games/\d+/$"))
    ana_page.wait_for_url(re.compile(r"/games/\d+/$"))
    assert ana_page.url == bo_page.url
    game = Game.objects.get(pk=int(bo_page.url.rstrip("/").rsplit("/", 1)[1]))
    assert game.turn_seconds == 86400
    assert {s.user.username for s in game.seats.all()} == {"ana", "bo"}

    # Slow game: whoever is to move has a notice in the header's list.
    to_move = game.seats.get(seat=1).user.username
    page = ana_page if to_move == "ana" else bo_page
    page.goto("/notifications/")
    expect(page.locator(".notice-list")).to_contain_text(f"Your turn in game {game.pk}.")
    shot(page, "notifications-" + ("desktop" if page is ana_page else "phone"))

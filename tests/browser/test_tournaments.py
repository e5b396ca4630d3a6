"""A tournament leads its players, in a real browser: a player finishes round 1 and arrives in
round 2's game without touching the URL bar; the other player, watching the tournament page, is
led there too. An arena's banner names the opponent, not a round. Screenshots at 1366×900 and
375×800 go to ``screenshots/tournaments/``."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, off_the_loop
from tests.browser.helpers import game_of_round, running_swiss
from tests.factories import UserFactory
from tests.tournaments.factories import make_tournament
from tests.tournaments.helpers import start

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path(django_settings.BASE_DIR) / "screenshots" / "tournaments"
WAIT_MS = 20_000
"""Two shared cores: the game's end, its task, the pairing and the push take a while."""


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_a_player_finishes_round_1_and_arrives_in_round_2s_game(pages):
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    tournament = off_the_loop(running_swiss, [ana, bo], 2)
    first = game_of_round(tournament.pk, 1)

    ana_page = pages.open(ana)
    bo_page = pages.open(bo, viewport=PHONE)
    # Bo sits on the tournament page: his game of round 1 is highlighted there.
    bo_page.goto(f"/tournaments/{tournament.pk}/")
    expect(bo_page.locator("#your-game")).to_contain_text("Round 1: your game against ana")
    # Bo cancels the automatic jump: he stays, the banner and its button stay.
    bo_page.locator("#next-game-cancel").click()
    expect(bo_page.locator("#next-game-go")).to_be_visible()
    expect(bo_page.locator("#notice-bell-phone")).to_be_visible()  # the badge outside the menu
    shot(bo_page, "next-game-banner-phone")
    # Ana opens the lobby: the banner leads her to round 1's game by itself.
    ana_page.goto("/play/")
    expect(ana_page.locator("#next-game")).to_contain_text("Round 1: your game against bo")
    shot(ana_page, "next-game-banner-desktop")
    ana_page.wait_for_url(f"**/games/{first}/", timeout=WAIT_MS)
    assert bo_page.url.endswith(f"/tournaments/{tournament.pk}/")

    # Ana resigns round 1 (bo wins it): round 2 is paired, and both are led to its game.
    ana_page.locator("#resign-button").click()
    ana_page.locator("#confirm-ok").click()
    expect(ana_page.locator("#back-to-tournament")).to_be_visible(timeout=WAIT_MS)
    expect(ana_page.locator("#rematch-button")).to_have_count(0)
    expect(ana_page.locator(".tournament-after-standings")).to_contain_text("bo")
    expect(ana_page.locator("#next-game")).to_contain_text(
        "Round 2: your game against bo", timeout=WAIT_MS
    )
    shot(ana_page, "finished-game-leads-on-desktop")
    second = game_of_round(tournament.pk, 2)
    assert second is not None
    assert second != first
    ana_page.wait_for_url(f"**/games/{second}/", timeout=WAIT_MS)
    expect(ana_page.locator("#resign-button")).to_be_visible()
    bo_page.wait_for_url(f"**/games/{second}/", timeout=WAIT_MS)
    shot(bo_page, "round-2-game-phone")

    # The tournament page lists round 1's game with its replay, and ana's game of round 2.
    ana_page.goto(f"/tournaments/{tournament.pk}/")
    expect(ana_page.locator(f'a[href="/games/{first}/replay/"]')).to_be_visible()
    expect(ana_page.locator("#your-game")).to_contain_text("Round 2: your game against bo")
    shot(ana_page, "tournament-page-desktop")
    # The tournament's chat, on the tournament's socket.
    expect(ana_page.locator("#chat-heading")).to_have_text("Tournament chat")
    ana_page.locator("#chat-input").fill("Good luck, bo!")
    ana_page.locator("#chat-form button[type=submit]").click()
    expect(ana_page.locator("#chat-lines")).to_contain_text("Good luck, bo!")
    ana_page.locator("#chat").scroll_into_view_if_needed()
    shot(ana_page, "tournament-chat-desktop")


def _running_arena(users: list[Any]) -> Any:
    """A running two-seat arena of an hour that ``users`` joined (paired at the start)."""
    return start(
        make_tournament(
            players=users,
            format="arena",
            rounds=None,
            duration_minutes=60,
            starts_in=timedelta(0),
            turn_seconds=120,
        )
    )


def test_an_arena_player_is_led_to_their_game_against_someone_not_to_a_round(pages):
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    arena = off_the_loop(_running_arena, [ana, bo])
    game = game_of_round(arena.pk, 1)
    ana_page = pages.open(ana)
    ana_page.goto("/play/")
    expect(ana_page.locator("#next-game")).to_contain_text("Your game against bo")
    expect(ana_page.locator("#next-game")).not_to_contain_text("Round")
    shot(ana_page, "arena-next-game-banner-desktop")
    ana_page.wait_for_url(f"**/games/{game}/", timeout=WAIT_MS)

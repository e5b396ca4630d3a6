"""The home page in a real browser: a live game shown on the hero's board and in the list with
its players' ratings, leading to the game to watch; a player's game waiting for them; a
tournament joined from a phone; the visitor's variant. Screenshots at 1366×900 and 375×800 in
every language go to ``screenshots/home/``."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from playwright.sync_api import expect

from games import services
from games.engine.search import best_turn
from games.selectors import game_get, position_of
from ratings.models import Rating
from tests.browser.conftest import DESKTOP, PHONE, off_the_loop
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.tournaments.factories import make_tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path(django_settings.BASE_DIR) / "screenshots" / "home"


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def _live_game(player: Any) -> int:
    """carmen (1640) against dani, one turn played; and a game waiting for ``player``."""
    carmen = UserFactory(username="carmen")
    Rating.objects.create(user=carmen, pool="ffa", rating=1640, peak=1640, games=12)
    game = make_game(users=[carmen, UserFactory(username="dani")])
    move = best_turn(position_of(game_get(game.pk))).turn
    services.game_move_make(game_id=game.pk, user=carmen, move=str(move), ply=0)
    make_game(users=[player, UserFactory(username="eli")])
    return int(game.pk)


def test_a_live_game_is_shown_with_ratings_and_leads_to_watching_it(pages, player):
    game_id = off_the_loop(_live_game, player)
    page = pages.open(player)
    page.goto("/")
    hero = page.locator("#featured-game")
    expect(hero.locator("svg.siesta-board")).to_be_visible()
    expect(hero.locator(".seat-chip", has_text="carmen")).to_contain_text("(1640)")
    expect(page.locator("#home-live .seat-chip", has_text="dani")).to_contain_text("(1500)")
    waiting = page.locator("#home-waiting")
    expect(waiting.get_by_role("link", name="Your turn in game")).to_be_visible()
    page.locator("#home-live").get_by_role("link", name=f"Watch game {game_id}").click()
    expect(page).to_have_url(f"{pages.base_url}/games/{game_id}/")
    expect(page.get_by_role("grid")).to_be_visible()


def test_a_tournament_is_joined_from_the_home_page_on_a_phone(pages, player, screenshot):
    off_the_loop(lambda: make_tournament(players=1, name="Evening cup"))
    page = pages.open(player, viewport=PHONE)
    page.goto("/")
    tournaments = page.locator("#home-tournaments")
    tournaments.scroll_into_view_if_needed()
    expect(tournaments).to_contain_text("1 / 16 players")
    tournaments.get_by_role("button", name="Join Evening cup").click()
    expect(page).to_have_url(f"{pages.base_url}/")
    expect(page.get_by_text("You joined the tournament.")).to_be_visible()
    expect(tournaments).to_contain_text("2 / 16 players")
    expect(tournaments.get_by_role("button", name="Leave Evening cup")).to_be_visible()
    tournaments.scroll_into_view_if_needed()
    screenshot(page, "home-joined-phone")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1


def test_a_visitor_sees_the_live_games_and_is_asked_to_log_in_to_join(pages, player):
    off_the_loop(_live_game, player)
    tournament = off_the_loop(lambda: make_tournament(name="Evening cup"))
    page = pages.open()
    page.goto("/")
    expect(page.locator("#home-waiting")).to_have_count(0)
    expect(page.locator("#featured-game .seat-chip", has_text="carmen")).to_contain_text("(1640)")
    page.locator("#home-tournaments").get_by_role("link", name="Log in to join").click()
    expect(page).to_have_url(f"{pages.base_url}/accounts/login/?next=/tournaments/{tournament.pk}/")


@pytest.mark.parametrize("language", ["en", "es", "de", "it", "fr"])
def test_the_home_page_fits_both_screens_in_every_language(pages, player, language):
    off_the_loop(_live_game, player)
    off_the_loop(lambda: make_tournament(players=3, name="Siesta Swiss", starts_in=timedelta(1)))
    for width, viewport in [("desktop", DESKTOP), ("phone", PHONE)]:
        for who, user in [("player", player), ("visitor", None)]:
            page = pages.open(user, viewport=viewport, language=language)
            page.goto("/")
            expect(page.locator("#featured-game svg")).to_be_visible()
            shot(page, f"home-{who}-{language}-{width}")
            overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 1, f"the home page is {overflow}px too wide ({width}, {language})"
            # Every card's buttons stay inside the card.
            outside = page.evaluate(
                """() => [...document.querySelectorAll('.home-grid .card :is(.button, button)')]
                .filter((b) => { const c = b.closest('.card').getBoundingClientRect();
                                 const r = b.getBoundingClientRect();
                                 return r.right > c.right + 1 || r.left < c.left - 1; })
                .map((b) => b.textContent.trim())"""
            )
            assert outside == [], f"buttons out of their card ({width}, {language}): {outside}"


def test_the_live_cards_hint_bulb_is_a_small_mark_beside_the_name(pages, player):
    """The bulb of a player who took a hint is sized as the text's mark, not as the board."""

    def hinted_live_game() -> None:
        from games.models import Seat

        game_id = _live_game(player)
        Seat.objects.filter(game_id=game_id, seat=1).update(hinted=True)

    off_the_loop(hinted_live_game)
    for width, viewport in [("desktop", DESKTOP), ("phone", PHONE)]:
        page = pages.open(player, viewport=viewport)
        page.goto("/")
        bulb = page.locator("#featured-game .hint-mark svg")
        expect(bulb).to_be_visible()
        box = bulb.bounding_box()
        assert box["height"] <= 24, box
        assert box["width"] <= 24, box
        expect(page.locator("#featured-game svg.siesta-board")).to_be_visible()
        shot(page, f"home-hint-mark-{width}")

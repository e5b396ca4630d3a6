"""Every page in a real browser at desktop and phone widths: no JavaScript error, screenshots,
registration and sign-in, the language switcher and the replay."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games import services
from games.engine.search import best_turn
from games.selectors import game_get, position_of
from tests.browser.conftest import DESKTOP, PHONE, off_the_loop
from tests.factories import PASSWORD, UserFactory
from tests.games.factories import make_game


def finished_game(player, turns: int = 4):
    """A game of ``turns`` turns that bob resigned, made through the services in another thread
    (their on-commit broadcasts may not run in the thread of Playwright's event loop)."""
    return off_the_loop(_finished_game, player, turns)


def _finished_game(player, turns):
    bob = UserFactory(username="bob")
    game = make_game(users=[player, bob])
    for _ in range(turns):
        game = game_get(game.pk)
        move = best_turn(position_of(game)).turn
        user = player if game.to_move == 1 else bob
        services.game_move_make(game_id=game.pk, user=user, move=str(move), ply=game.ply)
    services.game_resign(game_id=game.pk, user=bob)
    return game


@pytest.mark.parametrize(("width", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_every_page_loads_without_a_javascript_error(pages, player, screenshot, width, viewport):
    game = finished_game(player)
    page = pages.open(player, viewport=viewport)
    for name, url in [
        ("home", "/"),
        ("rules", "/rules/"),
        ("lobby", "/play/"),
        ("leaderboard", "/leaderboard/"),
        ("profile", f"/users/{player.username}/"),
        ("replay", f"/games/{game.pk}/replay/"),
        ("result", f"/games/{game.pk}/"),
    ]:
        response = page.goto(url)
        assert response is not None, url
        assert response.ok, url
        page.wait_for_load_state("load")
        screenshot(page, f"{name}-{width}")
        # Nothing wider than the screen: tables scroll inside their own box.
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"{url} is {overflow}px wider than the {width} screen"
    anonymous = pages.open(viewport=viewport)
    for name, url in [("login", "/accounts/login/"), ("register", "/accounts/register/")]:
        anonymous.goto(url)
        screenshot(anonymous, f"{name}-{width}")


def test_register_then_sign_out_and_in(pages):
    page = pages.open()
    page.goto("/accounts/register/")
    page.locator("#id_username").fill("carmen")
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)
    page.get_by_role("button", name="Register").last.click()
    expect(page.get_by_role("link", name="carmen")).to_be_visible()
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("link", name="Log in")).to_be_visible()
    page.goto("/accounts/login/")
    page.locator("#id_username").fill("carmen")
    page.locator("#id_password").fill(PASSWORD)
    page.locator("main").get_by_role("button", name="Log in").click()
    expect(page.get_by_role("link", name="carmen")).to_be_visible()


def test_the_language_switcher_offers_every_language(pages):
    page = pages.open()
    page.goto("/")
    switcher = page.get_by_role("combobox", name="Language")
    options = switcher.locator("option")
    expect(options).to_have_text(["English", "Español", "Deutsch", "Italiano", "Français"])
    switcher.select_option("de")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.get_by_role("link", name="Regeln").first).to_be_visible()


def test_the_replay_steps_through_the_turns(pages, player, screenshot):
    game = finished_game(player, turns=3)
    page = pages.open(player)
    page.goto(f"/games/{game.pk}/replay/")
    position = page.locator("#replay-position")
    expect(position).to_have_text("Turn 3 of 3")
    page.get_by_role("button", name="First: the empty board").click()
    expect(position).to_contain_text("Start of the game")
    expect(page.get_by_role("gridcell", name=re.compile(": empty$"))).to_have_count(144)
    page.get_by_role("button", name="Next turn").click()
    expect(position).to_have_text("Turn 1 of 3")
    expect(page.get_by_role("gridcell", name=re.compile(": empty$"))).to_have_count(141)
    # A roof names its owner as the game page does.
    roof = re.compile(rf"^[A-L]\d+: roof of {player.username} \(player 1\)$")
    expect(page.get_by_role("gridcell", name=roof)).to_have_count(1)
    page.keyboard.press("ArrowRight")
    expect(position).to_have_text("Turn 2 of 3")
    page.get_by_role("button", name="Previous turn").click()
    expect(position).to_have_text("Turn 1 of 3")
    screenshot(page, "replay-stepping-desktop")


def _hinted_games(player):
    from tests.ratings.play import hinted_game

    rival = UserFactory(username="a-rather-long-username-for-a-phone")
    hinted_game([player, rival], rival)
    return hinted_game([player, rival], rival, hinters={player})


@pytest.mark.parametrize(("width", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_the_hinted_share_and_marks_fit_the_screen(pages, player, screenshot, width, viewport):
    hinted = off_the_loop(_hinted_games, player)
    page = pages.open(player, viewport=viewport)
    page.goto("/leaderboard/")
    expect(page.locator("main")).to_contain_text(
        "a player whose rated games all had a hint is not listed"
    )
    expect(page.locator("table.leaderboard th").last).to_contain_text("Hints")
    mine = page.locator("table.leaderboard tr.mine td.hints")
    expect(mine).to_contain_text("50%")
    expect(mine.locator("[title]")).to_have_attribute("title", "Hints in 1 of 2 rated games (50%)")
    screenshot(page, f"leaderboard-hints-{width}")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the leaderboard is {overflow}px wider than the {width} screen"
    # The column is there to scroll to, inside the table's own box.
    mine.scroll_into_view_if_needed()
    expect(mine).to_be_in_viewport()
    page.goto(f"/users/{player.username}/")
    expect(page.locator(".hint-share")).to_contain_text("Hints in 1 of 2 rated games (50%)")
    expect(page.locator(".hint-share")).to_contain_text(
        "A game with a hint does not count for the player’s rating: 1 game left out, 1 counted."
    )
    mark = page.locator("table.games .hint-mark")
    expect(mark).to_have_count(1)
    expect(mark).to_have_attribute(
        "title", "Used a hint: this game does not count for their rating"
    )
    screenshot(page, f"profile-hints-{width}")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the profile is {overflow}px wider than the {width} screen"
    # The end banner of the game with the hint says why it did not count, and for whom.
    page.goto(f"/games/{hinted.pk}/")
    note = page.locator("#result-hint-note")
    expect(note).to_have_text(
        f"{player.username} asked for a hint in this game, so it does not count for their rating."
    )
    note.scroll_into_view_if_needed()
    screenshot(page, f"result-hint-note-{width}")
    # The banner and its note stay within the screen (the turn list below scrolls on its own).
    for part in ("#result-banner", "#result-hint-note"):
        box = page.locator(part).bounding_box()
        assert box["x"] + box["width"] <= viewport["width"] + 1, (part, box, width)
    page.goto("/play/")
    expect(page.locator(".game-list .hint-mark")).to_have_count(1)  # the player's finished games
    page.locator(".game-list .hint-mark").scroll_into_view_if_needed()
    screenshot(page, f"lobby-hints-{width}")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the lobby is {overflow}px wider than the {width} screen"


@pytest.mark.parametrize(("width", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_the_tournaments_intro_names_the_arena_and_fits(pages, screenshot, width, viewport):
    page = pages.open(viewport=viewport, language="de")
    page.goto("/tournaments/")
    expect(page.locator("p.lead")).to_contain_text("Arena")
    screenshot(page, f"tournaments-intro-de-{width}")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the tournaments page is {overflow}px wider than the {width} screen"

"""Playing in a real browser: the lobby's default game against a bot, placements, refusals,
hints, and the layout at desktop and phone widths."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from games.models import Game
from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.helpers import (
    cell,
    moves_listed,
    place,
    play_turn_by_clicking,
    quick_turn,
    start_bot_game,
)


def in_viewport(page, locator) -> bool:
    box = locator.bounding_box()
    size = page.viewport_size
    return (
        box is not None
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= size["width"]
        and box["y"] + box["height"] <= size["height"]
    )


def test_a_bot_game_from_the_lobby_defaults_is_played_to_the_end_by_clicking(page, screenshot):
    page.goto("/play/")
    screenshot(page, "lobby-desktop")
    game = start_bot_game(page)
    assert game.status == Game.Status.ACTIVE
    assert not game.rated
    expect(page.locator("#game-status")).to_have_text("Your turn")
    expect(page).to_have_title(re.compile(r"^\(Your turn\) "))
    screenshot(page, "game-desktop")

    for turn_number in range(1, 40):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        play_turn_by_clicking(page, quick_turn(game))
        if turn_number == 2:
            screenshot(page, "game-desktop-playing")
        # Our turn, then the bot's (unless ours ended the game).
        expect(page.locator("#game-status, #result-banner").first).to_be_visible()
        page.wait_for_function(
            "() => document.querySelector('#result-banner') || "
            "document.querySelector('#game-status').textContent === 'Your turn' && "
            f"document.querySelectorAll('#move-list tbody tr').length >= {2 * turn_number}",
            timeout=30_000,  # the bot thinks in its own thread; the machine may be busy
        )
    banner = page.get_by_role("heading", name=re.compile("^Winner|^Winners"))
    expect(banner).to_be_visible()
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    screenshot(page, "result-desktop")


def test_the_lobby_offers_teams_only_with_the_players_the_server_allows(page):
    """lobby.js reads each mode's ``data-players`` (GameSettings): teams with 4 players only."""
    page.goto("/play/")
    page.locator("details.more-options summary").click()
    teams = page.locator('#id_mode option[value="teams"]')
    expect(teams).to_be_disabled()
    page.select_option("#id_players", "4")
    expect(teams).to_be_enabled()
    page.select_option("#id_mode", "teams")
    page.select_option("#id_players", "3")
    expect(teams).to_be_disabled()
    expect(page.locator("#id_mode")).to_have_value("ffa")


def test_an_illegal_placement_is_explained_next_to_the_board(page, screenshot):
    start_bot_game(page)
    place(page, "S", "F6")
    expect(cell(page, "F6")).to_have_attribute("aria-label", re.compile("sun placed this turn"))
    place(page, "H", "F7")
    alert = page.get_by_role("alert")
    expect(alert).to_have_text("A shadow at F7 would be next to a sun")
    assert in_viewport(page, alert)
    # The piece is taken back, the cell stays marked, and redraws keep both.
    expect(cell(page, "F7")).to_have_attribute("aria-label", "F7: empty")
    expect(cell(page, "F7")).to_have_class(re.compile("cell-refused"))
    page.get_by_role("button", name=re.compile("^Sun")).click()
    expect(cell(page, "F7")).to_have_class(re.compile("cell-refused"))
    expect(alert).to_have_text("A shadow at F7 would be next to a sun")
    screenshot(page, "refused-desktop")
    # The next placement clears them.
    place(page, "S", "G6")
    expect(page.locator("#board-message")).to_be_empty()
    expect(cell(page, "F7")).not_to_have_class(re.compile("cell-refused"))


def test_a_refusal_is_translated_and_in_view_on_a_phone(pages, player, screenshot):
    page = pages.open(player, viewport=PHONE, language="es")
    page.goto("/play/")
    page.locator("#start-button").click()
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    page.locator('.piece-button[data-piece="S"]').click()
    cell(page, "F6").click()
    page.locator('.piece-button[data-piece="H"]').click()
    cell(page, "F7").click()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("F7")
    expect(alert).to_contain_text("sol")
    expect(alert).not_to_contain_text("next to")  # Spanish, not the engine's English
    assert in_viewport(page, alert)
    screenshot(page, "refused-phone-es")


def test_phone_layout_fits_board_picker_and_confirm(pages, player, screenshot):
    page = pages.open(player, viewport=PHONE)
    page.goto("/play/")
    screenshot(page, "lobby-phone")
    start_bot_game(page)
    screenshot(page, "game-phone")
    for name in ("Confirm turn", "Sun", "Roof", "Shadow"):
        button = page.get_by_role("button", name=name, exact=True)
        assert in_viewport(page, button), name
    board = page.get_by_role("grid")
    assert in_viewport(page, board)
    assert board.bounding_box()["width"] >= PHONE["width"] - 16
    header = page.locator(".site-header").bounding_box()
    assert header["height"] < 60  # one line, the links behind the menu button
    page.get_by_role("button", name="Menu").click()
    expect(page.get_by_role("link", name="Leaderboard")).to_be_visible()


def test_the_board_grows_with_the_window(pages, player):
    page = pages.open(player, viewport={"width": 1024, "height": 700})
    start_bot_game(page)
    small = page.get_by_role("grid").bounding_box()["width"]
    page.set_viewport_size({"width": 1600, "height": 1000})
    large = page.get_by_role("grid").bounding_box()["width"]
    assert large > small * 1.2
    assert page.get_by_role("grid").bounding_box()["height"] <= 1000
    page.set_viewport_size(DESKTOP)


def test_a_hint_is_asked_in_page_and_marks_the_turn(page, screenshot):
    game = start_bot_game(page)
    page.get_by_role("button", name="Hint").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    screenshot(page, "hint-dialog-desktop")
    dialog.get_by_role("button", name="Show me a hint").click()
    expect(page.locator("#play-message")).to_contain_text("Hint:")
    expect(page.locator("#notation-input")).not_to_have_value("")
    page.get_by_role("button", name="Check", exact=True).click()
    confirm = page.get_by_role("button", name="Confirm turn")
    expect(confirm).to_be_enabled()
    confirm.click()
    expect(moves_listed(page).first).to_contain_text("Played after a hint")
    expect(page.locator("#seat-panels .badge-hint")).to_have_count(1)
    game.refresh_from_db()
    assert game.turns.get(ply=1).hint

"""By keyboard alone, as a screen-reader user plays (docs/accessibility.md): sign up, start a game
against a bot, play it to its end through the board's grid and the command line, and hear every
turn, whose turn it is and the result in the page's live region."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from games.engine.notation import COLUMNS
from games.models import Game
from tests.browser.helpers import quick_turn
from tests.factories import PASSWORD

BOT_WAIT_MS = 30_000  # the bot thinks in its own thread; the machine may be busy


def focused(page: Any) -> Any:
    """The id, or the cell name, of the element that has the focus."""
    return page.evaluate("(e => e && (e.id || e.dataset.cell))(document.activeElement)")


def tab_to(page: Any, target: str, limit: int = 120) -> None:
    """Press Tab until the element with id (or cell name) ``target`` has the focus."""
    for _ in range(limit):
        if focused(page) == target:
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {target!r} (last: {focused(page)!r})")


def go_to_cell(page: Any, name: str) -> None:
    """From any cell: Ctrl+Home to A1, then the arrows."""
    page.keyboard.press("Control+Home")
    assert focused(page) == "A1"
    for _ in range(COLUMNS.index(name[0])):
        page.keyboard.press("ArrowRight")
    for _ in range(int(name[1:]) - 1):
        page.keyboard.press("ArrowDown")
    assert focused(page) == name


def announced(page: Any) -> Any:
    return page.locator("#a11y-announcer")


def test_a_bot_game_is_played_to_its_end_by_keyboard_and_heard(pages, screenshot):
    page = pages.open()
    page.goto("/")
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to content")).to_be_focused()
    page.goto("/accounts/register/")
    tab_to(page, "id_username")
    page.keyboard.type("carmen")
    tab_to(page, "id_password1")
    page.keyboard.type(PASSWORD)
    tab_to(page, "id_password2")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    expect(page.get_by_role("link", name="carmen")).to_be_visible()

    page.goto("/play/")
    start = page.get_by_role("button", name="Start game")
    for _ in range(150):
        if start.evaluate("(button) => button === document.activeElement"):
            break
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    game = Game.objects.latest("id")
    expect(page.locator("#game-status")).to_have_text("Your turn")

    # The board: one cell takes the Tab; the edges by Home/End and PageUp/PageDown.
    tab_to(page, "F6")
    expect(page.get_by_role("gridcell", name="F6: empty")).to_be_focused()
    for key, cell in [("End", "L6"), ("Home", "A6"), ("PageDown", "A12"), ("PageUp", "A1")]:
        page.keyboard.press(key)
        assert focused(page) == cell, key
    page.keyboard.press("Control+End")
    assert focused(page) == "L12"
    # The next Tab stop after the board: the help's visible link (keys and commands).
    page.keyboard.press("Tab")
    help_link = page.get_by_role("link", name="Playing without sight: keys and commands")
    expect(help_link).to_be_focused()
    expect(help_link).to_be_visible()
    assert help_link.get_attribute("href") == "/rules/without-sight/"
    page.keyboard.press("Shift+Tab")
    assert focused(page) == "L12"

    command = page.get_by_role("textbox", name="Command or turn")
    answer = page.locator("#command-output")
    by_command_line = False
    for number in range(1, 40):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        turn = str(quick_turn(game))
        if by_command_line:
            command.focus()
            page.keyboard.type(turn)
            page.keyboard.press("Enter")
            expect(answer).to_have_text(f"Checking {turn}.")
            expect(page.get_by_role("button", name="Confirm turn")).to_be_enabled()
            page.keyboard.type("confirm")
            page.keyboard.press("Enter")
        else:
            page.get_by_role("grid").locator(".cell[tabindex='0']").focus()
            for placement in turn.split():
                page.keyboard.press(placement[0].lower())
                expect(announced(page)).to_contain_text(
                    {"S": "Piece: sun.", "R": "Piece: roof.", "H": "Piece: shadow."}[placement[0]]
                )
                go_to_cell(page, placement[1:])
                page.keyboard.press("Enter")
            expect(page.get_by_role("button", name="Confirm turn")).to_be_enabled()
            page.keyboard.press("c")
        expect(announced(page)).to_contain_text(
            re.compile(rf"carmen \(player 1\) played {turn} and scored \d+ points?\.")
        )
        page.wait_for_function(
            "() => document.querySelector('#result-banner') || "
            "document.querySelector('#game-status').textContent === 'Your turn' && "
            f"document.querySelectorAll('#move-list tbody tr').length >= {2 * number}",
            timeout=BOT_WAIT_MS,
        )
        if page.locator("#result-banner").count():
            break
        expect(announced(page)).to_contain_text(
            re.compile(r"Bot \(\w+\) \(player 2\) played [A-L0-9SRH ]+ and scored \d+ points?\.")
        )
        expect(announced(page).locator("p").last).to_have_text(re.compile(r"^Your turn\."))
        if number == 1:
            # Each cell says its owner and the siestas it is part of (the server's count).
            roof = re.compile(r"^[A-L]\d+: roof of carmen \(player 1\), \d siestas?$")
            expect(page.get_by_role("gridcell", name=roof).first).to_be_attached()
            shadow = re.compile(r"^[A-L]\d+: shadow, \d siestas?$")
            expect(page.get_by_role("gridcell", name=shadow).first).to_be_attached()
            command.focus()
            page.keyboard.type("score")
            page.keyboard.press("Enter")
            expect(answer).to_have_text(
                re.compile(r"^carmen \(player 1\): \d+ points?\. Bot \(\w+\) \(player 2\): \d+")
            )
            page.keyboard.type("row 1")
            page.keyboard.press("Enter")
            expect(answer).to_contain_text("A1")
            screenshot(page, "keyboard-game-desktop")
        by_command_line = not by_command_line

    # The finished page says the result again, after its reload.
    expect(page.locator("#result-banner")).to_be_visible(timeout=BOT_WAIT_MS)
    expect(announced(page)).to_contain_text(re.compile(r"Winners?"), timeout=BOT_WAIT_MS)
    expect(announced(page)).to_contain_text(re.compile(r"carmen \(player 1\): \d+ points?\."))
    expect(announced(page)).to_contain_text("not counted: casual game")  # the rating's words
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED


def test_the_analysis_board_and_a_puzzle_are_walked_by_the_same_keys(pages, player):
    from tests.browser.conftest import off_the_loop
    from tests.learn.test_puzzles import _small_puzzle

    puzzle = off_the_loop(_small_puzzle)
    page = pages.open(player)
    # A roof goes anywhere on the empty analysis board; in the puzzle, next to its pieces (A1-D1).
    for url, keys, roof in [
        ("/analysis/", ["Control+End"], "L12"),
        (f"/puzzles/{puzzle.pk}/", ["Control+Home", *["ArrowRight"] * 4], "E1"),
    ]:
        page.goto(url)
        expect(page.locator(".cell[tabindex='0']")).to_have_count(1)  # one Tab stop
        tab_to(page, "F6")
        for key, cell in [("End", "L6"), ("Home", "A6"), ("PageDown", "A12"), ("ArrowUp", "A11")]:
            page.keyboard.press(key)
            assert focused(page) == cell, (url, key)
        for key in keys:
            page.keyboard.press(key)
        assert focused(page) == roof, url
        page.keyboard.press("r")
        page.keyboard.press("Enter")
        expect(page.get_by_role("gridcell", name=re.compile(rf"^{roof}: roof"))).to_be_attached()
    # The puzzle's cells (S1## in rows 1 and 2) name the seat as the page shows it, and the siestas.
    for cell, name in [
        ("A1", "A1: sun, 1 siesta"),
        ("B1", "B1: roof of Player 1, 1 siesta"),
        ("D2", "D2: shadow, 1 siesta"),
        ("A3", "A3: empty"),
    ]:
        expect(page.locator(f".cell[data-cell='{cell}']")).to_have_attribute("aria-label", name)
    # The game page's command line, here too: questions, a typed turn, undo.
    command = page.get_by_role("textbox", name="Command or turn")
    answer = page.locator("#command-output")
    for text, said in [
        ("cell b1", "B1: roof of Player 1, 1 siesta"),
        ("turn", "Player 1 is to move."),
        ("score", re.compile(r"^Player 1: \d+ points?\. Player 2: \d+ points?\.$")),
        ("row 2", re.compile(r"^A2: sun, 1 siesta; B2: roof of Player 1, 1 siesta; .*: empty\.$")),
        ("he1", "Checking HE1."),
        ("undo", "Last placement taken back."),
        ("dance", "Unknown command. Type help for the list."),
    ]:
        command.focus()
        page.keyboard.type(text)
        page.keyboard.press("Enter")
        expect(answer).to_have_text(said)
        if text == "he1":
            expect(page.locator("#pending-move")).to_have_text("HE1")
    expect(page.locator("#pending-move")).to_have_text("")
    page.goto("/analysis/")
    expect(page.get_by_role("gridcell", name=re.compile(r"^F6: "))).to_be_attached()
    command.focus()
    page.keyboard.type("sf6 rf7 hf8")
    page.keyboard.press("Enter")
    expect(answer).to_have_text("Checking SF6 RF7 HF8.")
    expect(page.get_by_role("button", name="Play")).to_be_enabled()
    page.keyboard.type("confirm")
    page.keyboard.press("Enter")
    expect(page.locator(".cell[data-cell='F7']")).to_have_attribute(
        "aria-label", "F7: roof of Player 1, 1 siesta"
    )
    page.keyboard.type("last")
    page.keyboard.press("Enter")
    expect(answer).to_have_text("Player 1 played SF6 RF7 HF8 and scored 1 point.")

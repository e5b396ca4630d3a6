"""Steps the browser tests share: start games, place pieces by clicking, play whole turns."""

from __future__ import annotations

import random
import re
from typing import Any

from playwright.sync_api import expect

from games.engine import Turn
from games.engine.search import scoring_turns
from games.models import Game
from games.selectors import game_get, position_of

PIECE_BUTTONS = {"S": "Sun", "R": "Roof", "H": "Shadow"}


def cell(page: Any, name: str) -> Any:
    return page.get_by_role("gridcell", name=re.compile(rf"^{name}: "))


def start_bot_game(page: Any) -> Game:
    """The lobby's defaults: a game against a bot that starts at once."""
    page.goto("/play/")
    page.get_by_role("button", name="Start game").click()
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    expect(cell(page, "F6")).to_be_visible()
    game = Game.objects.latest("id")
    game_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    assert game.pk == game_id
    return game


def place(page: Any, piece: str, at: str) -> None:
    page.get_by_role("button", name=re.compile("^" + PIECE_BUTTONS[piece])).click()
    cell(page, at).click()


def quick_turn(game: Game) -> Turn:
    """A scoring turn for the player to move that places as many roofs as it can (short games)."""
    position = position_of(game_get(game.pk))
    turns = scoring_turns(position, random.Random(game.pk))
    return max(turns, key=lambda scored: (str(scored[1]).count("R"), scored[0]))[1]


def play_turn_by_clicking(page: Any, turn: Turn) -> None:
    """Click the turn's placements, wait for the server's check, and confirm."""
    for placement in str(turn).split():
        place(page, placement[0], placement[1:])
    confirm = page.get_by_role("button", name="Confirm turn")
    expect(confirm).to_be_enabled()
    confirm.click()


def moves_listed(page: Any) -> Any:
    return page.locator("#move-list tbody tr")

"""Steps the browser tests share: start games, place pieces by clicking, play whole turns, start
a tournament."""

from __future__ import annotations

import random
import re
from datetime import timedelta
from typing import Any

from django.utils import timezone
from playwright.sync_api import expect

from games.engine import Turn
from games.engine.search import scoring_turns
from games.models import Game
from games.selectors import game_get, position_of
from tournaments import services
from tournaments.models import Pairing, Tournament

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


def running_swiss(users: list[Any], rounds: int) -> Tournament:
    """A running two-seat Swiss of ``rounds`` rounds (turns of 2 minutes) that ``users`` joined."""
    tournament = services.tournament_create(
        user=None,
        name="Siesta Cup",
        format="swiss",
        table_size=2,
        mode="ffa",
        variant="standard",
        rounds=rounds,
        starts_at=timezone.now() + timedelta(hours=1),
        turn_seconds=120,
        max_players=8,
    )
    for user in users:
        services.tournament_join(tournament_id=tournament.pk, user=user)
    services.tournament_start(
        tournament_id=tournament.pk, now=tournament.starts_at + timedelta(seconds=1)
    )
    return tournament


def game_of_round(tournament_id: int, number: int) -> int | None:
    return (
        Pairing.objects.filter(tournament_id=tournament_id, round__number=number)
        .exclude(game=None)
        .values_list("game_id", flat=True)
        .first()
    )

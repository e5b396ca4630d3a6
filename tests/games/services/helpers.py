"""Helpers for the service tests: players by seat, the engine's choice of move, a snapshot of
everything a service may change, and a watcher of a game's group."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from asgiref.sync import async_to_sync

from games import realtime, services
from games.engine.search import best_turn
from games.models import Game
from games.selectors import game_get, game_state, position_of

QUIET = 0.05
"""Seconds a watcher waits for one more event. Broadcasts run in the committing thread, so every
event a test expects is already queued when it looks."""


def seat_user(game: Game, seat: int) -> Any:
    return game.seats.get(seat=seat).user


def best_move(game: Game) -> str:
    """The engine's best turn for the seat to move, from the stored state."""
    best = best_turn(position_of(game_get(game.pk)))
    assert best.turn is not None
    return str(best.turn)


def play_best_turn(game: Game) -> services.MoveResult:
    """The person to move plays the engine's best turn."""
    game.refresh_from_db()
    return services.game_move_make(
        game_id=game.pk, user=seat_user(game, game.to_move), move=best_move(game), ply=game.ply
    )


def ends_game(game: Game, move: str) -> bool:
    position = position_of(game_get(game.pk))
    position.play(move)
    return position.over


def play_until_the_last_turn(game: Game) -> str:
    """Play best turns (every seat a person) until the best turn ends the game; return that turn
    unplayed."""
    while True:
        game.refresh_from_db()
        move = best_move(game)
        if ends_game(game, move):
            return move
        play_best_turn(game)


def snapshot(game: Game) -> tuple[dict[str, Any], list[bool]]:
    """All a service may change: the game as the API shows it, and the seats' pending hints."""
    game = game_get(game.pk)
    return game_state(game), [s.hint_pending for s in game.seats.order_by("seat")]


def assert_deadline(game: Game, before: datetime, after: datetime) -> None:
    """The deadline is the turn time from a moment between ``before`` and ``after``."""
    turn = timedelta(seconds=game.turn_seconds)
    assert game.deadline is not None
    assert before + turn <= game.deadline <= after + turn


@dataclass
class Watcher:
    layer: Any
    group: str
    channel: str

    @classmethod
    def subscribe(cls, layer: Any, game_id: int) -> Watcher:
        channel = async_to_sync(layer.new_channel)()
        group = realtime.game_group(game_id)
        async_to_sync(layer.group_add)(group, channel)
        return cls(layer, group, channel)

    def events(self) -> list[dict[str, Any]]:
        """The events received since the last look."""
        return async_to_sync(self._drain)()

    def versions(self) -> list[int]:
        events = self.events()
        assert all(e["type"] == "game.state" for e in events)
        assert all(e["version"] == e["game"]["version"] for e in events)
        return [e["version"] for e in events]

    async def _drain(self) -> list[dict[str, Any]]:
        events = []
        while True:
            try:
                events.append(await asyncio.wait_for(self.layer.receive(self.channel), QUIET))
            except TimeoutError:
                return events

    def close(self) -> None:
        async_to_sync(self.layer.group_discard)(self.group, self.channel)

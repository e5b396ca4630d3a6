"""Group names and the push of game states to WebSocket watchers (one place for both)."""

from __future__ import annotations

from core.broadcast import group_send
from games.state import GameState, GameStateEvent


def game_group(game_id: int) -> str:
    return f"game.{game_id}"


def broadcast_game_state(game_id: int, state: GameState) -> bool:
    """Send a game state to everyone watching the game. The event carries the whole state, so the
    consumers' handlers never query.

    Called after the commit: when the channel layer fails (Redis down) the change is made all the
    same, so this logs and returns False; watchers catch up with ``sync`` (the version tells them
    what they missed)."""
    event: GameStateEvent = {"type": "game.state", "game": state, "version": state["version"]}
    return group_send(game_group(game_id), event)

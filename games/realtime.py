"""Group names and the push of game states to WebSocket watchers (one place for both)."""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer


def game_group(game_id: int) -> str:
    return f"game.{game_id}"


def broadcast_game_state(game_id: int, state: dict[str, Any]) -> None:
    """Send a game state to everyone watching the game. The event carries the whole state, so the
    consumers' handlers never query."""
    group_send(
        game_group(game_id), {"type": "game.state", "game": state, "version": state["version"]}
    )


def group_send(group: str, event: dict[str, Any]) -> None:
    """Send ``event`` to a Channels group (nothing without a channel layer)."""
    layer = get_channel_layer()
    if layer is None:
        return
    async_to_sync(layer.group_send)(group, event)

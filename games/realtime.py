"""Group names and the push of game states to WebSocket watchers (one place for both)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games.state import GameState, GameStateEvent

logger = logging.getLogger(__name__)


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


def group_send(group: str, event: Mapping[str, Any]) -> bool:
    """Send ``event`` to a Channels group; False (logged) without a layer or when it fails."""
    layer = get_channel_layer()
    if layer is None:
        return False
    try:
        async_to_sync(layer.group_send)(group, dict(event))
    except Exception:
        logger.warning(
            "could not broadcast %s to group %s", event.get("type"), group, exc_info=True
        )
        return False
    return True

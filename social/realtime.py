"""Pushes of the social app: to one person's pages (the lobby socket) and to a game's watchers.

Sent after commits; a channel layer that is away (Redis down) is logged, never raised, so a
request that already committed never fails for it."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from channels.layers import get_channel_layer

from games.realtime import game_group, layer_group_send
from social.state import GameGroupEvent, LobbyPush, SocialMessageEvent

logger = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def _group_send(group: str, event: Mapping[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        layer_group_send(layer, group, dict(event))
    except Exception:
        logger.exception("could not push %s to %s", event.get("type"), group)


def to_user(user_id: int, message: LobbyPush) -> None:
    """Send ``message`` (a frame of the lobby socket) to every page the person has open."""
    event: SocialMessageEvent = {"type": "social.message", "message": message}
    _group_send(user_group(user_id), event)


def to_game(game_id: int, event: GameGroupEvent) -> None:
    """A group event for the watchers of a game (handled by ``social.consumers``)."""
    _group_send(game_group(game_id), event)

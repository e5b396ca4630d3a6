"""The social app reacts to games; games never call it."""

from __future__ import annotations

from typing import Any

from social import services


def game_changed_notify(sender: Any, *, state: dict[str, Any], **kwargs: Any) -> None:
    """Receiver of ``games.signals.game_changed`` (after the commit): turn notices of slow games."""
    services.turn_notices_update(state)

"""Group names and the push of tournament states to WebSocket watchers."""

from __future__ import annotations

from typing import Any

from games.realtime import group_send


def tournament_group(tournament_id: int) -> str:
    return f"tournament.{tournament_id}"


def broadcast_tournament_state(tournament_id: int, state: dict[str, Any]) -> None:
    """Send a tournament's state to everyone watching it; the event carries the whole state."""
    group_send(
        tournament_group(tournament_id),
        {"type": "tournament.state", "tournament": state, "version": state["version"]},
    )

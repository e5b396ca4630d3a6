"""Group names and the push of tournament states to WebSocket watchers."""

from __future__ import annotations

from core.broadcast import group_send
from tournaments.state import TournamentState, TournamentStateEvent


def tournament_group(tournament_id: int) -> str:
    return f"tournament.{tournament_id}"


def broadcast_tournament_state(tournament_id: int, state: TournamentState) -> None:
    """Send a tournament's state to everyone watching it; the event carries the whole state."""
    event: TournamentStateEvent = {
        "type": "tournament.state",
        "tournament": state,
        "version": state["version"],
    }
    group_send(tournament_group(tournament_id), event)

"""The social app reacts to games; games never call it."""

from __future__ import annotations

from typing import Any

from games.state import GameState
from social.services.notices import (
    tournament_games_push,
    tournament_round_notices,
    turn_notices_update,
)


def game_changed_notify(sender: Any, *, state: GameState, **kwargs: Any) -> None:
    """Receiver of ``games.signals.game_changed`` (after the commit): turn notices of slow games."""
    turn_notices_update(state)


def round_started_notify(
    sender: Any,
    *,
    tournament_id: int,
    name: str,
    round: int,
    name_key: str = "",
    seats: list[tuple[int, int | None]],
    **kwargs: Any,
) -> None:
    """Receiver of ``tournaments.signals.round_started`` (after the commit): a notice to every
    player of the round, linking to their game (or the tournament for a bye), and their next
    game pushed to their open pages, which lead them there."""
    tournament_round_notices(
        tournament_id=tournament_id,
        name=name,
        name_key=name_key,
        round_number=round,
        seats=seats,
    )
    tournament_games_push(tournament_id=tournament_id, seats=seats)

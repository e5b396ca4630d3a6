"""The social app reacts to games; games never call it."""

from __future__ import annotations

from typing import Any

from games.state import GameState
from social.services.notices import (
    tournament_games_push,
    tournament_round_notices,
    tournament_withdrawn_notice,
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
    arena: bool = False,
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
        arena=arena,
    )
    tournament_games_push(tournament_id=tournament_id, seats=seats)


def player_withdrawn_notify(
    sender: Any,
    *,
    tournament_id: int,
    name: str,
    user_id: int,
    round: int,
    can_rejoin: bool,
    **kwargs: Any,
) -> None:
    """Receiver of ``tournaments.signals.player_withdrawn`` (after the commit): the player is told
    they were withdrawn for missed games, and whether they can rejoin."""
    tournament_withdrawn_notice(
        tournament_id=tournament_id,
        name=name,
        user_id=user_id,
        round_number=round,
        can_rejoin=can_rejoin,
    )

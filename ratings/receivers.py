"""Ratings react to the end of a game; games never call ratings."""

from __future__ import annotations

from typing import Any

from games.selectors import FinishedGame
from ratings import services


def rate_finished_game(sender: Any, *, outcome: FinishedGame, **kwargs: Any) -> None:
    """Receiver of ``games.signals.game_finished``: runs inside the finishing transaction."""
    services.game_rate(outcome=outcome)

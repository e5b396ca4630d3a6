"""Bot players. They choose turns with the shared engine and nothing else."""

from __future__ import annotations

import random

from games.engine import Position, Turn, best_turns, scoring_turns


def choose_turn(position: Position, level: str, rng: random.Random | None = None) -> Turn | None:
    """The turn a bot of ``level`` plays in ``position`` (None when it has no scoring turn)."""
    rng = rng or random.Random()
    if level == "easy":
        turns = scoring_turns(position, rng)
        return rng.choice(turns)[1] if turns else None
    _points, turns = best_turns(position, ties=True, rng=rng)
    return rng.choice(turns) if turns else None

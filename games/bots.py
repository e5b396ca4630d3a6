"""Bot players. They choose turns with the shared engine and nothing else."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from games.engine import Position, Turn, best_turns, scoring_turns

LEVELS = ("easy", "medium", "hard")

WIN = 10_000


def choose_turn(
    position: Position,
    level: str,
    rng: random.Random | None = None,
    hard: HardSettings | None = None,
) -> Turn | None:
    """The turn a bot of ``level`` plays in ``position`` (None when it has no scoring turn).

    The position is left as it was. ``hard`` tunes the hard level (tests, benchmarks)."""
    rng = rng or random.Random()
    if level == "easy":
        return easy_turn(position, rng)
    if level == "hard":
        return hard_turn(position, rng, hard)
    return medium_turn(position, rng)


def easy_turn(position: Position, rng: random.Random) -> Turn | None:
    turns = scoring_turns(position, rng)
    return rng.choice(turns)[1] if turns else None


def medium_turn(position: Position, rng: random.Random) -> Turn | None:
    _points, turns = best_turns(position, ties=True, rng=rng)
    return rng.choice(turns) if turns else None


@dataclass(frozen=True)
class HardSettings:
    width: int = 8
    """Candidate turns looked at, best own points first."""
    follow_weight: float = 0.5
    """Weight of the bot's own best turn once the others have replied."""
    mean_weight: float = 0.0
    """Weight of the lead over the mean of the others (besides the lead over the best other)."""
    budget: float = 0.5
    """CPU seconds (this thread's) after which no further candidate is looked at."""
    wall_cap: float = 2.0
    """Wall-clock seconds after which no further candidate is looked at, however busy the
    machine."""


def _margin(pos: Position, seat: int, mean_weight: float = 0.0) -> float:
    mine = pos.scores[seat - 1]
    others = [s for i, s in enumerate(pos.scores) if i != seat - 1]
    lead: float = mine - max(others)
    if mean_weight:
        lead += mean_weight * (mine - sum(others) / len(others))
    return lead


def _terminal(pos: Position, seat: int) -> float:
    lead = _margin(pos, seat)
    if lead > 0:
        return WIN + lead
    if lead == 0:
        return WIN / 2
    return -WIN + lead


def _line_value(pos: Position, turn: Turn, seat: int, settings: HardSettings) -> float:
    """Play ``turn``, then each other player's best reply until the bot is to move again; the
    value is the lead then (plus the bot's best next turn, weighted), or the result if the game
    ended on the way. The position is restored."""
    pos.play(turn)
    played = 1
    try:
        while not pos.over and pos.to_move != seat:
            _points, replies = best_turns(pos)
            if not replies:  # cannot happen: the game is over when no scoring turn is left
                break
            pos.play(replies[0])
            played += 1
        if pos.over:
            return _terminal(pos, seat)
        value = _margin(pos, seat, settings.mean_weight)
        if settings.follow_weight:
            follow, _turns = best_turns(pos)
            value += settings.follow_weight * follow
        return value
    finally:
        for _ in range(played):
            pos.undo()


def hard_candidates(pos: Position, rng: random.Random, width: int) -> list[tuple[int, Turn]]:
    """Up to ``width`` distinct scoring turns, the best ones for the mover first."""
    best_points, best = best_turns(pos, ties=True, rng=rng)
    candidates: list[tuple[int, Turn]] = [(best_points, t) for t in best]
    seen = {str(t) for t in best}
    if len(candidates) < width:
        others = scoring_turns(pos, rng)
        others.sort(key=lambda item: -item[0])
        for gain, turn in others:
            if str(turn) not in seen:
                seen.add(str(turn))
                candidates.append((gain, turn))
            if len(candidates) >= width:
                break
    return candidates[:width]


def hard_turn(
    position: Position, rng: random.Random, settings: HardSettings | None = None
) -> Turn | None:
    settings = settings or HardSettings()
    cpu_start, wall_start = time.thread_time(), time.perf_counter()
    pos = position.copy()
    seat = pos.to_move
    if seat is None:
        return None
    candidates = hard_candidates(pos, rng, settings.width)
    if not candidates:
        return None
    chosen, chosen_value = candidates[0][1], None
    for _gain, turn in candidates:
        value = _line_value(pos, turn, seat, settings)
        if chosen_value is None or value > chosen_value:
            chosen, chosen_value = turn, value
        if (
            time.thread_time() - cpu_start > settings.budget
            or time.perf_counter() - wall_start > settings.wall_cap
        ):
            break
    return chosen

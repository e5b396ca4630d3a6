"""Bot players. They choose turns with the shared engine and nothing else.

- ``easy``: a random scoring turn (one per distinct scoring core), as a beginner plays.
- ``medium``: the most points for itself this turn (exact), ties broken at random.
- ``hard``: looks further: the best few turns for itself, each followed by what a greedy player
  would answer, up to its own next turn; it counts what a turn hands the others and whether the
  game ends on the way (see ``hard_turn``). ``python -m bench.bots_bench`` measures it.
- ``expert``: plans beyond its turn with a fixed amount of work, not time: many candidates (its
  best cores, and some filled up to spoil the next player's best), each followed by every other
  player's best reply and its own best turn after them (``games.engine.expert``).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from games.engine import Position, Turn
from games.engine.expert import ExpertSettings, expert_turn
from games.engine.search import best_turns, scoring_turns

LEVELS = ("easy", "medium", "hard", "expert")

WIN = 10_000
"""The value of a line that ends the game with the bot alone in first place (plus its lead)."""


def choose_turn(
    position: Position,
    level: str,
    rng: random.Random | None = None,
    hard: HardSettings | None = None,
    expert: ExpertSettings | None = None,
) -> Turn | None:
    """The turn a bot of ``level`` plays in ``position`` (None when it has no scoring turn).

    The position is left as it was. ``hard`` and ``expert`` tune those levels (tests,
    benchmarks)."""
    rng = rng or random.Random()
    if level == "easy":
        return easy_turn(position, rng)
    if level == "hard":
        return hard_turn(position, rng, hard)
    if level == "expert":
        return expert_turn(position, rng, expert)
    return medium_turn(position, rng)


def easy_turn(position: Position, rng: random.Random) -> Turn | None:
    turns = scoring_turns(position, rng)
    return rng.choice(turns)[1] if turns else None


def medium_turn(position: Position, rng: random.Random) -> Turn | None:
    _points, turns = best_turns(position, ties=True, rng=rng)
    return rng.choice(turns) if turns else None


@dataclass(frozen=True)
class HardSettings:
    """How far the hard bot looks. The defaults think about half a second of CPU per turn."""

    width: int = 8
    """Candidate turns looked at, best own points first."""
    min_width: int = 3
    """Candidates looked at whatever the time."""
    deep: int = 3
    """Candidates (the best after the next player's reply) followed to the bot's next turn."""
    follow_weight: float = 0.5
    """Weight of the bot's own best turn once the others have replied."""
    mean_weight: float = 0.0
    """Weight of the lead over the mean of the others (besides the lead over the best other)."""
    budget: float = 0.5
    """CPU seconds (this thread's) after which no further candidate is looked at."""
    screen_share: float = 0.6
    """Share of the budget the first pass (the next player's reply) may use."""
    wall_cap: float = 1.5
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


@dataclass
class _Line:
    """A candidate turn and the best replies that follow it, with the value of where it leads."""

    turns: list[Turn]
    value: float = 0.0
    over: bool = False
    """The game ends on the way: the value is the result."""


def _extend(
    pos: Position, line: _Line, seat: int, settings: HardSettings, *, replies: int, follow: bool
) -> None:
    """Follow ``line`` by up to ``replies`` more best replies (never past the bot's own turn)
    and value where it leads: the result if the game ended, else the bot's lead, plus (with
    ``follow``, at the bot's turn) its best points then, weighted. The position is restored."""
    for turn in line.turns:
        pos.play(turn)
    played = len(line.turns)
    try:
        while replies > 0 and not pos.over and pos.to_move != seat:
            _points, best = best_turns(pos)
            if not best:  # cannot happen: the game is over when no scoring turn is left
                break
            pos.play(best[0])
            line.turns.append(best[0])
            played += 1
            replies -= 1
        if pos.over:
            line.value, line.over = _terminal(pos, seat), True
            return
        line.value = _margin(pos, seat, settings.mean_weight)
        if follow and pos.to_move == seat and settings.follow_weight:
            points, _turns = best_turns(pos)
            line.value += settings.follow_weight * points
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
    """Look at the best few turns for the bot, each followed by the others' best replies (what
    a greedy player would answer) up to the bot's next turn; play the one that leads furthest
    ahead, or that wins when the game ends on the way.

    First pass: every candidate with the next player's reply only (cheap, and often enough: it
    is who profits from what the turn opens up). Second pass: the ``deep`` best of those with
    the rest of the round and the bot's own next turn. Both passes stop at the time budget."""
    settings = settings or HardSettings()
    cpu_start, wall_start = time.thread_time(), time.perf_counter()

    def spent(share: float = 1.0) -> bool:
        return (
            time.thread_time() - cpu_start > settings.budget * share
            or time.perf_counter() - wall_start > settings.wall_cap * share
        )

    pos = position.copy()
    seat = pos.to_move
    if seat is None:
        return None
    candidates = hard_candidates(pos, rng, settings.width)
    if not candidates:
        return None
    lines: list[_Line] = []
    for index, (_gain, turn) in enumerate(candidates):
        if index >= settings.min_width:
            # Past its share of the budget the first pass stops, unless every line so far loses
            # (then it goes on to the whole budget, looking for a turn that does not).
            losing = max(line.value for line in lines) < -WIN / 2
            if spent() or (spent(settings.screen_share) and not losing):
                break
        line = _Line([turn])
        _extend(pos, line, seat, settings, replies=1, follow=False)
        lines.append(line)
    # Stable sort: on equal values the turn scoring more for the bot comes first.
    lines.sort(key=lambda line: -line.value)
    chosen = lines[0]
    deepened: list[_Line] = []
    for line in lines[: settings.deep]:
        if spent():
            break
        if not line.over:
            _extend(pos, line, seat, settings, replies=pos.players, follow=True)
        deepened.append(line)
    if deepened:
        chosen = max(deepened, key=lambda line: line.value)
    return chosen.turns[0]

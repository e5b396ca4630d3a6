"""Exact search over the turns of a position: the best turn, the top turns, the scoring turns.

Built on ``scoring`` (the placements' search primitives and ``has_scoring_turn``, which the
position itself needs, so they live below it). Why it is cheap: see ``scoring``. The best-turn
search

1. enumerates every *component*: a set of one to three placements, each linked to an earlier one;
2. combines components that are not linked, best first, bounded by the sum of their points;
3. pads the chosen core with legal placements that score nothing to three placements.

Every candidate turn is checked by playing it on the position, so what is returned is legal.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass

from games.engine.notation import Cell, Turn
from games.engine.position import Position
from games.engine.scoring import (
    Searcher,
    Step,
    _cells_of,
    _exhaustive_best,
    _opening,
    frontier,
    has_scoring_turn,
    legal_turns,
    to_turn,
)
from games.engine.variants import SHADOW, SUN

_TIE_LIMIT = 64

__all__ = [
    "BestTurn",
    "best_turn",
    "best_turns",
    "has_scoring_turn",
    "legal_turns",
    "random_turn",
    "scoring_turns",
]


class _Searcher(Searcher):
    """The component search of ``scoring``, with the combining that finds the best cores and
    completes them into turns."""

    def best_cores(self, ties: bool = False) -> tuple[int, list[tuple[Step, ...]]]:
        """The maximum gain, and the cores that reach it (several, up to a limit, with ``ties``)."""
        best = 0
        cores: list[tuple[Step, ...]] = []
        limit = _TIE_LIMIT if ties else 1

        def offer(gain: int, order: tuple[Step, ...]) -> None:
            nonlocal best, cores
            if gain > best:
                best, cores = gain, [order]
            elif gain == best and len(cores) < limit:
                cores.append(order)

        def hopeless(total: int) -> bool:
            return total < best or (total == best and len(cores) >= limit)

        self.combine(offer, hopeless)
        return best, cores

    def top_cores(self, count: int) -> list[tuple[int, tuple[Step, ...]]]:
        """The ``count`` best distinct cores (sets of scoring placements) with their gains, best
        first."""
        kept: dict[frozenset[Step], tuple[int, tuple[Step, ...]]] = {}

        def floor() -> int:
            return min(gain for gain, _ in kept.values()) if len(kept) >= count else 0

        def offer(gain: int, order: tuple[Step, ...]) -> None:
            key = frozenset(order)
            if key in kept or gain <= 0:
                return
            if len(kept) >= count:
                if gain <= floor():
                    return
                worst = min(kept, key=lambda k: kept[k][0])
                del kept[worst]
            kept[key] = (gain, order)

        def hopeless(total: int) -> bool:
            return len(kept) >= count and total <= floor()

        self.combine(offer, hopeless)
        return sorted(kept.values(), key=lambda item: -item[0])

    def combine(
        self,
        offer: Callable[[int, tuple[Step, ...]], None],
        hopeless: Callable[[int], bool],
    ) -> None:
        """Offer every undominated component, and every union of two or three components that
        are not linked (played in a legal order), best first; ``hopeless(bound)`` prunes."""
        useful = _undominated(self.components())
        useful.sort(key=lambda item: -item[0])
        for gain, order in useful:
            offer(gain, order)
        count = len(useful)
        for i in range(count):
            gain_a, order_a = useful[i]
            if hopeless(gain_a + useful[0][0]):
                break
            for j in range(i + 1, count):
                gain_b, order_b = useful[j]
                if hopeless(gain_a + gain_b):
                    break
                if len(order_a) + len(order_b) > 3 or _overlap(order_a, order_b):
                    continue
                self._offer_union(offer, (order_a, order_b))
                if len(order_a) + len(order_b) == 2:
                    for k in range(j + 1, count):
                        gain_c, order_c = useful[k]
                        if hopeless(gain_a + gain_b + gain_c):
                            break
                        if len(order_c) != 1 or _overlap(order_a + order_b, order_c):
                            continue
                        self._offer_union(offer, (order_a, order_b, order_c))

    def _offer_union(
        self, offer: Callable[[int, tuple[Step, ...]], None], parts: tuple[tuple[Step, ...], ...]
    ) -> None:
        for arrangement in itertools.permutations(parts):
            steps = tuple(step for part in arrangement for step in part)
            gain = self.play_steps(steps)
            if gain is not None:
                offer(gain, steps)
                return

    # -- completing a core into a turn ---------------------------------------------------------

    def complete(self, core: tuple[Step, ...], rng: random.Random | None = None) -> Turn | None:
        """The core followed by placements that fill the turn up to three, or None if impossible."""
        done: list[Cell] = []
        try:
            ended = False
            for index, (code, cell) in enumerate(core):
                if not self.try_put(code, cell):
                    return None
                done.append(cell)
                ended = self.ends(code)
                if ended and index != len(core) - 1:
                    return None
            steps = list(core)
            if not ended and len(core) < 3:
                fill = self._fill(3 - len(core), rng)
                if fill is None:
                    return None
                steps.extend(fill)
            return to_turn(steps)
        finally:
            for cell in reversed(done):
                self.pos._remove(cell)

    def _fill(self, count: int, rng: random.Random | None) -> list[Step] | None:
        """Placements that score nothing for anyone where possible (roofs first)."""
        pos = self.pos
        cells = _cells_of(frontier(pos))
        if rng is not None:
            rng.shuffle(cells)
        before = pos.worths()
        fallback: list[Step] | None = None
        for code in (self.roof, SUN, SHADOW):
            for cell in cells:
                if not self.try_put(code, cell):
                    continue
                harmless = pos.worths() == before
                rest: list[Step] | None = []
                if count > 1 and not self.ends(code):
                    rest = self._fill(count - 1, rng)
                pos._remove(cell)
                if rest is None:
                    continue
                steps = [(code, cell), *rest]
                if harmless:
                    return steps
                if fallback is None:
                    fallback = steps
        return fallback


def _overlap(a: tuple[Step, ...], b: tuple[Step, ...]) -> bool:
    return bool({cell for _, cell in a} & {cell for _, cell in b})


def _undominated(
    comps: dict[frozenset[Step], tuple[int, tuple[Step, ...]]],
) -> list[tuple[int, tuple[Step, ...]]]:
    """Scoring components that score more than every smaller component inside them."""
    useful = []
    for key, (gain, order) in comps.items():
        if gain <= 0:
            continue
        if len(key) > 1:
            subsets = (
                frozenset(sub)
                for size in range(1, len(key))
                for sub in itertools.combinations(key, size)
            )
            if any(sub in comps and comps[sub][0] >= gain for sub in subsets):
                continue
        useful.append((gain, order))
    return useful


@dataclass(frozen=True, slots=True)
class BestTurn:
    """The best turn for the player to move and the points it scores for them."""

    turn: Turn | None
    points: int


def best_turns(
    pos: Position, *, ties: bool = False, rng: random.Random | None = None
) -> tuple[int, list[Turn]]:
    """The maximum points the player to move can score, and a turn that does (with ``ties``, one
    per distinct best core, up to a limit; ``rng`` varies the filler placements)."""
    if pos.to_move is None:
        return 0, []
    if pos.is_empty and (opening := _opening(pos)):
        return 1, [opening]
    searcher = _Searcher(pos)
    with pos.tracking_only(pos.to_move):
        best, cores = searcher.best_cores(ties=ties)
    turns = [turn for core in cores if (turn := searcher.complete(core, rng)) is not None]
    if best > 0 and not turns:  # no core can be filled to a legal turn: fall back to exhaustive
        return _exhaustive_best(pos)
    return (best, turns) if turns else (0, [])


def best_turn(pos: Position) -> BestTurn:
    """A legal turn scoring the most points any legal turn can for the player to move (exact).

    >>> pos = Position(players=2, board=["S1##"])
    >>> best_turn(pos).points
    6
    """
    points, turns = best_turns(pos)
    return BestTurn(turns[0] if turns else None, points)


def scoring_turns(pos: Position, rng: random.Random) -> list[tuple[int, Turn]]:
    """One turn for each distinct scoring core, with its points (for players that choose
    among scoring turns rather than the best one)."""
    if pos.to_move is None:
        return []
    if pos.is_empty:
        opening = _opening(pos)
        return [(1, opening)] if opening else []
    searcher = _Searcher(pos)
    with pos.tracking_only(pos.to_move):
        cores = _undominated(searcher.components())
    result = []
    for gain, core in cores:
        turn = searcher.complete(core, rng)
        if turn is not None:
            result.append((gain, turn))
    return result


def random_turn(pos: Position, rng: random.Random, tries: int = 200) -> Turn | None:
    """A random legal turn (scoring or not) by sampling placements; None if none was found."""
    if pos.to_move is None:
        return None
    searcher = _Searcher(pos)
    for _ in range(tries):
        steps: list[Step] = []
        for _ in range(3):
            options = [(code, cell) for cell in _cells_of(frontier(pos)) for code in searcher.codes]
            rng.shuffle(options)
            placed = next((o for o in options if searcher.try_put(*o)), None)
            if placed is None:
                break
            steps.append(placed)
            if searcher.ends(placed[0]):
                break
        complete = len(steps) == 3 or (steps and searcher.ends(steps[-1][0]))
        gain = searcher.gain()
        for _, cell in reversed(steps):
            pos._remove(cell)
        if complete and gain > 0:
            return to_turn(steps)
    return None

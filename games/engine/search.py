"""Exact search over the turns of a position: the best turn, and whether any turn scores.

Why it is cheap. Siestas never span an empty cell, so two placements can only change each other's
points (or legality) when they end up in one filled run of a row or column, or when a horizontal
siesta through one and a vertical siesta through the other (both the mover's) cross on a shadow
(``standard``). Call such placements *linked*. Placements that are not linked add their points
independently. So the search

1. enumerates every *component*: a set of one to three placements, each linked to an earlier one
   (the next placement is only ever tried at the first empty cell past a run, or past a crossing
   siesta's run: a handful of cells instead of the whole frontier);
2. combines components that are not linked, best first, bounded by the sum of their points;
3. pads the chosen core with legal placements that score nothing to three placements.

Every candidate turn is checked by playing it on the position, so what is returned is legal.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from games.engine.notation import CELLS, SIZE, Cell, Piece, Placement, Turn
from games.engine.position import NEIGHBOUR_MASK, Position
from games.engine.variants import EMPTY, ROOF0, SHADOW, SUN

_STEPS = ((-SIZE, 0), (SIZE, 0), (-1, 1), (1, 1))
"""(cell step, 0 for a column walk / 1 for a row walk)."""

_COL_A = sum(1 << (row * SIZE) for row in range(SIZE))
_COL_L = _COL_A << (SIZE - 1)
_ALL = (1 << CELLS) - 1
_TIE_LIMIT = 64

Step = tuple[int, Cell]
"""A placement as the search handles it: (cell code, cell)."""


def _rays(cell: Cell) -> tuple[tuple[Cell, ...], ...]:
    row, col = divmod(cell, SIZE)
    up = tuple(r * SIZE + col for r in range(row - 1, -1, -1))
    down = tuple(r * SIZE + col for r in range(row + 1, SIZE))
    left = tuple(row * SIZE + c for c in range(col - 1, -1, -1))
    right = tuple(row * SIZE + c for c in range(col + 1, SIZE))
    return (up, down, left, right)


RAYS = tuple(_rays(c) for c in range(CELLS))


def frontier(pos: Position) -> int:
    """Mask of the empty cells next to a piece (every cell on an empty board)."""
    occ = pos.occupied
    if not occ:
        return _ALL
    near = (occ << SIZE) | (occ >> SIZE) | ((occ & ~_COL_L) << 1) | ((occ & ~_COL_A) >> 1)
    return near & ~occ & _ALL


def _cells_of(mask: int) -> list[Cell]:
    cells = []
    while mask:
        low = mask & -mask
        cells.append(low.bit_length() - 1)
        mask ^= low
    return cells


def to_turn(steps: tuple[Step, ...] | list[Step]) -> Turn:
    pieces = {SUN: Piece.SUN, SHADOW: Piece.SHADOW}
    return Turn(tuple(Placement(pieces.get(code, Piece.ROOF), cell) for code, cell in steps))


class _Searcher:
    """Enumerates scoring components for the player to move. Uses the position as scratch space
    and always restores it."""

    def __init__(self, pos: Position) -> None:
        if pos.to_move is None:
            raise ValueError("the game is over")
        self.pos = pos
        self.seat = pos.to_move - 1
        self.roof = ROOF0 + self.seat
        self.codes = (SUN, self.roof, SHADOW)
        self.base = pos._worth(self.seat)
        self.crossing = pos.rules.crossing_bonus

    # -- primitive moves on the scratch position -----------------------------------------

    def try_put(self, code: int, cell: Cell) -> bool:
        """Place if legal right now (adjacency, supply, sun/shadow, siesta); False otherwise."""
        pos = self.pos
        if pos.cells[cell] != EMPTY:
            return False
        nb = NEIGHBOUR_MASK[cell]
        if pos.occupied and not nb & pos.occupied:
            return False
        if code == SUN:
            if pos.suns <= 0 or nb & pos.shadow_mask:
                return False
        elif code == SHADOW:
            # A shadow in a siesta touches a roof or another shadow.
            if pos.shadows <= 0 or nb & pos.sun_mask or not nb & pos.occupied & ~pos.sun_mask:
                return False
        elif pos.roofs[self.seat] <= 0:
            return False
        pos._put(code, cell)
        if code == SHADOW and not pos.in_siesta(cell):
            pos._remove(cell)
            return False
        return True

    def ends(self, code: int) -> bool:
        pos = self.pos
        if code == SUN:
            return pos.suns == 0
        if code == SHADOW:
            return pos.shadows == 0
        return pos.roofs[self.seat] == 0

    def gain(self) -> int:
        return self.pos._worth(self.seat) - self.base

    def play_steps(self, steps: tuple[Step, ...]) -> int | None:
        """Play steps in order with the full rules (nothing after a game-ending placement).
        Returns the gain, or None if illegal; the position is restored either way."""
        done: list[Cell] = []
        ok = True
        for index, (code, cell) in enumerate(steps):
            if not self.try_put(code, cell):
                ok = False
                break
            done.append(cell)
            if self.ends(code) and index != len(steps) - 1:
                ok = False
                break
        result = self.gain() if ok else None
        for cell in reversed(done):
            self.pos._remove(cell)
        return result

    # -- components ------------------------------------------------------------------------

    def linked_cells(self, placed: list[Step]) -> set[Cell]:
        """Empty cells where a placement would be linked to one of ``placed``."""
        cells = self.pos.cells
        found: set[Cell] = set()
        for _, cell in placed:
            for ray in RAYS[cell]:
                for nxt in ray:
                    if cells[nxt] == EMPTY:
                        found.add(nxt)
                        break
            if self.crossing:
                self._crossing_cells(cell, found)
        return found

    def _crossing_cells(self, cell: Cell, found: set[Cell]) -> None:
        """Run ends through the mover's siesta shadows in the runs of ``cell``: a placement there
        can make a siesta that crosses one of ours on a shadow."""
        pos, cells, seat = self.pos, self.pos.cells, self.seat
        row, col = divmod(cell, SIZE)
        row_mask = pos._rows[row].covered1[seat]
        col_mask = pos._cols[col].covered1[seat]
        for index, ray in enumerate(RAYS[cell]):
            along_row = index >= 2
            mask = row_mask if along_row else col_mask
            if not mask:
                continue
            for nxt in itertools.chain((cell,), ray):
                if cells[nxt] == EMPTY:
                    break
                bit = nxt % SIZE if along_row else nxt // SIZE
                if mask >> bit & 1:
                    for cross in RAYS[nxt][2:] if not along_row else RAYS[nxt][:2]:
                        for far in cross:
                            if cells[far] == EMPTY:
                                found.add(far)
                                break

    def components(self) -> dict[frozenset[Step], tuple[int, tuple[Step, ...]]]:
        """Every linked set of one to three placements with its gain and a legal order.

        Game ends are ignored while enumerating (so that a set whose ending placement links the
        others is still found) and enforced afterwards by reordering."""
        found: dict[frozenset[Step], tuple[int, tuple[Step, ...]]] = {}
        pending: list[frozenset[Step]] = []
        for cell in _cells_of(frontier(self.pos)):
            for code in self.codes:
                if self.try_put(code, cell):
                    step = (code, cell)
                    key = frozenset((step,))
                    ended = self.ends(code)
                    found[key] = (self.gain(), (step,))
                    self._grow([step], found, pending, ended)
                    self.pos._remove(cell)
        for key in pending:
            gain, _ = found[key]
            order = self._legal_order(key) if gain > 0 else None
            if order is None:
                del found[key]
            else:
                found[key] = (gain, order)
        return found

    def _grow(
        self,
        placed: list[Step],
        found: dict[frozenset[Step], tuple[int, tuple[Step, ...]]],
        pending: list[frozenset[Step]],
        ended: bool,
    ) -> None:
        if len(placed) == 3 or self.pos.is_empty:
            return
        for cell in self.linked_cells(placed):
            for code in self.codes:
                step = (code, cell)
                key = frozenset((*placed, step))
                if key in found or not self.try_put(code, cell):
                    continue
                now_ended = ended or self.ends(code)
                order = (*placed, step)
                found[key] = (self.gain(), order)
                if ended:
                    pending.append(key)
                self._grow([*placed, step], found, pending, now_ended)
                self.pos._remove(cell)

    def _legal_order(self, key: frozenset[Step]) -> tuple[Step, ...] | None:
        for order in itertools.permutations(key):
            if self.play_steps(order) is not None:
                return order
        return None

    # -- existence -------------------------------------------------------------------------

    def any_scoring_turn(self) -> bool | None:
        """True as soon as a scoring component completes into a scoring turn; False when no
        component scores; None when some score but none completed (the caller decides)."""
        scored = False
        seen: set[frozenset[Step]] = set()
        level: list[tuple[Step, ...]] = []
        for cell in _cells_of(frontier(self.pos)):
            for code in self.codes:
                if self.try_put(code, cell):
                    gain = self.gain()
                    self.pos._remove(cell)
                    level.append(((code, cell),))
                    if gain > 0:
                        scored = True
                        if self._completes(((code, cell),)):
                            return True
        for _size in (2, 3):
            grown: list[tuple[Step, ...]] = []
            for order in level:
                scoring = self._grow_once(order, seen, grown)
                for key in scoring:
                    scored = True
                    if any(self._completes(o) for o in itertools.permutations(key)):
                        return True
            level = grown
        return None if scored else False

    def _grow_once(
        self, order: tuple[Step, ...], seen: set[frozenset[Step]], grown: list[tuple[Step, ...]]
    ) -> list[tuple[Step, ...]]:
        """Add to ``grown`` each unseen component of ``order`` plus one linked placement (game
        ends ignored, as while enumerating); return those that score."""
        placed: list[Cell] = []
        scoring: list[tuple[Step, ...]] = []
        try:
            for code, cell in order:
                if not self.try_put(code, cell):  # pragma: no cover - orders are built playable
                    return scoring
                placed.append(cell)
            for cell in self.linked_cells(list(order)):
                for code in self.codes:
                    step = (code, cell)
                    key = frozenset((*order, step))
                    if key in seen or not self.try_put(code, cell):
                        continue
                    seen.add(key)
                    gain = self.gain()
                    self.pos._remove(cell)
                    grown.append((*order, step))
                    if gain > 0:
                        scoring.append((*order, step))
        finally:
            for cell in reversed(placed):
                self.pos._remove(cell)
        return scoring

    def _completes(self, core: tuple[Step, ...]) -> bool:
        """Whether ``core``, played in this order, can be filled up into a legal turn that scores
        for the mover (a depth-first search that stops at the first)."""
        done: list[Cell] = []
        try:
            for index, (code, cell) in enumerate(core):
                if not self.try_put(code, cell):
                    return False
                done.append(cell)
                if self.ends(code):
                    return index == len(core) - 1 and self.gain() > 0
            return self._fill_scores(3 - len(core))
        finally:
            for cell in reversed(done):
                self.pos._remove(cell)

    def _fill_scores(self, count: int) -> bool:
        if count == 0:
            return self.gain() > 0
        for cell in _cells_of(frontier(self.pos)):
            for code in (self.roof, SUN, SHADOW):
                if not self.try_put(code, cell):
                    continue
                try:
                    if self.ends(code):
                        if self.gain() > 0:
                            return True
                    elif self._fill_scores(count - 1):
                        return True
                finally:
                    self.pos._remove(cell)
        return False

    # -- combining ---------------------------------------------------------------------------

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


def _opening(pos: Position) -> Turn | None:
    """On an empty board the best turn is a siesta of one shadow; no search needed."""
    seat = (pos.to_move or 1) - 1
    if pos.suns >= 2 and pos.shadows >= 1 and pos.roofs[seat] >= 2:
        return Turn.parse("SE6 RF6 HG6")
    return None


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


def has_scoring_turn(pos: Position) -> bool:
    """Whether the player to move has any legal turn that scores them at least one point.

    An existence search that stops at the first scoring turn it finds. A scoring turn's placements
    split into linked components whose gains add up, so one of them scores on its own: the search
    grows components by size (every single placement, then pairs, then triples), and tries to
    complete each scoring one into a whole legal turn that still scores. When no component scores
    there is no scoring turn; when some score but none completes (rare: supplies nearly empty),
    brute force decides.

    >>> has_scoring_turn(Position(players=2, board=["S1.."]))
    True
    """
    if pos.to_move is None:
        return False
    if pos.is_empty:
        return _opening(pos) is not None or _exhaustive_best(pos)[0] > 0
    searcher = _Searcher(pos)
    with pos.tracking_only(pos.to_move):
        found = searcher.any_scoring_turn()
    if found is None:
        return next(legal_turns(pos), None) is not None
    return found


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


def legal_turns(pos: Position) -> Iterator[tuple[Turn, int]]:
    """Every legal turn of the player to move with its points for them, by brute force.

    Slow (a mid-game position has hundreds of thousands): for tests and checks."""
    if pos.to_move is None:
        return
    searcher = _Searcher(pos)
    yield from _walk(searcher, [])


def _walk(searcher: _Searcher, steps: list[Step]) -> Iterator[tuple[Turn, int]]:
    pos = searcher.pos
    for cell in _cells_of(frontier(pos)):
        for code in searcher.codes:
            if not searcher.try_put(code, cell):
                continue
            steps.append((code, cell))
            if searcher.ends(code) or len(steps) == 3:
                gain = searcher.gain()
                if gain > 0:
                    yield to_turn(steps), gain
            else:
                yield from _walk(searcher, steps)
            steps.pop()
            pos._remove(cell)


def _exhaustive_best(pos: Position) -> tuple[int, list[Turn]]:
    best, turns = 0, []
    for turn, gain in legal_turns(pos):
        if gain > best:
            best, turns = gain, [turn]
    return best, turns


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

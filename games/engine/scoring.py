"""Whether the player to move has a scoring turn, and the placement search it shares with
``search``.

The position asks this after every turn (a player with no scoring turn ends the game: RULES.md,
End), so the module sits below the position: it imports the notation, the geometry and the
variants' piece codes, never ``position``. What it needs of a position is the ``Board`` protocol
below, which ``Position`` satisfies (mypy checks it where the position calls
``has_scoring_turn(self)``). ``search`` (the best turn) builds on the ``Searcher`` defined here.
The module graph stays acyclic: notation, geometry ← scoring ← position ← search ← study.

How the search works (why it is cheap). Siestas never span an empty cell, so two placements can
only change each other's points (or legality) when they end up in one filled run of a row or
column, or when a horizontal siesta through one and a vertical siesta through the other (both the
mover's) cross on a shadow (``standard``). Call such placements *linked*. Placements that are not
linked add their points independently. So a search enumerates *components*: sets of one to three
placements, each linked to an earlier one (the next placement is only ever tried at the first
empty cell past a run, or past a crossing siesta's run: a handful of cells instead of the whole
frontier). Every candidate turn is checked by playing it on the position, so what is returned is
legal.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from games.engine.geometry import NEIGHBOUR_MASK, RAYS
from games.engine.notation import CELLS, SIZE, Cell, Piece, Placement, Turn
from games.engine.variants import EMPTY, ROOF0, SHADOW, SUN, LineScore, Rules

_COL_A = sum(1 << (row * SIZE) for row in range(SIZE))
_COL_L = _COL_A << (SIZE - 1)
_ALL = (1 << CELLS) - 1

Step = tuple[int, Cell]
"""A placement as the search handles it: (cell code, cell)."""


class Board(Protocol):
    """What the search reads and changes of a position (``Position`` is one). The search uses
    the position as scratch space: it places with ``_put`` and always restores with ``_remove``."""

    @property
    def to_move(self) -> int | None: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def cells(self) -> Sequence[int]: ...
    @property
    def occupied(self) -> int: ...
    @property
    def sun_mask(self) -> int: ...
    @property
    def shadow_mask(self) -> int: ...
    @property
    def suns(self) -> int: ...
    @property
    def shadows(self) -> int: ...
    @property
    def roofs(self) -> Sequence[int]: ...
    @property
    def _rows(self) -> Sequence[LineScore]: ...
    @property
    def _cols(self) -> Sequence[LineScore]: ...
    @property
    def is_empty(self) -> bool: ...
    def _worth(self, s: int) -> int: ...
    def worths(self) -> tuple[int, ...]: ...
    def _put(self, code: int, cell: Cell) -> None: ...
    def _remove(self, cell: Cell) -> None: ...
    def in_siesta(self, cell: Cell) -> bool: ...
    def tracking_only(self, seat: int) -> AbstractContextManager[None]: ...


def frontier(pos: Board) -> int:
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


class Searcher:
    """Enumerates scoring components for the player to move. Uses the position as scratch space
    and always restores it."""

    def __init__(self, pos: Board) -> None:
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
        return self.components_from(_cells_of(frontier(self.pos)))

    def components_from(
        self, cells: Sequence[Cell]
    ) -> dict[frozenset[Step], tuple[int, tuple[Step, ...]]]:
        """The components whose first placement is on one of ``cells`` (``components``: every
        frontier cell; a search that knows what changed can start from fewer)."""
        found: dict[frozenset[Step], tuple[int, tuple[Step, ...]]] = {}
        pending: list[frozenset[Step]] = []
        for cell in cells:
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


def _opening(pos: Board) -> Turn | None:
    """On an empty board the best turn is a siesta of one shadow; no search needed."""
    seat = (pos.to_move or 1) - 1
    if pos.suns >= 2 and pos.shadows >= 1 and pos.roofs[seat] >= 2:
        return Turn.parse("SE6 RF6 HG6")
    return None


def has_scoring_turn(pos: Board) -> bool:
    """Whether the player to move has any legal turn that scores them at least one point.

    An existence search that stops at the first scoring turn it finds. A scoring turn's placements
    split into linked components whose gains add up, so one of them scores on its own: the search
    grows components by size (every single placement, then pairs, then triples), and tries to
    complete each scoring one into a whole legal turn that still scores. When no component scores
    there is no scoring turn; when some score but none completes (rare: supplies nearly empty),
    brute force decides.

    >>> from games.engine.position import Position
    >>> has_scoring_turn(Position(players=2, board=["S1.."]))
    True
    """
    if pos.to_move is None:
        return False
    if pos.is_empty:
        return _opening(pos) is not None or _exhaustive_best(pos)[0] > 0
    searcher = Searcher(pos)
    with pos.tracking_only(pos.to_move):
        found = searcher.any_scoring_turn()
    if found is None:
        return next(legal_turns(pos), None) is not None
    return found


def legal_turns(pos: Board) -> Iterator[tuple[Turn, int]]:
    """Every legal turn of the player to move with its points for them, by brute force.

    Slow (a mid-game position has hundreds of thousands): for tests and checks."""
    if pos.to_move is None:
        return
    searcher = Searcher(pos)
    yield from _walk(searcher, [])


def _walk(searcher: Searcher, steps: list[Step]) -> Iterator[tuple[Turn, int]]:
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


def _exhaustive_best(pos: Board) -> tuple[int, list[Turn]]:
    best, turns = 0, []
    for turn, gain in legal_turns(pos):
        if gain > best:
            best, turns = gain, [turn]
    return best, turns

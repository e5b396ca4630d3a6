"""Studying positions: the best few turns, how far a turn in progress can still go, whether a
hand-made setup could arise in a game, and what a turn does (for puzzles and the analysis board).

>>> pos = Position(players=2, board=["S1##"])
>>> [(points, str(turn)) for points, turn in top_turns(pos, 2)][0][0]
6
>>> reach = turn_reach(pos, "HE1")
>>> reach.points[0], reach.reachable
(1, 6)
>>> check_setup(Position(players=2, board=["S#"], check_start=False))
Traceback (most recent call last):
...
games.engine.errors.SetupError: a sun at A1 is next to a shadow (B1)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from games.engine.errors import SetupError
from games.engine.geometry import NEIGHBOUR_MASK
from games.engine.notation import BOARD_CHARS, CELLS, SIZE, Turn, cell_name, read_board
from games.engine.position import (
    ROOFS_PER_PLAYER,
    TOTAL_SHADOWS,
    TOTAL_SUNS,
    Position,
    Termination,
)
from games.engine.scoring import _cells_of, frontier, to_turn
from games.engine.search import _Searcher, best_turns
from games.engine.variants import ROOF0, SHADOW, SUN, line_siesta_spans, line_siestas


def top_turns(
    pos: Position, count: int = 5, rng: random.Random | None = None
) -> list[tuple[int, Turn]]:
    """Up to ``count`` turns with distinct scoring cores, the most points for the mover first.
    The first one always scores the exact maximum (what :func:`best_turn` finds)."""
    if pos.to_move is None or count < 1:
        return []
    best, best_list = best_turns(pos)
    if not best_list:
        return []
    if pos.is_empty:
        return [(best, best_list[0])]
    searcher = _Searcher(pos)
    with pos.tracking_only(pos.to_move):
        cores = searcher.top_cores(count)
    found: list[tuple[int, Turn]] = []
    seen: set[frozenset[str]] = set()
    for gain, core in cores:
        turn = searcher.complete(core, rng)
        if turn is None:
            continue
        key = frozenset(str(p) for p in turn.placements)
        if key not in seen:
            seen.add(key)
            found.append((gain, turn))
    if not found or found[0][0] < best:  # a best core that completes only in another order
        found.insert(0, (best, best_list[0]))
    return found[:count]


def solution_cores(pos: Position) -> tuple[int, list[Turn]]:
    """The maximum points for the mover and every distinct set of placements that scores it (up
    to a limit), without the filler placements that complete a turn."""
    if pos.to_move is None:
        return 0, []
    best, turns = best_turns(pos)
    if not turns or pos.is_empty:
        return best, turns
    searcher = _Searcher(pos)
    with pos.tracking_only(pos.to_move):
        points, cores = searcher.best_cores(ties=True)
    if points != best:
        return best, turns
    return best, [to_turn(core) for core in cores]


def single_best(pos: Position) -> int:
    """The most points one placement scores the mover on its own (the "obvious" idea)."""
    if pos.to_move is None:
        return 0
    searcher = _Searcher(pos)
    best = 0
    with pos.tracking_only(pos.to_move):
        for cell in _cells_of(frontier(pos)):
            for code in searcher.codes:
                if searcher.try_put(code, cell):
                    best = max(best, searcher.gain())
                    pos._remove(cell)
    return best


@dataclass(frozen=True, slots=True)
class Reach:
    """A turn in progress: what it scores so far per seat, the most the mover can still reach by
    completing it legally (0 when no completion scores), and the end its placements cause."""

    points: tuple[int, ...]
    reachable: int
    end: Termination | None


def turn_reach(pos: Position, partial: Turn | str) -> Reach:
    """Check one to three placements for the mover (raises :class:`IllegalMoveError` naming the
    cell) and find the most a legal turn starting with them scores (exact, by brute force over
    the one or two placements left). The position is left as it was."""
    seat = pos._seat_to_move()
    turn = Turn.parse(partial) if isinstance(partial, str) else partial
    before = pos.worths()
    ended = pos._place_turn(turn, seat)
    try:
        points = tuple(a - b for a, b in zip(pos.worths(), before, strict=True))
        so_far = points[seat - 1]
        if ended is not None or len(turn) == 3:
            reachable = so_far if so_far >= 1 else 0
        else:
            searcher = _Searcher(pos)
            with pos.tracking_only(seat):
                extra = _most(searcher, 3 - len(turn))
            reachable = so_far + extra if extra is not None and so_far + extra >= 1 else 0
    finally:
        for placement in reversed(turn.placements):
            pos._remove(placement.cell)
    return Reach(points, reachable, ended)


def _most(searcher: _Searcher, left: int) -> int | None:
    """The largest gain of ``left`` more legal placements (fewer if one ends the game), or None
    when they cannot be placed."""
    pos = searcher.pos
    best: int | None = None
    for cell in _cells_of(frontier(pos)):
        for code in searcher.codes:
            if not searcher.try_put(code, cell):
                continue
            if left == 1 or searcher.ends(code):
                gain: int | None = searcher.gain()
            else:
                gain = _most(searcher, left - 1)
            pos._remove(cell)
            if gain is not None and (best is None or gain > best):
                best = gain
    return best


def check_setup(pos: Position) -> None:
    """Raise :class:`SetupError` naming a cell when the position could not arise in a game:
    a sun next to a shadow, a shadow in no siesta, a piece not joined to the others, or more
    pieces (on the board and in the supply) than the game has."""
    cells = pos.cells
    for cell in range(CELLS):
        code = cells[cell]
        if code == SUN and NEIGHBOUR_MASK[cell] & pos.shadow_mask:
            other = next(n for n in _cells_of(NEIGHBOUR_MASK[cell] & pos.shadow_mask))
            raise SetupError(
                f"a sun at {cell_name(cell)} is next to a shadow ({cell_name(other)})",
                cell_name(cell),
            )
        if code == SHADOW and not pos.in_siesta(cell):
            raise SetupError(
                f"the shadow at {cell_name(cell)} is not part of any siesta", cell_name(cell)
            )
    if pos.occupied:
        start = pos.occupied & -pos.occupied
        joined = start
        while True:
            near = 0
            for cell in _cells_of(joined):
                near |= NEIGHBOUR_MASK[cell]
            grown = joined | (near & pos.occupied)
            if grown == joined:
                break
            joined = grown
        loose = pos.occupied & ~joined
        if loose:
            name = cell_name(_cells_of(loose)[0])
            raise SetupError(
                f"the piece at {name} is not joined to the others: every piece is placed next "
                "to one already on the board",
                name,
            )
    on_board = {"suns": bin(pos.sun_mask).count("1"), "shadows": bin(pos.shadow_mask).count("1")}
    for name, total, left in (
        ("suns", TOTAL_SUNS, pos.suns),
        ("shadows", TOTAL_SHADOWS, pos.shadows),
    ):
        if on_board[name] + left > total:
            raise SetupError(
                f"{on_board[name]} {name} on the board and {left} in the supply: the game has "
                f"only {total}"
            )
    for index, left in enumerate(pos.roofs):
        placed = sum(1 for code in cells if code == ROOF0 + index)
        if placed + left > ROOFS_PER_PLAYER:
            raise SetupError(
                f"seat {index + 1} has {placed} roofs on the board and {left} left: a player "
                f"has only {ROOFS_PER_PLAYER}"
            )


@dataclass(frozen=True, slots=True)
class TurnFeatures:
    """What a legal turn does for its player (the themes of a puzzle come from these)."""

    points: tuple[int, ...]
    doubles: int
    """Double Siestas in one line (S R H R S) the turn adds for its player."""
    crossings: int
    """Double Siestas of a row and a column crossing on a shadow (``standard``) it adds."""
    rows: int
    """Rows in which the turn scores its player points."""
    columns: int
    """Columns in which the turn scores its player points."""
    end: Termination | None


def _bonuses(pos: Position, seat: int) -> tuple[int, int]:
    """(bonus points inside lines, crossing bonus points) of the board for ``seat``."""
    lines = pos._line_points[seat - 1]
    return lines - plain_worth(pos, seat), pos.worth(seat) - lines


def turn_features(pos: Position, turn: Turn | str) -> TurnFeatures:
    """Play ``turn`` (raising :class:`IllegalMoveError` if illegal), look, and take it back."""
    seat = pos._seat_to_move()
    s = seat - 1
    rows_before = [line.points[s] for line in pos._rows]
    cols_before = [line.points[s] for line in pos._cols]
    line_before, cross_before = _bonuses(pos, seat)
    points = pos.play(turn, check_end=False)
    try:
        rows = sum(1 for a, b in zip(pos._rows, rows_before, strict=True) if a.points[s] > b)
        cols = sum(1 for a, b in zip(pos._cols, cols_before, strict=True) if a.points[s] > b)
        line_after, cross_after = _bonuses(pos, seat)
        end = pos.end
    finally:
        pos.undo()
    return TurnFeatures(
        points,
        max(0, (line_after - line_before) // 2),
        max(0, (cross_after - cross_before) // 2),
        rows,
        cols,
        end,
    )


def plain_worth(pos: Position, seat: int) -> int:
    """The board's worth to ``seat`` without any Double Siesta bonus: shadows of its siestas."""
    total = 0
    lines = [tuple(pos.cells[r * SIZE : r * SIZE + SIZE]) for r in range(SIZE)]
    lines += [tuple(pos.cells[c::SIZE]) for c in range(SIZE)]
    for line in lines:
        for siesta in line_siestas(line):
            if siesta.owners >> (seat - 1) & 1:
                total += siesta.last - siesta.first + 1
    return total


def siesta_counts(board: Sequence[str]) -> list[str]:
    """How many siestas each cell of a board text is part of (as one of its suns, roofs or
    shadows), as 12 strings of digits, row 1 first: what a screen reader says of each cell.

    >>> siesta_counts(["S1#"])[0]
    '111000000000'
    """
    codes = [BOARD_CHARS.index(char) for text in read_board(board) for char in text]
    counts = [0] * CELLS
    for index in range(SIZE):
        for cells in (range(index * SIZE, (index + 1) * SIZE), range(index, CELLS, SIZE)):
            for first, last in line_siesta_spans(tuple(codes[cell] for cell in cells)):
                for i in range(first, last + 1):
                    counts[cells[i]] += 1
    return ["".join(str(n) for n in counts[row * SIZE : (row + 1) * SIZE]) for row in range(SIZE)]


def position_for(pos: Position, seat: int) -> Position:
    """The same board, supplies and scores with ``seat`` to move (history not kept)."""
    return Position(
        pos.players,
        pos.variant,
        pos.board_text(),
        to_move=seat,
        suns=pos.suns,
        shadows=pos.shadows,
        roofs=list(pos.roofs),
        scores=list(pos.scores),
        check_start=False,
    )


__all__ = [
    "Reach",
    "TurnFeatures",
    "check_setup",
    "plain_worth",
    "position_for",
    "siesta_counts",
    "single_best",
    "solution_cores",
    "top_turns",
    "turn_features",
    "turn_reach",
]

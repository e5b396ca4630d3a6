"""The position: board, supplies, scores, whose turn; placing and undoing turns.

>>> pos = Position(players=2)
>>> pos.play("SA1 RB1 HC1")
(1, 0)
>>> pos.board_text()[0]
'S1#.........'
>>> pos.to_move, pos.scores
(2, [1, 0])
>>> pos.undo()
>>> pos.to_move, pos.scores
(1, [0, 0])
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from games.engine.errors import EngineError, GameOverError, IllegalMoveError
from games.engine.geometry import NEIGHBOUR_MASK
from games.engine.notation import (
    BOARD_CHARS,
    CELLS,
    EMPTY_CHAR,
    SIZE,
    Cell,
    Piece,
    Placement,
    Turn,
    cell_name,
    read_board,
)
from games.engine.outcome import GameOutcome
from games.engine.scoring import has_scoring_turn
from games.engine.variants import EMPTY, MAX_SEATS, ROOF0, SHADOW, SUN, LineScore, rules_for

TOTAL_SUNS = 25
TOTAL_SHADOWS = 75
ROOFS_PER_PLAYER = 15

_PIECE_CODE = {Piece.SUN: SUN, Piece.SHADOW: SHADOW}
_PIECE_NAME = {SUN: "sun", SHADOW: "shadow"}
_CODES = {char: code for code, char in enumerate(BOARD_CHARS)}
"""Board character → cell code (the codec's characters are in code order)."""


SPREAD: tuple[int, ...] = tuple(
    sum(1 << (SIZE * bit) for bit in range(SIZE) if mask >> bit & 1) for mask in range(1 << SIZE)
)
"""A column's 12-bit mask (bit = row) spread onto board cells of column A."""


class Termination(enum.Enum):
    """Why a game ended (RULES.md, End)."""

    LAST_SUN = "last_sun"
    LAST_SHADOW = "last_shadow"
    LAST_ROOF = "last_roof"
    NO_SCORING_MOVE = "no_scoring_move"


@dataclass(frozen=True, slots=True)
class PlayedTurn:
    """A turn in the position's history."""

    seat: int
    turn: Turn
    points: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class _Undo:
    played: PlayedTurn
    end: Termination | None


class Position:
    """A Siesta position. Seats are 1-based in the public interface."""

    def __init__(
        self,
        players: int = 2,
        variant: str = "standard",
        board: Sequence[str] | None = None,
        *,
        to_move: int = 1,
        suns: int | None = None,
        shadows: int | None = None,
        roofs: Sequence[int] | None = None,
        scores: Sequence[int] | None = None,
        check_start: bool = True,
    ) -> None:
        """Set up a position. Missing supplies are the full supply less what is on the board;
        missing scores are the worth of the board. With ``check_start`` the game is over at once
        when the player to move has no scoring turn."""
        if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 4:
            raise EngineError(f"players must be 2, 3 or 4 (got {players!r})")
        if not isinstance(to_move, int) or isinstance(to_move, bool) or not 1 <= to_move <= players:
            raise EngineError(f"to_move must be a seat from 1 to {players} (got {to_move!r})")
        self.players = players
        self._tracked: tuple[int, ...] = tuple(range(players))
        self.rules = rules_for(variant)
        self.variant = self.rules.name
        self.cells = [EMPTY] * CELLS
        self.occupied = 0
        self.sun_mask = 0
        self.shadow_mask = 0
        empty_line = self.rules.score_line((EMPTY,) * SIZE)
        self._rows: list[LineScore] = [empty_line] * SIZE
        self._cols: list[LineScore] = [empty_line] * SIZE
        self._line_points = [0] * MAX_SEATS
        self._r1 = [0] * MAX_SEATS
        self._r2 = [0] * MAX_SEATS
        self._c1 = [0] * MAX_SEATS
        self._c2 = [0] * MAX_SEATS
        self.suns = TOTAL_SUNS
        self.shadows = TOTAL_SHADOWS
        self.roofs = [ROOFS_PER_PLAYER] * players
        self._load(_read_board(board or (), players))
        overdrawn = [
            name
            for name, left, given in (
                ("suns", self.suns, suns),
                ("shadows", self.shadows, shadows),
                ("roofs", min(self.roofs), roofs),
            )
            if left < 0 and given is None
        ]
        if overdrawn:
            raise EngineError(f"the board holds more {overdrawn[0]} than the game has")
        if suns is not None:
            self.suns = _count("suns", suns)
        if shadows is not None:
            self.shadows = _count("shadows", shadows)
        if roofs is not None:
            if len(roofs) != players:
                raise EngineError(f"roofs must list {players} numbers, one per seat")
            self.roofs = [_count("roofs", r) for r in roofs]
        if scores is None:
            self.scores = [self.worth(seat) for seat in range(1, players + 1)]
        else:
            if len(scores) != players:
                raise EngineError(f"scores must list {players} numbers, one per seat")
            self.scores = [_count("scores", s) for s in scores]
        self.to_move: int | None = to_move
        self.end: Termination | None = None
        self.history: list[PlayedTurn] = []
        self._undo: list[_Undo] = []
        if check_start:
            self._check_scoring_turn()

    # -- reading ----------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.end is not None

    @property
    def ply(self) -> int:
        """Turns played since this position was set up."""
        return len(self.history)

    @property
    def is_empty(self) -> bool:
        return self.occupied == 0

    def board_text(self) -> list[str]:
        """The board as 12 strings of 12 characters, row 1 first (RULES.md, Notation)."""
        return [
            "".join(BOARD_CHARS[code] for code in self.cells[row * SIZE : (row + 1) * SIZE])
            for row in range(SIZE)
        ]

    def supply(self) -> dict[str, object]:
        return {"suns": self.suns, "shadows": self.shadows, "roofs": list(self.roofs)}

    def worth(self, seat: int) -> int:
        """What the board is worth to ``seat`` (1-based): shadows in its siestas plus bonuses."""
        return self._worth(seat - 1)

    def _worth(self, s: int) -> int:
        total = self._line_points[s]
        if self.rules.crossing_bonus:
            r1, r2, c1, c2 = self._r1[s], self._r2[s], self._c1[s], self._c2[s]
            if r1 and c1:
                total += 2 * (
                    (r1 & c1).bit_count()
                    + (r1 & c2).bit_count()
                    + (r2 & c1).bit_count()
                    + (r2 & c2).bit_count()
                )
        return total

    def worths(self) -> tuple[int, ...]:
        return tuple(self._worth(s) for s in range(self.players))

    def winners(self) -> list[int]:
        """Seats with the highest score (several on a tie)."""
        return GameOutcome.of(self.scores).winners

    def copy(self) -> Position:
        """An independent copy (history included)."""
        clone = Position.__new__(Position)
        clone.__dict__.update(self.__dict__)
        for name in ("cells", "_rows", "_cols", "_line_points", "_r1", "_r2", "_c1", "_c2"):
            setattr(clone, name, list(getattr(self, name)))
        clone.roofs = list(self.roofs)
        clone.scores = list(self.scores)
        clone.history = list(self.history)
        clone._undo = list(self._undo)
        return clone

    # -- single placements --------------------------------------------------------------------

    def code_of(self, piece: Piece, seat: int) -> int:
        return _PIECE_CODE.get(piece, ROOF0 + seat - 1)

    def placement_error(self, placement: Placement, seat: int) -> IllegalMoveError | None:
        """Why ``placement`` by ``seat`` is illegal on the board as it stands, or None.

        A shadow's siesta is checked by :meth:`place`, since it needs the piece on the board."""
        cell, piece = placement.cell, placement.piece
        name = cell_name(cell)
        if self.cells[cell] != EMPTY:
            return _illegal(f"{name} is already occupied", name, "occupied")
        if self.occupied and not NEIGHBOUR_MASK[cell] & self.occupied:
            return _illegal(f"{name} is not next to any piece on the board", name, "not_adjacent")
        if piece is Piece.SUN:
            if self.suns <= 0:
                return _illegal(f"no suns are left for {name}", name, "no_suns_left")
            if NEIGHBOUR_MASK[cell] & self.shadow_mask:
                return _illegal(
                    f"a sun at {name} would be next to a shadow", name, "sun_next_to_shadow"
                )
        elif piece is Piece.SHADOW:
            if self.shadows <= 0:
                return _illegal(f"no shadows are left for {name}", name, "no_shadows_left")
            if NEIGHBOUR_MASK[cell] & self.sun_mask:
                return _illegal(
                    f"a shadow at {name} would be next to a sun", name, "shadow_next_to_sun"
                )
        elif self.roofs[seat - 1] <= 0:
            return _illegal(
                f"seat {seat} has no roofs left for {name}", name, "no_roofs_left", seat=seat
            )
        return None

    def place(self, placement: Placement, seat: int) -> Termination | None:
        """Put one piece on the board for ``seat`` after checking it; returns the end it causes.

        Scores are not touched: a turn's points are the change of :meth:`worth`."""
        error = self.placement_error(placement, seat)
        if error:
            raise error
        cell = placement.cell
        code = self.code_of(placement.piece, seat)
        self._put(code, cell)
        if code == SHADOW and not self.in_siesta(cell):
            self._remove(cell)
            name = cell_name(cell)
            raise _illegal(
                f"a shadow at {name} would not be part of any siesta", name, "shadow_not_in_siesta"
            )
        return self._ending(code)

    def unplace(self, cell: Cell) -> None:
        """Take a piece back off the board (the inverse of :meth:`place`)."""
        if self.cells[cell] == EMPTY:
            raise EngineError(f"{cell_name(cell)} is empty")
        self._remove(cell)

    def in_siesta(self, cell: Cell) -> bool:
        row, col = divmod(cell, SIZE)
        return bool(self._rows[row].in_siesta >> col & 1 or self._cols[col].in_siesta >> row & 1)

    def _ending(self, code: int) -> Termination | None:
        if code == SUN:
            return Termination.LAST_SUN if self.suns == 0 else None
        if code == SHADOW:
            return Termination.LAST_SHADOW if self.shadows == 0 else None
        return Termination.LAST_ROOF if self.roofs[code - ROOF0] == 0 else None

    def _load(self, pieces: Sequence[tuple[Cell, int]]) -> None:
        """Put ``pieces`` on an empty board, then score each line once (placing them one by one
        re-reads two lines per piece: the web app sets up a position on every move)."""
        for cell, code in pieces:
            self._set(code, cell)
        for index in range(SIZE):
            self._rescore(index * SIZE + index)  # the row and the column through the diagonal

    def _put(self, code: int, cell: Cell) -> None:
        self._set(code, cell)
        self._rescore(cell)

    def _set(self, code: int, cell: Cell) -> None:
        """Put a piece on the board and take it from the supply, without scoring its lines."""
        self.cells[cell] = code
        bit = 1 << cell
        self.occupied |= bit
        if code == SUN:
            self.sun_mask |= bit
            self.suns -= 1
        elif code == SHADOW:
            self.shadow_mask |= bit
            self.shadows -= 1
        else:
            self.roofs[code - ROOF0] -= 1

    def _remove(self, cell: Cell) -> None:
        code = self.cells[cell]
        self.cells[cell] = EMPTY
        bit = 1 << cell
        self.occupied &= ~bit
        if code == SUN:
            self.sun_mask &= ~bit
            self.suns += 1
        elif code == SHADOW:
            self.shadow_mask &= ~bit
            self.shadows += 1
        else:
            self.roofs[code - ROOF0] += 1
        self._rescore(cell)

    def _rescore(self, cell: Cell) -> None:
        """Re-read the row and the column through ``cell`` and update the running totals of the
        tracked seats (all of them, except inside a search that only needs the mover's)."""
        row, col = divmod(cell, SIZE)
        cells = self.cells
        rules = self.rules
        cache = rules._cache
        points = self._line_points
        line = tuple(cells[row * SIZE : row * SIZE + SIZE])
        new = cache.get(line) or rules.score_line(line)
        old = self._rows[row]
        if new is not old:
            self._rows[row] = new
            if rules.crossing_bonus:
                shift = SIZE * row
                r1, r2 = self._r1, self._r2
                for s in self._tracked:
                    points[s] += new.points[s] - old.points[s]
                    r1[s] ^= (old.covered1[s] ^ new.covered1[s]) << shift
                    r2[s] ^= (old.covered2[s] ^ new.covered2[s]) << shift
            else:
                for s in self._tracked:
                    points[s] += new.points[s] - old.points[s]
        line = tuple(cells[col::SIZE])
        new = cache.get(line) or rules.score_line(line)
        old = self._cols[col]
        if new is not old:
            self._cols[col] = new
            if rules.crossing_bonus:
                c1, c2 = self._c1, self._c2
                for s in self._tracked:
                    points[s] += new.points[s] - old.points[s]
                    c1[s] ^= SPREAD[old.covered1[s] ^ new.covered1[s]] << col
                    c2[s] ^= SPREAD[old.covered2[s] ^ new.covered2[s]] << col
            else:
                for s in self._tracked:
                    points[s] += new.points[s] - old.points[s]

    @contextlib.contextmanager
    def tracking_only(self, seat: int) -> Iterator[None]:
        """Keep only ``seat``'s (1-based) worth up to date inside the block, which must leave the
        board as it found it. Searches use this: they need the mover's worth alone."""
        saved = self._tracked
        self._tracked = (seat - 1,)
        try:
            yield
        finally:
            self._tracked = saved

    # -- turns ----------------------------------------------------------------------------------

    def check(self, turn: Turn | str) -> tuple[int, ...]:
        """The points a whole turn would score per seat (or its error); nothing changes."""
        points = self.play(turn, check_end=False)
        self.undo()
        return points

    def preview(self, turn: Turn | str) -> tuple[tuple[int, ...], Termination | None]:
        """Check a turn in progress (one to three placements, no must-score rule yet).

        Returns the points so far per seat and the end the placements cause; raises
        :class:`IllegalMoveError` naming the cell of the first illegal placement."""
        seat = self._seat_to_move()
        turn = Turn.parse(turn) if isinstance(turn, str) else turn
        before = self.worths()
        ended = self._place_turn(turn, seat)
        points = tuple(a - b for a, b in zip(self.worths(), before, strict=True))
        for placement in reversed(turn.placements):
            self._remove(placement.cell)
        return points, ended

    def play(self, turn: Turn | str, *, check_end: bool = True) -> tuple[int, ...]:
        """Play a whole turn for the player to move; returns the points it scores per seat.

        An illegal turn raises :class:`IllegalMoveError` and leaves the position unchanged. With
        ``check_end`` the game also ends when the next player has no scoring turn."""
        seat = self._seat_to_move()
        turn = Turn.parse(turn) if isinstance(turn, str) else turn
        before = self.worths()
        ended = self._place_turn(turn, seat)
        try:
            if ended is None and len(turn) != 3:
                raise IllegalMoveError(
                    f"a turn places exactly three pieces ({len(turn)} given) "
                    "unless it ends the game",
                    code="turn_too_short",
                    params={"count": len(turn)},
                )
            points = tuple(a - b for a, b in zip(self.worths(), before, strict=True))
            if points[seat - 1] < 1:
                raise IllegalMoveError(
                    f"{turn} scores no point for seat {seat}: every turn must score at least one",
                    code="no_point",
                    params={"move": str(turn), "seat": seat},
                )
        except IllegalMoveError:
            for placement in reversed(turn.placements):
                self._remove(placement.cell)
            raise
        played = PlayedTurn(seat, turn, points)
        self._undo.append(_Undo(played, self.end))
        self.history.append(played)
        for s, p in enumerate(points):
            self.scores[s] += p
        self.end = ended
        self.to_move = None if ended else seat % self.players + 1
        if check_end and not ended:
            self._check_scoring_turn()
        return points

    def _place_turn(self, turn: Turn, seat: int) -> Termination | None:
        """Place every placement of ``turn`` in order, checking each; returns the end they cause.
        On an illegal placement, the ones already placed are taken back before the error."""
        done: list[Cell] = []
        ended: Termination | None = None
        try:
            for placement in turn.placements:
                if ended:
                    raise _after_end_error(ended, placement)
                ended = self.place(placement, seat)
                done.append(placement.cell)
        except IllegalMoveError:
            for cell in reversed(done):
                self._remove(cell)
            raise
        return ended

    def undo(self) -> None:
        """Take back the last turn played on this position."""
        if not self._undo:
            raise EngineError("no turn to undo")
        entry = self._undo.pop()
        self.history.pop()
        for placement in reversed(entry.played.turn.placements):
            self._remove(placement.cell)
        for s, p in enumerate(entry.played.points):
            self.scores[s] -= p
        self.end = entry.end
        self.to_move = entry.played.seat

    def end_game(self, reason: Termination) -> None:
        self.end = reason
        self.to_move = None

    def _seat_to_move(self) -> int:
        if self.to_move is None:
            raise GameOverError("the game is over", code="game_over")
        return self.to_move

    def _check_scoring_turn(self) -> None:
        if self.to_move is not None and not has_scoring_turn(self):
            self.end_game(Termination.NO_SCORING_MOVE)


def _after_end_error(ended: Termination, placement: Placement) -> IllegalMoveError:
    what = {
        "last_sun": "the last sun",
        "last_shadow": "the last shadow",
        "last_roof": "a last roof",
    }
    return IllegalMoveError(
        f"the game ended with {what[ended.value]}: no placement may follow it "
        f"({placement} is one too many)",
        cell_name(placement.cell),
        code="after_end",
        params={
            "cell": cell_name(placement.cell),
            "placement": str(placement),
            "ending": ended.value,
        },
    )


def _illegal(message: str, cell: str, code: str, **params: str | int) -> IllegalMoveError:
    """An illegal placement at ``cell``: the cell is both the error's cell and a param."""
    return IllegalMoveError(message, cell, code=code, params={"cell": cell, **params})


def _count(name: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise EngineError(f"{name} must be whole numbers of 0 or more (got {value!r})")
    return value


def _read_board(rows: Sequence[str], players: int) -> list[tuple[Cell, int]]:
    """Cells and codes of a board text (checked by :func:`read_board`) that hold a piece."""
    return [
        (row * SIZE + col, _CODES[char])
        for row, text in enumerate(read_board(rows, players))
        for col, char in enumerate(text)
        if char != EMPTY_CHAR
    ]

"""Cells, pieces, placements and turns, with the notation of RULES.md, and the board codec: what
each character of the board text stands for.

>>> Turn.parse("sf5 RF6 hf7")
Turn.parse('SF5 RF6 HF7')
>>> cell_name(parse_cell("L12"))
'L12'
>>> decode_square("3")
Square(kind='roof', seat=3)
>>> read_board(["S1#"])[0]
'S1#.........'
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

from games.engine.errors import EngineError, NotationError, SetupError

SIZE = 12
CELLS = SIZE * SIZE
COLUMNS = "ABCDEFGHIJKL"

Cell: TypeAlias = int
"""A cell index 0..143: ``row * 12 + column``, row 0 being row 1 (the top)."""


def cell_name(cell: Cell) -> str:
    """``F5`` for the cell in column F, row 5."""
    return f"{COLUMNS[cell % SIZE]}{cell // SIZE + 1}"


_CELL_RE = re.compile(r"([A-Za-z])(\d{1,3})")


def parse_cell(text: str) -> Cell:
    """Parse ``F5`` (case-insensitive) into a cell index; off-board cells are an error."""
    match = _CELL_RE.fullmatch(text.strip())
    if not match:
        raise NotationError(
            f"'{text}' is not a cell: expected a column A–L and a row 1–12, like F5",
            code="bad_cell",
            params={"text": text},
        )
    column, row = match.group(1).upper(), int(match.group(2))
    if column not in COLUMNS or not 1 <= row <= SIZE:
        raise NotationError(
            f"{column}{row} is off the board: columns are A–L and rows 1–12",
            code="off_board",
            params={"cell": f"{column}{row}"},
        )
    return (row - 1) * SIZE + COLUMNS.index(column)


class Piece(enum.Enum):
    """A piece type, by its notation letter."""

    SUN = "S"
    ROOF = "R"
    SHADOW = "H"

    @classmethod
    def from_letter(cls, letter: str) -> Piece:
        try:
            return cls(letter.upper())
        except ValueError:
            raise NotationError(
                f"'{letter}' is not a piece: use S (sun), R (roof) or H (shadow)",
                code="bad_piece",
                params={"letter": letter},
            ) from None


@dataclass(frozen=True, slots=True)
class Placement:
    """One piece put on one cell. A roof is always the mover's colour."""

    piece: Piece
    cell: Cell

    @classmethod
    def parse(cls, text: str) -> Placement:
        """Parse ``SF5`` (case-insensitive)."""
        text = text.strip()
        if len(text) < 3:
            raise NotationError(
                f"'{text}' is not a placement: expected a piece letter and a cell, like SF5",
                code="bad_placement",
                params={"text": text},
            )
        return cls(Piece.from_letter(text[0]), parse_cell(text[1:]))

    def __str__(self) -> str:
        return f"{self.piece.value}{cell_name(self.cell)}"

    def __repr__(self) -> str:
        return f"Placement.parse({str(self)!r})"


@dataclass(frozen=True, slots=True)
class Turn:
    """The placements of one turn, in order."""

    placements: tuple[Placement, ...]

    @classmethod
    def parse(cls, text: str) -> Turn:
        """Parse ``SF5 RF6 HF7``; an empty move or more than three placements is an error."""
        if not isinstance(text, str):
            raise NotationError("a move must be a string like 'SF5 RF6 HF7'", code="move_not_text")
        tokens = text.split()
        if not tokens:
            raise NotationError(
                "an empty move: a turn places one to three pieces, like SF5 RF6 HF7",
                code="empty_move",
            )
        if len(tokens) > 3:
            raise NotationError(
                f"a turn places at most three pieces ({len(tokens)} given)",
                code="too_many_placements",
                params={"count": len(tokens)},
            )
        return cls(tuple(Placement.parse(token) for token in tokens))

    def __str__(self) -> str:
        return " ".join(str(p) for p in self.placements)

    def __repr__(self) -> str:
        return f"Turn.parse({str(self)!r})"

    def __len__(self) -> int:
        return len(self.placements)


# -- the board text (RULES.md, Notation) ---------------------------------------------------------

SquareKind: TypeAlias = Literal["empty", "sun", "shadow", "roof"]

EMPTY_CHAR: Final = "."
SUN_CHAR: Final = "S"
SHADOW_CHAR: Final = "#"
ROOF_CHARS: Final = "1234"
"""The roof of seat ``n`` is ``ROOF_CHARS[n - 1]``."""
BOARD_CHARS: Final = EMPTY_CHAR + SUN_CHAR + SHADOW_CHAR + ROOF_CHARS
"""Every board character. A character's index is the engine's cell code
(:data:`games.engine.variants.EMPTY`, ``SUN``, ``SHADOW``, ``ROOF0 + seat - 1``)."""
EMPTY_ROW: Final = EMPTY_CHAR * SIZE
EMPTY_BOARD: Final = (EMPTY_ROW,) * SIZE
"""The board text of an empty board."""


@dataclass(frozen=True, slots=True)
class Square:
    """What one board character stands for: a kind and, for a roof, its seat (1–4).

    >>> Square("roof", 2).char
    '2'
    """

    kind: SquareKind
    seat: int | None = None

    @property
    def char(self) -> str:
        return encode_square(self.kind, self.seat)


SQUARES: Final[Mapping[str, Square]] = {
    EMPTY_CHAR: Square("empty"),
    SUN_CHAR: Square("sun"),
    SHADOW_CHAR: Square("shadow"),
    **{char: Square("roof", seat) for seat, char in enumerate(ROOF_CHARS, start=1)},
}
"""The board codec: each board character and what it stands for."""

PIECE_KINDS: Final[Mapping[Piece, SquareKind]] = {
    Piece.SUN: "sun",
    Piece.ROOF: "roof",
    Piece.SHADOW: "shadow",
}
"""The kind of square a placement of each piece leaves (a roof takes the mover's seat)."""

BOARD_CODEC: Final[Mapping[str, object]] = {
    "size": SIZE,
    "columns": COLUMNS,
    "chars": {char: {"kind": sq.kind, "seat": sq.seat} for char, sq in SQUARES.items()},
    "pieces": {piece.value: kind for piece, kind in PIECE_KINDS.items()},
}
"""The codec as plain JSON-able data, for other languages (the page scripts): ``size`` and
``columns`` of the board, ``chars`` (board character → ``{"kind", "seat"}``, ``seat`` being
``None`` but for roofs) and ``pieces`` (placement letter → the kind of square it leaves).

>>> BOARD_CODEC["chars"]["#"], BOARD_CODEC["pieces"]["H"]
({'kind': 'shadow', 'seat': None}, 'shadow')
"""


def decode_square(char: str) -> Square:
    """The square a board character stands for; an unknown character is an error."""
    try:
        return SQUARES[char]
    except KeyError:
        raise NotationError(
            f"'{char}' is not a board character (use . S # or a seat 1–4)"
        ) from None


def encode_square(kind: SquareKind, seat: int | None = None) -> str:
    """The board character of a square: ``encode_square("roof", 3) == "3"``."""
    if kind == "roof":
        if seat is None or not 1 <= seat <= len(ROOF_CHARS):
            raise NotationError(f"a roof needs a seat 1–4 (got {seat!r})")
        return ROOF_CHARS[seat - 1]
    return {"empty": EMPTY_CHAR, "sun": SUN_CHAR, "shadow": SHADOW_CHAR}[kind]


def placed_char(piece: Piece, seat: int) -> str:
    """The board character a placement of ``piece`` by ``seat`` leaves.

    >>> placed_char(Piece.SHADOW, 2), placed_char(Piece.ROOF, 2)
    ('#', '2')
    """
    return encode_square(PIECE_KINDS[piece], seat)


def read_board(rows: Sequence[str], players: int = len(ROOF_CHARS)) -> list[str]:
    """Board text checked and padded to 12 rows of 12 characters; short or missing rows and
    columns are empty. A roof of a seat beyond ``players`` is an error, naming its cell."""
    if isinstance(rows, str) or not isinstance(rows, Sequence):
        raise EngineError("a board is a list of up to 12 strings")
    if len(rows) > SIZE:
        raise EngineError(f"a board has at most 12 rows ({len(rows)} given)")
    seats = min(max(players, 0), len(ROOF_CHARS))
    allowed = frozenset(BOARD_CHARS[: len(BOARD_CHARS) - len(ROOF_CHARS) + seats])
    board = []
    for row, text in enumerate(rows):
        if not isinstance(text, str):
            raise EngineError(f"board row {row + 1} must be a string")
        if len(text) > SIZE:
            raise EngineError(f"board row {row + 1} has more than 12 cells")
        if not allowed.issuperset(text):
            col, char = next((c, ch) for c, ch in enumerate(text) if ch not in allowed)
            name = cell_name(row * SIZE + col)
            raise SetupError(
                f"{name}: '{char}' is not a board character (use . S # or a seat 1–{players})",
                name,
            )
        board.append(text.ljust(SIZE, EMPTY_CHAR))
    return board + [EMPTY_ROW] * (SIZE - len(board))


def board_squares(rows: Sequence[str]) -> Iterator[tuple[Cell, Square]]:
    """Every cell of a board text (checked by :func:`read_board`) with its square, A1 first.

    >>> [(cell_name(c), sq.kind) for c, sq in board_squares(["S1"]) if sq.kind != "empty"]
    [('A1', 'sun'), ('B1', 'roof')]
    """
    for row, text in enumerate(read_board(rows)):
        for col, char in enumerate(text):
            yield row * SIZE + col, SQUARES[char]

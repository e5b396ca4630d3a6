"""Cells, pieces, placements and turns, with the notation of RULES.md.

>>> Turn.parse("sf5 RF6 hf7")
Turn.parse('SF5 RF6 HF7')
>>> cell_name(parse_cell("L12"))
'L12'
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import TypeAlias

from games.engine.errors import NotationError

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

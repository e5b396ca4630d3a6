"""A Siesta board (RULES.md board text) drawn as inline, accessible SVG, like python-chess's
``chess.svg``: pure functions from board text and options to an SVG string.

>>> svg = board(["S1#"], highlight="B1", window="A1:C1", size=20)
>>> svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" class="siesta-board" role="img"')
True
>>> 'class="roof seat-1"' in svg, svg.count('class="highlight"')
(True, 1)

Arguments of :func:`board`:

- ``rows``: up to 12 strings of up to 12 characters, row 1 first (the board codec of
  :mod:`games.engine.notation`). Missing rows and columns are empty.
- ``highlight``: cells to outline (the placements of a move), a string ``"F5 G5"`` or a list.
- ``marks``: cells to flag as illegal (a red outline and a cross badge).
- ``window``: the part of the board to draw, ``"A1:E5"``; ``crop=True`` picks the pieces and the
  named cells plus a margin of ``margin`` cells. The coordinate labels are the real ones.
- ``size``: the side of one cell in CSS pixels (the SVG also scales down with its container).
- ``title``: a caption put before the description in the accessible name.
- ``describe``: words the drawing's :class:`Summary` as the accessible name, in the reader's
  language (the engine has none of its own: by default the name is "Siesta board" and the window).

Colours are SVG presentation attributes (no ``style`` attribute: the Content-Security-Policy refuses
inline styles), which ``static/css/board-svg.css`` overrides with the CSS custom properties of the
game page (``static/css/game.css``), so a board here looks like the live board and a page can
restyle it:
``--seat-1`` … ``--seat-4`` (roofs, Okabe–Ito: colour-blind friendly), ``--seat-1-text`` …
``--seat-4-text`` (the seat digit), ``--sun-core``, ``--sun-edge``, ``--shade``, ``--board-bg``,
``--board-line``, plus the drawing's own ``--board-edge``, ``--board-ink``, ``--board-label``,
``--board-highlight`` and ``--board-mark``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from html import escape
from typing import NamedTuple

from games.engine.notation import (
    COLUMNS,
    ROOF_CHARS,
    SIZE,
    Cell,
    Square,
    board_squares,
    cell_name,
    parse_cell,
)

SEAT_COLOURS = {1: "#0072b2", 2: "#d55e00", 3: "#009e73", 4: "#cc79a7"}
"""Okabe–Ito blue, vermillion, bluish green, reddish purple — the game page's seat colours
(``static/css/game.css``): told apart with the common kinds of colour blindness, and the seat
digit on each roof does not rely on colour at all."""
SEAT_INKS = {1: "#fff", 2: "#000", 3: "#000", 4: "#000"}


class Window(NamedTuple):
    """Columns and rows, 0-based and inclusive."""

    left: int
    top: int
    right: int
    bottom: int

    def holds(self, cell: Cell) -> bool:
        row, column = divmod(cell, SIZE)
        return self.left <= column <= self.right and self.top <= row <= self.bottom

    def __str__(self) -> str:
        return f"{COLUMNS[self.left]}{self.top + 1}:{COLUMNS[self.right]}{self.bottom + 1}"


WHOLE_BOARD = Window(0, 0, SIZE - 1, SIZE - 1)


@dataclass(frozen=True, slots=True)
class Summary:
    """What a drawing shows, for words in any language: its window and the cells (names, row by
    row) of each kind of piece in it, then the outlined and the marked cells."""

    window: Window
    suns: tuple[str, ...]
    shadows: tuple[str, ...]
    roofs: tuple[tuple[int, tuple[str, ...]], ...]
    """``(seat, cells)`` of each seat with roofs in the window, by seat."""
    outlined: tuple[str, ...]
    marked: tuple[str, ...]

    @property
    def first_column(self) -> str:
        return COLUMNS[self.window.left]

    @property
    def last_column(self) -> str:
        return COLUMNS[self.window.right]

    @property
    def first_row(self) -> int:
        return self.window.top + 1

    @property
    def last_row(self) -> int:
        return self.window.bottom + 1


def default_label(summary: Summary) -> str:
    """The accessible name when the caller gives no words of its own."""
    return f"Siesta board {summary.window}"


def parse_cells(cells: str | Iterable[str] | None) -> list[Cell]:
    """``"F5 G5"`` (or a list of names) as cells; a name off the board is an error."""
    if not cells:
        return []
    return [parse_cell(name) for name in (cells.split() if isinstance(cells, str) else cells)]


def parse_window(text: str) -> Window:
    """``"A1:E5"`` as a :class:`Window`, in either corner order."""
    corners = parse_cells(text.replace(":", " "))
    if len(corners) != 2:
        raise ValueError(f"{text!r} is not a window: expected two corners like A1:E5")
    (r1, c1), (r2, c2) = (divmod(cell, SIZE) for cell in corners)
    return Window(min(c1, c2), min(r1, r2), max(c1, c2), max(r1, r2))


def board_window(
    boards: Iterable[Sequence[str]], cells: Iterable[str] = (), margin: int = 1
) -> str:
    """The smallest window (``"A1:E5"``) holding every piece of ``boards`` and every named cell,
    grown by ``margin`` cells; the whole board when there is nothing to show.

    >>> board_window([["", "", "", "...S1#"]]), board_window([[]], ["L12"])
    ('C3:G5', 'K11:L12')
    """
    points = parse_cells(list(cells))
    for rows in boards:
        points.extend(cell for cell, square in board_squares(rows) if square.kind != "empty")
    if not points:
        return str(WHOLE_BOARD)
    rows_of = [cell // SIZE for cell in points]
    columns = [cell % SIZE for cell in points]
    return str(
        Window(
            max(min(columns) - margin, 0),
            max(min(rows_of) - margin, 0),
            min(max(columns) + margin, SIZE - 1),
            min(max(rows_of) + margin, SIZE - 1),
        )
    )


def summary(
    rows: Sequence[str],
    window: Window = WHOLE_BOARD,
    highlight: Iterable[Cell] = (),
    marks: Iterable[Cell] = (),
) -> Summary:
    """What :func:`board` shows of ``rows`` in ``window``."""
    found: dict[str, list[str]] = {"sun": [], "shadow": []}
    roofs: dict[int, list[str]] = {seat: [] for seat in range(1, len(ROOF_CHARS) + 1)}
    for cell, square in board_squares(rows):
        if not window.holds(cell) or square.kind == "empty":
            continue
        if square.seat is not None:
            roofs[square.seat].append(cell_name(cell))
        else:
            found[square.kind].append(cell_name(cell))
    return Summary(
        window=window,
        suns=tuple(found["sun"]),
        shadows=tuple(found["shadow"]),
        roofs=tuple((seat, tuple(cells)) for seat, cells in roofs.items() if cells),
        outlined=tuple(cell_name(cell) for cell in highlight),
        marked=tuple(cell_name(cell) for cell in marks),
    )


def _num(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def piece(square: Square, x: float, y: float, s: float) -> str:
    """The SVG of one piece in the cell of side ``s`` whose top-left corner is (x, y)."""
    if square.kind == "sun":
        return (
            f'<circle class="sun" cx="{_num(x + s / 2)}" cy="{_num(y + s / 2)}" '
            f'r="{_num(s * 0.32)}" fill="#f0c419" stroke="#b87400" '
            f'stroke-width="{_num(s * 0.06)}"/>'
        )
    if square.kind == "shadow":
        inset = s * 0.1
        return (
            f'<rect class="shadow" x="{_num(x + inset)}" y="{_num(y + inset)}" '
            f'width="{_num(s - 2 * inset)}" height="{_num(s - 2 * inset)}" rx="{_num(s * 0.06)}" '
            f'fill="#2a2638"/>'
        )
    if square.seat is None:
        return ""
    seat = square.seat
    points = [(0.5, 0.1), (0.92, 0.46), (0.84, 0.46), (0.84, 0.9), (0.16, 0.9), (0.16, 0.46)]
    points += [(0.08, 0.46)]
    outline = " ".join(f"{_num(x + px * s)},{_num(y + py * s)}" for px, py in points)
    return (
        f'<g class="roof seat-{seat}">'
        f'<polygon points="{outline}" fill="{SEAT_COLOURS[seat]}" stroke="#2E2620" '
        f'stroke-width="{_num(max(s * 0.035, 1))}" '
        f'stroke-linejoin="round"/>'
        f'<text x="{_num(x + s / 2)}" y="{_num(y + s * 0.7)}" text-anchor="middle" '
        f'dominant-baseline="middle" font-size="{_num(s * 0.4)}" font-weight="700" '
        f'fill="{SEAT_INKS[seat]}">{seat}</text></g>'
    )


def board(
    rows: Sequence[str],
    *,
    highlight: str | Iterable[str] | None = None,
    marks: str | Iterable[str] | None = None,
    window: str | None = None,
    crop: bool = False,
    margin: int = 1,
    size: int = 32,
    title: str | None = None,
    describe: Callable[[Summary], str] = default_label,
) -> str:
    """The SVG markup of a board (see the module docstring for the arguments). Every text it
    writes is escaped."""
    squares = list(board_squares(rows))
    lit = parse_cells(highlight)
    flagged = parse_cells(marks)
    if not window and crop:
        window = board_window([rows], [cell_name(cell) for cell in lit + flagged], margin)
    shown = parse_window(window) if window else WHOLE_BOARD
    left, top, right, bottom = shown
    s = float(size)
    pad = round(s * 0.75)
    columns, lines = right - left + 1, bottom - top + 1
    width, height = pad + columns * s + 2, pad + lines * s + 2
    label = describe(summary(rows, shown, lit, flagged))
    if title:
        label = f"{title} {label}"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="siesta-board" role="img" '
        f'aria-label="{escape(label)}" viewBox="0 0 {_num(width)} {_num(height)}" '
        f'width="{_num(width)}" height="{_num(height)}" '
        f'font-family="system-ui, sans-serif">',
        f"<title>{escape(label)}</title>",
        f'<rect class="board-bg" x="{pad}" y="{pad}" width="{_num(columns * s)}" '
        f'height="{_num(lines * s)}" fill="#f6e7c8" stroke="#a88b5c"/>',
    ]
    label_style = f'class="board-label" font-size="{_num(s * 0.38)}" fill="#6B5D50"'
    for i in range(columns):
        x = pad + (i + 0.5) * s
        parts.append(
            f'<text x="{_num(x)}" y="{_num(pad * 0.55)}" text-anchor="middle" '
            f'dominant-baseline="middle" {label_style}>{COLUMNS[left + i]}</text>'
        )
        if i:
            parts.append(
                f'<line x1="{_num(pad + i * s)}" y1="{pad}" x2="{_num(pad + i * s)}" '
                f'y2="{_num(pad + lines * s)}" class="board-line" stroke="#d8bf8f" '
                f'stroke-width="0.5"/>'
            )
    for j in range(lines):
        y = pad + (j + 0.5) * s
        parts.append(
            f'<text x="{_num(pad * 0.5)}" y="{_num(y)}" text-anchor="middle" '
            f'dominant-baseline="middle" {label_style}>{top + j + 1}</text>'
        )
        if j:
            parts.append(
                f'<line x1="{pad}" y1="{_num(pad + j * s)}" x2="{_num(pad + columns * s)}" '
                f'y2="{_num(pad + j * s)}" class="board-line" stroke="#d8bf8f" '
                f'stroke-width="0.5"/>'
            )

    def corner(cell: Cell) -> tuple[float, float]:
        row, column = divmod(cell, SIZE)
        return pad + (column - left) * s, pad + (row - top) * s

    for cell, square in squares:
        if square.kind != "empty" and shown.holds(cell):
            parts.append(piece(square, *corner(cell), s))
    for cell in lit:
        if not shown.holds(cell):
            continue
        x, y = corner(cell)
        parts.append(
            f'<rect class="highlight" x="{_num(x + 1.5)}" y="{_num(y + 1.5)}" '
            f'width="{_num(s - 3)}" height="{_num(s - 3)}" fill="none" '
            f'stroke="#111111" stroke-width="3"/>'
            f'<rect x="{_num(x + 3.5)}" y="{_num(y + 3.5)}" width="{_num(s - 7)}" '
            f'height="{_num(s - 7)}" fill="none" stroke="#ffffff" stroke-width="1"/>'
        )
    for cell in flagged:
        if not shown.holds(cell):
            continue
        x, y = corner(cell)
        cx, cy, k = x + s * 0.82, y + s * 0.18, s * 0.08
        parts.append(
            f'<g class="mark" stroke="#C0141B">'
            f'<rect x="{_num(x + 1.5)}" y="{_num(y + 1.5)}" width="{_num(s - 3)}" '
            f'height="{_num(s - 3)}" fill="none" stroke-width="2.5" stroke-dasharray="4 2"/>'
            f'<circle cx="{_num(cx)}" cy="{_num(cy)}" r="{_num(s * 0.16)}" '
            f'fill="#C0141B" stroke="#ffffff" stroke-width="1"/>'
            f'<path d="M{_num(cx - k)},{_num(cy - k)}L{_num(cx + k)},{_num(cy + k)}'
            f'M{_num(cx + k)},{_num(cy - k)}L{_num(cx - k)},{_num(cy + k)}" '
            f'stroke="#ffffff" stroke-width="{_num(max(s * 0.05, 1.2))}"/></g>'
        )
    parts.append("</svg>")
    return "".join(parts)

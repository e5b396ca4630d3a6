"""``{% board_svg %}``: a Siesta board (RULES.md board text) drawn as inline, accessible SVG.

Usage::

    {% load siesta_board %}
    {% board_svg rows %}
    {% board_svg rows highlight="F5 G5" window="D3:H7" size=28 title=_("Before") %}
    {% board_svg rows crop=True marks="A5" %}

- ``rows``: up to 12 strings of up to 12 characters, row 1 first: ``.`` empty, ``S`` sun,
  ``#`` shadow, ``1``–``4`` roof of that seat. Missing rows and columns are empty.
- ``highlight``: cells to outline (the placements of a move), a string ``"F5 G5"`` or a list.
- ``marks``: cells to flag as illegal (a red outline and a cross badge).
- ``window``: the part of the board to draw, ``"A1:E5"``; ``crop=True`` picks the pieces and the
  named cells plus a margin of ``margin`` cells. The coordinate labels are the real ones.
- ``size``: the side of one cell in CSS pixels (the SVG also scales down with its container).
- ``title``: a caption put before the generated description in the accessible name.

Colours are SVG presentation attributes (no ``style`` attribute: the Content-Security-Policy refuses
inline styles), which ``static/css/board-svg.css`` overrides with the CSS custom properties of the
game page (``static/css/game.css``), so a board here looks like the live board and a page can
restyle it:
``--seat-1`` … ``--seat-4`` (roofs, Okabe–Ito: colour-blind friendly), ``--seat-1-text`` …
``--seat-4-text`` (the seat digit), ``--sun-core``, ``--sun-edge``, ``--shade``, ``--board-bg``,
``--board-line``, plus this tag's own ``--board-edge``, ``--board-ink``, ``--board-label``,
``--board-highlight`` and ``--board-mark``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine.notation import COLUMNS, SIZE

register = template.Library()

PIECES = ".S#1234"
SEAT_COLOURS = {1: "#0072b2", 2: "#d55e00", 3: "#009e73", 4: "#cc79a7"}
"""Okabe–Ito blue, vermillion, bluish green, reddish purple — the game page's seat colours
(``static/css/game.css``): told apart with the common kinds of colour blindness, and the seat
digit on each roof does not rely on colour at all."""
SEAT_INKS = {1: "#fff", 2: "#000", 3: "#000", 4: "#000"}

Window = tuple[int, int, int, int]
"""Columns and rows, 0-based and inclusive: ``(left, top, right, bottom)``."""


def parse_board(rows: Sequence[str]) -> list[str]:
    """Board text padded to 12 × 12; unknown characters are an error."""
    if isinstance(rows, str) or len(rows) > SIZE:
        raise ValueError("a board is a list of at most 12 strings, row 1 first")
    board = []
    for number, row in enumerate(rows, start=1):
        if len(row) > SIZE or any(char not in PIECES for char in row):
            raise ValueError(f"board row {number} {row!r}: use at most 12 of . S # 1 2 3 4")
        board.append(row.ljust(SIZE, "."))
    return board + ["." * SIZE] * (SIZE - len(board))


def parse_cells(cells: str | Iterable[str] | None) -> list[tuple[int, int]]:
    """``"F5 G5"`` (or a list of names) as ``(column, row)`` pairs, 0-based."""
    if not cells:
        return []
    names = cells.split() if isinstance(cells, str) else list(cells)
    found = []
    for name in names:
        column, row = name[:1].upper(), name[1:]
        if column not in COLUMNS or not row.isdigit() or not 1 <= int(row) <= SIZE:
            raise ValueError(f"{name!r} is not a cell: columns are A–L and rows 1–12")
        found.append((COLUMNS.index(column), int(row) - 1))
    return found


def parse_window(text: str) -> Window:
    """``"A1:E5"`` as ``(left, top, right, bottom)``, in either corner order."""
    corners = parse_cells(text.replace(":", " "))
    if len(corners) != 2:
        raise ValueError(f"{text!r} is not a window: expected two corners like A1:E5")
    (c1, r1), (c2, r2) = corners
    return min(c1, c2), min(r1, r2), max(c1, c2), max(r1, r2)


def board_window(
    boards: Iterable[Sequence[str]], cells: Iterable[str] = (), margin: int = 1
) -> str:
    """The smallest window (``"A1:E5"``) holding every piece of ``boards`` and every named cell,
    grown by ``margin`` cells; the whole board when there is nothing to show."""
    points = parse_cells(list(cells))
    for board in boards:
        for r, line in enumerate(parse_board(board)):
            points.extend((c, r) for c, char in enumerate(line) if char != ".")
    if not points:
        return f"A1:{COLUMNS[-1]}{SIZE}"
    cols = [c for c, _ in points]
    rows = [r for _, r in points]
    left, right = max(min(cols) - margin, 0), min(max(cols) + margin, SIZE - 1)
    top, bottom = max(min(rows) - margin, 0), min(max(rows) + margin, SIZE - 1)
    return f"{COLUMNS[left]}{top + 1}:{COLUMNS[right]}{bottom + 1}"


def _name(column: int, row: int) -> str:
    return f"{COLUMNS[column]}{row + 1}"


def describe_board(
    board: list[str],
    window: Window,
    highlight: list[tuple[int, int]],
    marks: list[tuple[int, int]],
) -> str:
    """The board in words, for screen readers: the window, then each kind of piece."""
    left, top, right, bottom = window
    sentences = [
        _(
            "Siesta board, columns %(first_column)s to %(last_column)s, "
            "rows %(first_row)s to %(last_row)s."
        )
        % {
            "first_column": COLUMNS[left],
            "last_column": COLUMNS[right],
            "first_row": top + 1,
            "last_row": bottom + 1,
        }
    ]
    found: dict[str, list[str]] = {char: [] for char in PIECES[1:]}
    for r in range(top, bottom + 1):
        for c in range(left, right + 1):
            char = board[r][c]
            if char != ".":
                found[char].append(_name(c, r))
    if suns := found["S"]:
        sentences.append(
            ngettext("Sun: %(cells)s.", "Suns: %(cells)s.", len(suns)) % {"cells": ", ".join(suns)}
        )
    if shadows := found["#"]:
        sentences.append(
            ngettext("Shadow: %(cells)s.", "Shadows: %(cells)s.", len(shadows))
            % {"cells": ", ".join(shadows)}
        )
    for seat in range(1, 5):
        if roofs := found[str(seat)]:
            sentences.append(
                ngettext(
                    "Roof of player %(seat)s: %(cells)s.",
                    "Roofs of player %(seat)s: %(cells)s.",
                    len(roofs),
                )
                % {"seat": seat, "cells": ", ".join(roofs)}
            )
    if highlight:
        sentences.append(
            _("Outlined: %(cells)s.") % {"cells": ", ".join(_name(c, r) for c, r in highlight)}
        )
    if marks:
        sentences.append(
            _("Marked illegal: %(cells)s.") % {"cells": ", ".join(_name(c, r) for c, r in marks)}
        )
    return " ".join(sentences)


def _num(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _piece(char: str, x: float, y: float, s: float) -> str:
    """The SVG of one piece in the cell whose top-left corner is (x, y)."""
    if char == "S":
        return (
            f'<circle class="sun" cx="{_num(x + s / 2)}" cy="{_num(y + s / 2)}" '
            f'r="{_num(s * 0.32)}" fill="#f0c419" stroke="#b87400" '
            f'stroke-width="{_num(s * 0.06)}"/>'
        )
    if char == "#":
        inset = s * 0.1
        return (
            f'<rect class="shadow" x="{_num(x + inset)}" y="{_num(y + inset)}" '
            f'width="{_num(s - 2 * inset)}" height="{_num(s - 2 * inset)}" rx="{_num(s * 0.06)}" '
            f'fill="#2a2638"/>'
        )
    seat = int(char)
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


def render_board_svg(
    rows: Sequence[str],
    *,
    highlight: str | Iterable[str] | None = None,
    marks: str | Iterable[str] | None = None,
    window: str | None = None,
    crop: bool = False,
    margin: int = 1,
    size: int = 32,
    title: str | None = None,
) -> str:
    """The SVG markup (see the module docstring for the arguments)."""
    board = parse_board(rows)
    lit = parse_cells(highlight)
    flagged = parse_cells(marks)
    if not window and crop:
        window = board_window([board], [_name(c, r) for c, r in lit + flagged], margin)
    left, top, right, bottom = parse_window(window) if window else (0, 0, SIZE - 1, SIZE - 1)
    s = float(size)
    pad = round(s * 0.75)
    columns, lines = right - left + 1, bottom - top + 1
    width, height = pad + columns * s + 2, pad + lines * s + 2
    label = describe_board(board, (left, top, right, bottom), lit, flagged)
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
    for r in range(top, bottom + 1):
        for c in range(left, right + 1):
            if (char := board[r][c]) != ".":
                parts.append(_piece(char, pad + (c - left) * s, pad + (r - top) * s, s))
    inside = [(c, r) for c, r in lit if left <= c <= right and top <= r <= bottom]
    for c, r in inside:
        x, y = pad + (c - left) * s, pad + (r - top) * s
        parts.append(
            f'<rect class="highlight" x="{_num(x + 1.5)}" y="{_num(y + 1.5)}" '
            f'width="{_num(s - 3)}" height="{_num(s - 3)}" fill="none" '
            f'stroke="#111111" stroke-width="3"/>'
            f'<rect x="{_num(x + 3.5)}" y="{_num(y + 3.5)}" width="{_num(s - 7)}" '
            f'height="{_num(s - 7)}" fill="none" stroke="#ffffff" stroke-width="1"/>'
        )
    for c, r in flagged:
        if not (left <= c <= right and top <= r <= bottom):
            continue
        x, y = pad + (c - left) * s, pad + (r - top) * s
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


@register.simple_tag
def board_svg(
    rows: Sequence[str], highlight: str | Iterable[str] | None = None, **options: Any
) -> SafeString:
    """Draw a board (the keyword options are those of :func:`render_board_svg`)."""
    # Safe: the markup is built from escaped text and numbers only.
    return mark_safe(render_board_svg(rows, highlight=highlight, **options))

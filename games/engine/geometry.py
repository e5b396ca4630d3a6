"""The board's geometry: precomputed neighbour tables and rays of the 12×12 board.

Shared by the position (adjacency of a placement) and the searches (where to try the next one);
it depends on nothing but the notation.

>>> from games.engine.notation import cell_name, parse_cell
>>> [cell_name(c) for c in NEIGHBOURS[parse_cell("A1")]]
['A2', 'B1']
"""

from __future__ import annotations

from games.engine.notation import CELLS, SIZE, Cell


def _neighbours(cell: Cell) -> tuple[Cell, ...]:
    row, col = divmod(cell, SIZE)
    found = []
    if row > 0:
        found.append(cell - SIZE)
    if row < SIZE - 1:
        found.append(cell + SIZE)
    if col > 0:
        found.append(cell - 1)
    if col < SIZE - 1:
        found.append(cell + 1)
    return tuple(found)


NEIGHBOURS: tuple[tuple[Cell, ...], ...] = tuple(_neighbours(c) for c in range(CELLS))
NEIGHBOUR_MASK: tuple[int, ...] = tuple(sum(1 << n for n in ns) for ns in NEIGHBOURS)


def _rays(cell: Cell) -> tuple[tuple[Cell, ...], ...]:
    row, col = divmod(cell, SIZE)
    up = tuple(r * SIZE + col for r in range(row - 1, -1, -1))
    down = tuple(r * SIZE + col for r in range(row + 1, SIZE))
    left = tuple(row * SIZE + c for c in range(col - 1, -1, -1))
    right = tuple(row * SIZE + c for c in range(col + 1, SIZE))
    return (up, down, left, right)


RAYS = tuple(_rays(c) for c in range(CELLS))
"""Per cell, the cells above, below, left and right of it (nearest first): up, down, left, right."""

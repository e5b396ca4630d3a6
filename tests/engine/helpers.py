"""Helpers shared by the engine tests: snapshots, random turns and an independent scorer."""

from __future__ import annotations

import random
from typing import Any

from games.engine import Position, Turn
from games.engine.notation import CELLS, SIZE
from games.engine.search import best_turn, random_turn, scoring_turns

# The rules case "no-scoring-move": after seat 1 plays HH9 HI9 HJ9, seat 2 (of 4) cannot score.
NO_SCORING_MOVE_BOARD = [
    "S1##3333##2S",
    "S1##3333##2S",
    "S1##3333##2S",
    "S1##3.44##2S",
    "S1##4444##2S",
    "S1##4444##2S",
    "S1##4444##2S",
    "S1##1122##2S",
    "S1#####...2S",
    "S1########2S",
    "S1########2S",
    "S1########2S",
]


def snapshot(pos: Position) -> dict[str, Any]:
    """Everything observable about a position, to compare before and after an operation."""
    return {
        "board": pos.board_text(),
        "supply": pos.supply(),
        "scores": list(pos.scores),
        "worths": pos.worths(),
        "to_move": pos.to_move,
        "end": pos.end,
        "ply": pos.ply,
        "history": list(pos.history),
        "in_siesta": [pos.in_siesta(cell) for cell in range(CELLS)],
        "masks": (pos.occupied, pos.sun_mask, pos.shadow_mask),
    }


def pick_turn(pos: Position, rng: random.Random, scoring_share: float = 0.3) -> Turn:
    """A random legal turn: mostly from ``random_turn``, sometimes one of ``scoring_turns``."""
    if rng.random() >= scoring_share:
        turn = random_turn(pos, rng)
        if turn is not None:
            return turn
    choices = scoring_turns(pos, rng)
    if choices:
        return rng.choice(choices)[1]
    best = best_turn(pos)
    assert best.turn is not None, "a position that is not over must have a scoring turn"
    return best.turn


def _neighbours(cell: int) -> tuple[int, ...]:
    row, col = divmod(cell, SIZE)
    steps = ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
    return tuple(r * SIZE + c for r, c in steps if 0 <= r < SIZE and 0 <= c < SIZE)


NEIGHBOURS = tuple(_neighbours(cell) for cell in range(CELLS))
"""The orthogonal neighbours of every cell."""


def cells_holding(board: list[str], char: str) -> list[int]:
    return [
        row * SIZE + col
        for row, text in enumerate(board)
        for col, found in enumerate(text)
        if found == char
    ]


# -- an independent scorer, written from RULES.md and sharing no code with the engine -------------


def _lines() -> list[tuple[str, list[int]]]:
    rows = [("row", [row * SIZE + col for col in range(SIZE)]) for row in range(SIZE)]
    cols = [("col", [row * SIZE + col for row in range(SIZE)]) for col in range(SIZE)]
    return rows + cols


def siestas(board: list[str]) -> list[tuple[int, frozenset[int], frozenset[int]]]:
    """Every siesta as (line number, shadow cells, owner seats), reading each line both ways."""
    flat = "".join(text.ljust(SIZE, ".") for text in board).ljust(CELLS, ".")
    found = []
    for number, (_, line) in enumerate(_lines()):
        for cells in (line, line[::-1]):
            chars = [flat[cell] for cell in cells]
            i = 0
            while i < SIZE:
                if not chars[i].isdigit():
                    i += 1
                    continue
                start = i
                while i < SIZE and chars[i].isdigit():
                    i += 1
                if start == 0 or chars[start - 1] != "S" or i == SIZE or chars[i] != "#":
                    continue
                end = i
                while end < SIZE and chars[end] == "#":
                    end += 1
                owners = frozenset(int(chars[k]) for k in range(start, i))
                found.append((number, frozenset(cells[i:end]), owners))
    return found


def reference_worths(board: list[str], players: int, variant: str) -> tuple[int, ...]:
    """What the board is worth to each seat, by RULES.md, the slow and obvious way."""
    found = siestas(board)
    worth = dict.fromkeys(range(1, players + 1), 0)
    for _, shadows, owners in found:
        for seat in owners:
            worth[seat] += len(shadows)
    for i, (line_a, shadows_a, owners_a) in enumerate(found):
        for line_b, shadows_b, owners_b in found[i + 1 :]:
            if variant == "standard":
                if shadows_a & shadows_b:
                    for seat in owners_a & owners_b:
                        worth[seat] += 2
            elif line_a == line_b and shadows_a == shadows_b:
                owners = owners_a | owners_b
                if len(owners) == 1:
                    worth[next(iter(owners))] += 2
    return tuple(worth[seat] for seat in range(1, players + 1))

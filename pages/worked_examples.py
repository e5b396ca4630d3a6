"""The worked examples of the rules page, played out by the engine.

Each example is a game record (the rulebook's figures 1–6 and a few more, from
``rules-cases/worked-examples.json``) whose last move is the move being explained. The boards before
and after it, the points it scores and the reason it is illegal all come from
:func:`games.engine.record.replay_report` / :func:`games.engine.record.replay`, so the page can
never disagree with the rules the site plays.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any

from games.engine import Placement, Turn, cell_name
from games.engine.notation import EMPTY_CHAR, SIZE, placed_char
from games.engine.record import GameRecord, replay, replay_report
from games.engine.svg import board_window

RECORDS: dict[str, dict[str, Any]] = {
    "fig1": {"players": 2, "moves": ["SA1 RB1 HC1"]},
    "fig1_roof_first": {"players": 2, "moves": ["RB1 SA1 HC1"]},
    "fig2": {
        "players": 2,
        "setup": {"board": ["SS12"], "to_move": 1},
        "moves": ["HE1 HF1 HG1"],
    },
    "fig3a": {
        "players": 2,
        "setup": {"board": ["S1##"], "to_move": 1},
        "moves": ["HE1 HF1 HG1"],
    },
    "fig3b": {
        "players": 2,
        "setup": {"board": ["", "", "", "", "S1###"], "to_move": 2},
        "moves": ["RD4 RD3 SD2"],
    },
    # Figure 4: one board, four attempted turns (three illegal, one legal).
    "fig4a": {
        "players": 2,
        "setup": {"board": ["S1##"], "to_move": 1},
        "moves": ["SA5 HE1 RA2"],
    },
    "fig4b": {
        "players": 2,
        "setup": {"board": ["S1##"], "to_move": 1},
        "moves": ["HE1 HB2 RF1"],
    },
    "fig4c": {
        "players": 2,
        "setup": {"board": ["S1##"], "to_move": 1},
        "moves": ["HE1 SC2 RA2"],
    },
    "fig4d": {
        "players": 2,
        "setup": {"board": ["S1##"], "to_move": 1},
        "moves": ["HE1 SA2 RF1"],
    },
    "fig5": {
        "players": 3,
        "setup": {"board": ["S23"], "to_move": 2},
        "moves": ["HD1 HE1 HF1"],
    },
    "fig6a": {
        "players": 2,
        "variant": "standard",
        "setup": {"board": ["S1###"], "to_move": 1},
        "moves": ["HF1 RG1 SH1"],
    },
    "fig6b": {
        "players": 2,
        "variant": "standard",
        "setup": {"board": ["S11"], "to_move": 1},
        "moves": ["HD1 RE1 SF1"],
    },
    "fig6c": {
        "players": 2,
        "variant": "standard",
        "setup": {"board": ["S1#.1"], "to_move": 2},
        "moves": ["RD1 SF1 RA2"],
    },
    "crossing": {
        "players": 2,
        "variant": "standard",
        "setup": {"board": ["", "", "", "S1#"], "to_move": 1},
        "moves": ["RC3 SC2 RA5"],
    },
    "last_sun": {
        "players": 2,
        "setup": {"board": [".1##"], "to_move": 1, "supply": {"suns": 1}},
        "moves": ["SA1"],
    },
    "last_roof": {
        "players": 2,
        "setup": {"board": ["S.#"], "to_move": 1, "supply": {"roofs": [1, 15]}},
        "moves": ["RB1"],
    },
    "no_scoring_move": {
        "players": 4,
        "setup": {
            "board": [
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
            ],
            "to_move": 1,
        },
        "moves": ["HH9 HI9 HJ9"],
    },
}
"""The records, by the name the rules templates use. ``*_classic`` twins are added below."""

TWINS = ("fig6a", "fig6b", "fig6c", "crossing")
"""Examples shown with their points under both Double Siesta variants."""
for _name in TWINS:
    RECORDS[f"{_name}_classic"] = {**RECORDS[_name], "variant": "classic"}


@dataclass(frozen=True)
class SeatPoints:
    seat: int
    points: int
    score: int
    is_mover: bool
    classic_points: int | None = None
    """The same move's points under the ``classic`` variant, when the page compares the two."""


@dataclass(frozen=True)
class Step:
    """One placement of the move and the mover's points once it is on the board."""

    placement: str
    points: int


@dataclass(frozen=True)
class WorkedExample:
    """A move explained on the rules page: the boards around it and what the engine says."""

    name: str
    variant: str
    players: int
    mover: int
    move: str
    before: list[str]
    after: list[str]
    """The board after the move; for an illegal move, the board with the attempted pieces drawn."""
    placed: list[str]
    legal: bool
    window: str
    """The part of the board worth showing, as ``A1:E5``."""
    points: list[SeatPoints] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    mover_points: int = 0
    error_cell: str | None = None
    over: bool = False
    end_reason: str | None = None
    supply_before: dict[str, Any] = field(default_factory=dict)
    next_to_move: int | None = None
    blocked_seat: int | None = None
    """With ``end_reason == "no_scoring_move"``: the seat that had no scoring turn."""
    classic_steps: list[Step] = field(default_factory=list)
    """Filled in when the page compares this move with its ``classic`` twin."""

    @property
    def highlight(self) -> str:
        return " ".join(self.placed)


def _drawn(board: list[str], turn: Turn, seat: int) -> list[str]:
    """``board`` with the turn's pieces drawn on it, legal or not (for illegal examples)."""
    cells = [list(line) for line in board]
    for placement in turn.placements:
        row, col = divmod(placement.cell, SIZE)
        if cells[row][col] == EMPTY_CHAR:
            cells[row][col] = placed_char(placement.piece, seat)
    return ["".join(line) for line in cells]


def build_example(name: str, data: dict[str, Any]) -> WorkedExample:
    """Play ``data``'s last move on the position its earlier moves reach, with the engine."""
    record = GameRecord.from_json(data)
    *earlier, last = record.moves
    start = replay(GameRecord.from_json({**data, "moves": earlier})).position
    mover = start.to_move
    if mover is None:
        raise ValueError(f"worked example {name}: the game is over before its move")
    before = start.board_text()
    turn = Turn.parse(last)
    placed = [cell_name(p.cell) for p in turn.placements]
    report = replay_report(record)
    common: dict[str, Any] = {
        "name": name,
        "variant": record.variant,
        "players": record.players,
        "mover": mover,
        "move": str(turn),
        "before": before,
        "placed": placed,
        "supply_before": start.supply(),
    }
    if report["error"] is not None:
        error = replay(record).error
        drawn = _drawn(before, turn, mover)
        cell = error.cell if error else None
        return WorkedExample(
            **common,
            after=drawn,
            legal=False,
            window=board_window([before, drawn], [c for c in (cell,) if c]),
            error_cell=cell,
        )
    points = report["turns"][-1]["points"]
    steps = []
    for count in range(1, len(turn.placements) + 1):
        prefix = Turn(tuple(Placement(p.piece, p.cell) for p in turn.placements[:count]))
        so_far, _ = start.preview(prefix)
        steps.append(Step(str(turn.placements[count - 1]), so_far[mover - 1]))
    return WorkedExample(
        **common,
        after=report["board"],
        legal=True,
        window=board_window([before, report["board"]]),
        points=[
            SeatPoints(seat, p, report["scores"][seat - 1], seat == mover)
            for seat, p in enumerate(points, start=1)
        ],
        steps=steps,
        mover_points=points[mover - 1],
        over=report["over"],
        end_reason=report["end_reason"],
        next_to_move=report["to_move"],
        blocked_seat=(
            mover % record.players + 1 if report["end_reason"] == "no_scoring_move" else None
        ),
    )


def _with_classic(standard: WorkedExample, classic: WorkedExample) -> WorkedExample:
    """``standard`` carrying its classic twin's points, seat by seat, for a side-by-side table."""
    return dataclasses.replace(
        standard,
        points=[
            dataclasses.replace(mine, classic_points=theirs.points)
            for mine, theirs in zip(standard.points, classic.points, strict=True)
        ],
        classic_steps=classic.steps,
    )


@functools.cache
def worked_examples() -> dict[str, WorkedExample]:
    """Every worked example by name, computed once per process (the engine is deterministic)."""
    examples = {name: build_example(name, data) for name, data in RECORDS.items()}
    for name in TWINS:
        examples[name] = _with_classic(examples[name], examples[f"{name}_classic"])
    return examples

"""Finding puzzles in finished games: pure engine work, no database.

A turn of a game makes a puzzle when, in the position before it:

- the best turn scores at least ``MIN_MISS`` (4) more than the turn played,
- and at least ``MIN_OVER_OBVIOUS`` (2) more than the most one placement scores on its own (the
  "obvious" idea), so that the solution is a combination rather than one lucky piece,
- and the best is unique, or every best turn shares a placement with the others (one idea, several
  ways to finish it), so that the solution can be explained.

Positions are identified by a key (players, variant, board, mover and supplies): the same position
found twice is one puzzle. Themes come from what the solution does (``turn_features``); the
difficulty (1–5) from how far the best is above the obvious, how many pieces the idea needs and
how many ways there are to find it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from games.engine import Position, Termination
from games.engine.expert import best_turn_puzzle, line_value
from games.engine.record import GameRecord
from games.engine.search import best_turn
from games.engine.study import position_for, single_best, solution_cores, turn_features

MIN_MISS = 4
MIN_OVER_OBVIOUS = 2
BLOCKING_DROP = 3
"""How much less the next player can score after the solution than before it, for 'blocking'."""

THEMES = ("double_siesta", "crossing", "blocking", "last_sun", "end_of_game")

BEST_TURN_PER_GAME = 2
"""'Best turn' puzzles taken from one game at most."""

BEST_TURN_CHECKS = 3
"""Mistakes of one game (the biggest losses) given the deeper check, a second or two each."""

VALUE_TOLERANCE = 0.5
"""A 'best turn' answer solves the puzzle when its line is worth the solution's less this."""


@dataclass
class PuzzleCandidate:
    """A qualifying position with everything a puzzle row stores."""

    ply: int
    """Turns played before the position (0-based index of the missed turn)."""
    players: int
    variant: str
    board: list[str]
    to_move: int
    supply: dict[str, Any]
    scores: list[int]
    best_points: int
    solution: str
    cores: list[str]
    played_move: str
    played_points: int
    obvious_points: int
    themes: list[str] = field(default_factory=list)
    difficulty: int = 1
    kind: str = "most_points"
    """``most_points`` (exact: the most points now) or ``best_turn`` (the expert's look-ahead)."""
    solution_value: float | None = None
    """``best_turn``: the solution's line value; a turn whose line is worth as much solves it."""

    @property
    def key(self) -> str:
        return position_key(self.players, self.variant, self.board, self.to_move, self.supply)

    @property
    def rating(self) -> float:
        return initial_rating(self.difficulty)


def position_key(
    players: int, variant: str, board: Sequence[str], to_move: int, supply: dict[str, Any]
) -> str:
    text = json.dumps(
        [
            players,
            variant,
            list(board),
            to_move,
            supply["suns"],
            supply["shadows"],
            supply["roofs"],
        ],
        separators=(",", ":"),
    )
    return hashlib.sha256(text.encode()).hexdigest()[:40]


def initial_rating(difficulty: int) -> float:
    """A puzzle's starting rating: 1250 (difficulty 1) to 1850 (difficulty 5)."""
    return 1100.0 + 150.0 * difficulty


def find_puzzles(
    record: GameRecord | dict[str, Any], turns: Sequence[dict[str, Any]]
) -> list[PuzzleCandidate]:
    """The puzzles in a finished game, given its analysis turns (``played_points`` and
    ``best_points`` per turn, in order, as ``games.analysis`` stores them)."""
    record = record if isinstance(record, GameRecord) else GameRecord.from_json(record)
    position = record.start()
    found: list[PuzzleCandidate] = []
    # The turns the expert's view marks as mistakes (losing a lead, not the game), worst first:
    # the few most likely to make a 'best turn' puzzle get the deeper check.
    mistakes = sorted(
        (
            (-(turn.get("expert") or {}).get("loss", 0.0), index)
            for index, turn in enumerate(turns)
            if (turn.get("expert") or {}).get("mistake")
            and (turn.get("expert") or {}).get("loss") is not None
        ),
    )
    checked = {index for _loss, index in mistakes[:BEST_TURN_CHECKS]}
    best_turns = 0
    for index, move in enumerate(record.moves):
        if position.to_move is None or index >= len(turns):
            break
        turn = turns[index]
        candidate = None
        if turn["best_points"] - turn["played_points"] >= MIN_MISS and not position.is_empty:
            candidate = examine(position, index, move, turn["played_points"])
        if candidate is None and index in checked and best_turns < BEST_TURN_PER_GAME:
            candidate = examine_best_turn(position, index, move, turn["played_points"])
            best_turns += candidate is not None
        if candidate is not None:
            found.append(candidate)
        position.play(move)
    return found


def examine_best_turn(
    pos: Position, ply: int, played: str, played_points: int
) -> PuzzleCandidate | None:
    """The 'best turn' puzzle of ``pos``: the expert's turn leads, after the others' best
    replies, both the turn played and the turn of most points now by ``PUZZLE_MARGIN``, checked
    with a search four times the bot's (``best_turn_puzzle``)."""
    seat = pos.to_move
    if seat is None:
        return None
    found = best_turn_puzzle(pos, played)
    if found is None:
        return None
    solution = str(found.turn)
    lead = min(found.over_played, found.over_greedy)
    return PuzzleCandidate(
        **_position_fields(pos, ply),
        best_points=found.points,
        solution=solution,
        cores=[solution],
        played_move=played,
        played_points=played_points,
        obvious_points=single_best(pos),
        themes=themes_of(pos, solution),
        difficulty=2 + (lead >= 5) + (lead >= 8),
        kind="best_turn",
        solution_value=found.value,
    )


def examine(pos: Position, ply: int, played: str, played_points: int) -> PuzzleCandidate | None:
    """The puzzle of ``pos`` (the mover played ``played``), or None when it does not qualify."""
    seat = pos.to_move
    if seat is None:
        return None
    best, cores = solution_cores(pos)
    if best - played_points < MIN_MISS or not cores:
        return None
    obvious = single_best(pos)
    if best - obvious < MIN_OVER_OBVIOUS:
        return None
    placements = [frozenset(str(p) for p in core.placements) for core in cores]
    if len(placements) > 1 and not frozenset.intersection(*placements):
        return None
    solution = best_turn(pos).turn
    if solution is None:
        return None
    themes = themes_of(pos, str(solution))
    smallest = min(len(core) for core in cores)
    gap = best - obvious
    difficulty = 1 + (gap >= 5) + (gap >= 8) + (gap >= 12) + (smallest >= 3 and len(cores) == 1)
    return PuzzleCandidate(
        **_position_fields(pos, ply),
        best_points=best,
        solution=str(solution),
        cores=[str(core) for core in cores],
        played_move=played,
        played_points=played_points,
        obvious_points=obvious,
        themes=themes,
        difficulty=difficulty,
    )


def _position_fields(pos: Position, ply: int) -> dict[str, Any]:
    """What a puzzle stores of its position."""
    return {
        "ply": ply,
        "players": pos.players,
        "variant": pos.variant,
        "board": pos.board_text(),
        "to_move": pos.to_move,
        "supply": pos.supply(),
        "scores": list(pos.scores),
    }


def themes_of(pos: Position, solution: str) -> list[str]:
    """The themes of a solution in ``pos`` (see ``THEMES``)."""
    seat = pos.to_move
    assert seat is not None
    features = turn_features(pos, solution)
    themes = []
    if features.doubles or features.crossings:
        themes.append("double_siesta")
    if features.crossings or (features.rows and features.columns):
        themes.append("crossing")
    if features.end is None:
        nxt = seat % pos.players + 1
        now = best_turn(position_for(pos, nxt)).points
        pos.play(solution, check_end=False)
        try:
            after = best_turn(pos).points
        finally:
            pos.undo()
        if now - after >= BLOCKING_DROP:
            themes.append("blocking")
    if features.end is Termination.LAST_SUN:
        themes.append("last_sun")
    if features.end is not None:
        themes.append("end_of_game")
    return themes


def solves_best_turn(pos: Position, move: str, solution_value: float) -> tuple[int, bool]:
    """A 'best turn' puzzle: the points ``move`` scores the mover now, and whether its line
    (followed to the mover's next turn, as the expert values it) is worth the solution's. Raises
    the engine's ``IllegalMoveError`` for an illegal turn."""
    seat = pos.to_move
    assert seat is not None
    points = pos.check(move)[seat - 1]
    line = line_value(pos, move)
    return points, line is not None and line.value >= solution_value - VALUE_TOLERANCE


def solves(pos: Position, move: str, best_points: int) -> tuple[int, bool]:
    """The points ``move`` scores the mover and whether that is the maximum (any maximal turn
    solves). Raises the engine's ``IllegalMoveError`` (naming the cell) for an illegal turn."""
    seat = pos.to_move
    assert seat is not None
    points = pos.check(move)[seat - 1]
    return points, points >= best_points

"""Game records (JSON): reading, writing, and replaying them (RULES.md, Notation)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from games.engine.errors import EngineError, IllegalMoveError, RecordError, SetupError
from games.engine.position import Position


@dataclass
class GameRecord:
    """A game: the players, the variant, an optional starting position and the moves."""

    players: int = 2
    variant: str = "standard"
    setup: dict[str, Any] | None = None
    moves: list[str] = field(default_factory=list)
    hints: list[int] = field(default_factory=list)
    teams: list[list[int]] | None = None

    @classmethod
    def from_json(cls, data: object) -> GameRecord:
        """Read a record from parsed JSON; anything malformed is a :class:`RecordError`."""
        if isinstance(data, str | bytes):
            try:
                data = json.loads(data)
            except (ValueError, RecursionError) as exc:  # also bytes that are not UTF-8
                raise RecordError(f"the record is not valid JSON: {exc}") from None
        if not isinstance(data, dict):
            raise RecordError("a game record is a JSON object")
        players = data.get("players", 2)
        if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 4:
            raise RecordError(f"players must be 2, 3 or 4 (got {players!r})")
        variant = data.get("variant", "standard")
        if variant not in ("standard", "classic"):
            raise RecordError(f"variant must be 'standard' or 'classic' (got {variant!r})")
        setup = data.get("setup")
        if setup is not None and not isinstance(setup, dict):
            raise RecordError("setup must be an object")
        moves = data.get("moves", [])
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise RecordError("moves must be a list of strings like 'SF5 RF6 HF7'")
        hints = data.get("hints") or []
        if not isinstance(hints, list) or not all(
            isinstance(h, int) and not isinstance(h, bool) for h in hints
        ):
            raise RecordError("hints must be a list of turn indexes")
        teams = data.get("teams")
        record = cls(players, variant, setup, list(moves), list(hints), teams)
        record.start()  # validates the setup
        return record

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"players": self.players, "variant": self.variant}
        if self.setup is not None:
            data["setup"] = self.setup
        data["moves"] = list(self.moves)
        if self.hints:
            data["hints"] = list(self.hints)
        if self.teams is not None:
            data["teams"] = self.teams
        return data

    def start(self) -> Position:
        """The position before the first move."""
        setup = self.setup or {}
        supply = setup.get("supply") or {}
        if not isinstance(supply, dict):
            raise RecordError("setup.supply must be an object")
        try:
            return Position(
                self.players,
                self.variant,
                setup.get("board") or [],
                to_move=1 if setup.get("to_move") is None else setup["to_move"],
                suns=supply.get("suns"),
                shadows=supply.get("shadows"),
                roofs=supply.get("roofs"),
                scores=setup.get("scores"),
            )
        except SetupError as exc:
            raise SetupError(f"bad setup: {exc}", exc.cell) from None
        except EngineError as exc:
            raise RecordError(f"bad setup: {exc}") from None
        except TypeError as exc:
            raise RecordError(f"bad setup: {exc}") from None


@dataclass
class Replay:
    """A record played out: the position reached and the first error, if any."""

    position: Position
    error_turn: int | None = None
    error: IllegalMoveError | None = None


def replay(record: GameRecord) -> Replay:
    """Play the record's moves until the end or the first illegal move."""
    position = record.start()
    for index, move in enumerate(record.moves):
        try:
            position.play(move)
        except EngineError as exc:
            error = exc if isinstance(exc, IllegalMoveError) else IllegalMoveError(str(exc))
            return Replay(position, index, error)
    return Replay(position)


def replay_report(record: GameRecord) -> dict[str, Any]:
    """The JSON object of ``python -m games.engine replay`` (RULES.md)."""
    result = replay(record)
    pos = result.position
    return {
        "turns": [{"move": str(t.turn), "points": list(t.points)} for t in pos.history],
        "scores": list(pos.scores),
        "to_move": pos.to_move,
        "over": pos.over,
        "end_reason": pos.end.value if pos.end else None,
        "board": pos.board_text(),
        "supply": pos.supply(),
        "error": (
            {"turn": result.error_turn, "message": str(result.error)}
            if result.error is not None
            else None
        ),
    }

"""The analysis board's answers, computed by the engine alone: the positions along a line, a turn
in progress, and the best turns. Plain dicts in and out; no database.

Input is a game record (RULES.md) or a bare position
``{"players", "variant", "board", "to_move", "supply", "scores"}`` (the record's ``setup`` with
``players`` and ``variant`` beside it). A hand-made starting position must be one that could arise
in a game (``check_setup``); a problem names its cell.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from core import safejson
from games.engine import EngineError, IllegalMoveError, Position, SetupError, Turn
from games.engine.record import GameRecord, replay
from games.engine.study import check_setup, siesta_counts, top_turns, turn_reach

MAX_TOP = 10
MAX_MOVES = 200


class BoardInputError(ValueError):
    """Input the board cannot use; ``cell`` names the offending cell when there is one. ``code``
    and ``params`` say it in any language (``learn.messages``): the engine's code, or one of the
    board's own (``learn.messages.BOARD_CODES``); ``turn``/``move``: the line's turn at fault.
    Plain data throughout, so it crosses the engine pool's process boundary whole."""

    def __init__(
        self,
        message: str,
        cell: str | None = None,
        code: str = "",
        params: dict[str, Any] | None = None,
        turn: int | None = None,
        move: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.cell = cell
        self.code = code
        self.params = dict(params or {})
        self.turn = turn
        self.move = move

    def __reduce__(self) -> Any:
        args = (self.message, self.cell, self.code, self.params, self.turn, self.move)
        return (type(self), args)

    @classmethod
    def of(cls, exc: EngineError, **where: Any) -> BoardInputError:
        cell = exc.cell if isinstance(exc, (IllegalMoveError, SetupError)) else None
        return cls(str(exc), cell, exc.code, exc.params, **where)


def read_record(data: dict[str, Any]) -> GameRecord:
    """The record of ``{"record": {...}}`` or ``{"position": {...}}``, its setup checked."""
    if "record" in data and data["record"] is not None:
        raw = data["record"]
    elif "position" in data and data["position"] is not None:
        position = data["position"]
        if not isinstance(position, dict):
            raise BoardInputError("position must be an object", code="position_not_object")
        setup = {k: position[k] for k in ("board", "to_move", "supply", "scores") if k in position}
        raw = {
            "players": position.get("players", 2),
            "variant": position.get("variant", "standard"),
            "setup": setup,
            "moves": [],
        }
    else:
        raise BoardInputError(
            "send a game record as 'record' or a position as 'position'", code="no_record"
        )
    try:
        record = GameRecord.from_json(raw)
    except EngineError as exc:
        raise BoardInputError.of(exc) from None
    if len(record.moves) > MAX_MOVES:
        raise BoardInputError(
            f"a line has at most {MAX_MOVES} turns",
            code="too_many_turns",
            params={"max": MAX_MOVES},
        )
    if record.setup:
        try:
            check_setup(record.start())
        except SetupError as exc:
            raise BoardInputError(
                f"impossible setup: {exc}", exc.cell, "impossible_setup", {"error": str(exc)}
            ) from None
    return record


def _state(pos: Position) -> dict[str, Any]:
    return {
        "board": pos.board_text(),
        "siestas": siesta_counts(pos.board_text()),
        "scores": list(pos.scores),
        "to_move": pos.to_move,
        "supply": pos.supply(),
        "over": pos.over,
        "end_reason": pos.end.value if pos.end else None,
    }


def line_states(record: GameRecord) -> dict[str, Any]:
    """The position before the first move and after every move of the line, as far as the moves
    are legal; ``error`` names the first illegal one (turn index, message, cell)."""
    pos = record.start()
    states = [_state(pos)]
    turns: list[dict[str, Any]] = []
    error = None
    for index, move in enumerate(record.moves):
        seat = pos.to_move
        try:
            points = pos.play(move)
        except EngineError as exc:
            cell = exc.cell if isinstance(exc, IllegalMoveError) else None
            error = {
                "turn": index,
                "message": str(exc),
                "cell": cell,
                "code": exc.code,
                "params": exc.params,
            }
            break
        turns.append({"move": str(pos.history[-1].turn), "seat": seat, "points": list(points)})
        states.append(_state(pos))
    return {
        "players": record.players,
        "variant": record.variant,
        "setup": record.setup,
        "turns": turns,
        "states": states,
        "error": error,
    }


def position_after(record: GameRecord) -> Position:
    """The position after every move of the record; an illegal move is an input error."""
    played = replay(record)
    if played.error is not None and played.error_turn is not None:
        index = played.error_turn
        raise BoardInputError.of(played.error, turn=index, move=record.moves[index])
    return played.position


def turn_in_progress(record: GameRecord, move: str) -> dict[str, Any]:
    """One to three placements for the player to move after the record: their points so far,
    the most a legal turn starting with them scores, and whether they are a whole legal turn."""
    pos = position_after(record)
    if pos.to_move is None:
        raise BoardInputError("the game is over: no turn can follow", code="game_over")
    seat = pos.to_move
    try:
        turn = Turn.parse(move)
        reach = turn_reach(pos, turn)
    except EngineError as exc:
        raise BoardInputError.of(exc) from None
    complete = (reach.end is not None or len(turn) == 3) and reach.points[seat - 1] >= 1
    return {
        "seat": seat,
        "move": str(turn),
        "points": list(reach.points),
        "so_far": reach.points[seat - 1],
        "reachable": reach.reachable,
        "complete": complete,
        "end_reason": reach.end.value if reach.end else None,
    }


def best_for(record: GameRecord, count: int = 5) -> dict[str, Any]:
    """The exact best turn for the player to move after the record and the best few turns with
    distinct scoring placements: ``{"points", "move", "top": [{"move", "points"}]}``."""
    pos = position_after(record)
    count = max(1, min(MAX_TOP, count))
    top = top_turns(pos, count)
    if not top:
        return {"points": 0, "move": None, "top": [], "seat": pos.to_move}
    return {
        "points": top[0][0],
        "move": str(top[0][1]),
        "top": [{"move": str(turn), "points": points} for points, turn in top],
        "seat": pos.to_move,
    }


# -- links ------------------------------------------------------------------------------------


def encode_record(record: dict[str, Any]) -> str:
    """A record as URL-safe text (the ``r`` parameter of a shared analysis link)."""
    text = json.dumps(record, separators=(",", ":"), sort_keys=True)
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


MAX_LINK_CHARS = 16 * 1024
"""The longest ``r`` read: a whole game's record is about 2 KB once encoded."""


def decode_record(text: str) -> dict[str, Any]:
    """The inverse of :func:`encode_record`; anything unreadable is a :class:`BoardInputError`,
    and so is text longer than MAX_LINK_CHARS or JSON nested deeper than any record (a deep
    value would overflow the stack wherever it is walked later)."""
    if len(text) > MAX_LINK_CHARS:
        raise BoardInputError("the link does not hold a readable game record", code="bad_link")
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        data = safejson.loads(raw.decode())
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise BoardInputError(
            "the link does not hold a readable game record", code="bad_link"
        ) from None
    if not isinstance(data, dict):
        raise BoardInputError("the link does not hold a readable game record", code="bad_link")
    return data

"""The analysis board's refusals in the reader's language: the engine's coded errors as the game
page says them (``games.engine_messages``), and the board's own codes."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from games.engine import EngineError
from games.engine_messages import engine_error_message
from learn.board import BoardInputError


def _board_templates() -> dict[str, str]:
    return {
        "position_not_object": _("The position must be an object."),
        "no_record": _("Send a game record as 'record' or a position as 'position'."),
        "too_many_turns": _("A line has at most %(max)s turns."),
        "impossible_setup": _("This position could not arise in a game: %(error)s"),
        "game_over": _("The game is over."),
        "bad_link": _("The link does not hold a readable game record."),
    }


def coded_message(message: str, code: str, params: dict[str, Any]) -> str:
    """``message`` (English) in the active language when its code is known."""
    template = _board_templates().get(code)
    if template is not None:
        try:
            return template % params
        except (KeyError, TypeError, ValueError):
            return template if "%(" not in template else message
    if code:
        return engine_error_message(EngineError(message, code=code, params=params))
    return message


def board_error_message(exc: BoardInputError) -> str:
    """``exc`` in the active language; a line's illegal turn says which turn."""
    text = coded_message(exc.message, exc.code, exc.params)
    if exc.turn is not None:
        return _("Turn %(turn)s (%(move)s): %(error)s") % {
            "turn": exc.turn + 1,
            "move": exc.move,
            "error": text,
        }
    return text


def translate_line(result: dict[str, Any]) -> dict[str, Any]:
    """A ``board.line_states`` answer with its error's message in the active language."""
    error = result.get("error")
    if error:
        message = coded_message(error["message"], error.get("code", ""), error.get("params", {}))
        error = {k: v for k, v in error.items() if k != "params"} | {"message": message}
        result = {**result, "error": error}
    return result

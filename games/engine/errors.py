"""The engine's exceptions. All are ``ValueError`` so callers can treat bad input uniformly.

Besides its English text (what the command line prints), an error carries a ``code`` and the
``params`` that text was made from (a cell, a piece, a count...), so that a caller such as the
site can say the same thing in another language. Codes are listed in :data:`CODES`."""

from __future__ import annotations

Params = dict[str, "str | int"]

CODES: dict[str, str] = {
    # notation
    "bad_cell": "text",
    "off_board": "cell",
    "bad_piece": "letter",
    "bad_placement": "text",
    "move_not_text": "",
    "empty_move": "",
    "too_many_placements": "count",
    # placements and turns
    "occupied": "cell",
    "not_adjacent": "cell",
    "no_suns_left": "cell",
    "sun_next_to_shadow": "cell",
    "no_shadows_left": "cell",
    "shadow_next_to_sun": "cell",
    "no_roofs_left": "cell seat",
    "shadow_not_in_siesta": "cell",
    "after_end": "cell placement ending",
    "turn_too_short": "count",
    "no_point": "move seat",
    "game_over": "",
}
"""Every code an error may carry, with the names of its params."""


class EngineError(ValueError):
    """Base class of every error the engine raises for bad input or an illegal move."""

    def __init__(self, message: str, *, code: str = "", params: Params | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.params: Params = dict(params or {})


class NotationError(EngineError):
    """A move, placement or cell that cannot be read."""


class RecordError(EngineError):
    """A game record (JSON) that is malformed or inconsistent."""


class IllegalMoveError(EngineError):
    """A turn that breaks the rules. ``cell`` names the offending cell (``"F5"``), if any."""

    def __init__(
        self,
        message: str,
        cell: str | None = None,
        *,
        code: str = "",
        params: Params | None = None,
    ) -> None:
        super().__init__(message, code=code, params=params)
        self.cell = cell


class GameOverError(IllegalMoveError):
    """A move after the end of the game."""


class SetupError(RecordError):
    """A set-up position that cannot be read or could not arise in a game. ``cell`` names the
    offending cell (``"F5"``), if any."""

    def __init__(self, message: str, cell: str | None = None) -> None:
        super().__init__(message)
        self.cell = cell

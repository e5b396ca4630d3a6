"""The engine's exceptions. All are ``ValueError`` so callers can treat bad input uniformly."""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of every error the engine raises for bad input or an illegal move."""


class NotationError(EngineError):
    """A move, placement or cell that cannot be read."""


class RecordError(EngineError):
    """A game record (JSON) that is malformed or inconsistent."""


class IllegalMoveError(EngineError):
    """A turn that breaks the rules. ``cell`` names the offending cell (``"F5"``), if any."""

    def __init__(self, message: str, cell: str | None = None) -> None:
        super().__init__(message)
        self.cell = cell


class GameOverError(IllegalMoveError):
    """A move after the end of the game."""


class SetupError(RecordError):
    """A set-up position that cannot be read or could not arise in a game. ``cell`` names the
    offending cell (``"F5"``), if any."""

    def __init__(self, message: str, cell: str | None = None) -> None:
        super().__init__(message)
        self.cell = cell

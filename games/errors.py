"""What the game services refuse (``games.services`` raises them; tournaments and social too).

Plain domain errors (``siesta_site.errors``): each says why by its ``kind``; the API layer alone
turns kinds into HTTP statuses.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from siesta_site.errors import ApplicationError, ErrorKind


class GameServiceError(ApplicationError):
    """A request the game refuses. ``code`` is the engine's error code when the engine refused a
    move (``"occupied"``...), else None; ``cell`` the cell at fault; ``ply`` the game's ply."""

    def __init__(
        self,
        message: str,
        *,
        cell: str | None = None,
        ply: int | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.cell = cell
        self.ply = ply
        self.code = code

    @property
    def extra(self) -> dict[str, Any]:
        """An illegal move names its cell (or null), a refusal that knows the game's ply (a stale
        or late move, a move after the end) that ply, and an engine refusal its code."""
        extra: dict[str, Any] = {}
        if isinstance(self, InvalidMove):
            extra["cell"] = self.cell
        if isinstance(self, StalePly) or self.ply is not None:
            extra["ply"] = self.ply
        if self.code is not None:
            extra["code"] = self.code
        return extra


class InvalidInput(GameServiceError):
    kind = ErrorKind.INVALID


class InvalidMove(GameServiceError):
    kind = ErrorKind.INVALID


class NotAllowed(GameServiceError):
    kind = ErrorKind.NOT_ALLOWED


class NotFound(GameServiceError):
    kind = ErrorKind.NOT_FOUND


class GameNotFound(NotFound):
    """There is no game ``game_id`` (the one place that says so)."""

    def __init__(self, game_id: object) -> None:
        super().__init__(_("There is no game %(id)s.") % {"id": game_id})
        self.game_id = game_id


class Conflict(GameServiceError):
    kind = ErrorKind.CONFLICT


class StalePly(Conflict):
    """The move was made for another ply than the current one (stale or repeated)."""


class TurnTimedOut(Conflict):
    """The move arrived after the turn's deadline: the seat to move has timed out."""


class LimitReached(Conflict):
    """A per-user limit (open games, games with bots) is reached: finish or cancel one first."""

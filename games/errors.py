"""What the game services refuse: the game's own refusals on top of the shared ones.

The kinds every app refuses with (``InvalidInput``, ``NotAllowed``, ``NotFound``, ``Conflict``,
``LimitReached``, their base ``ServiceError``) live in ``core.errors`` and are re-exported
here for the games app's callers; ``GameServiceError`` is the games app's name of ``ServiceError``.
The API layer alone turns kinds into HTTP statuses.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from core.errors import (
    Conflict,
    ErrorKind,
    InvalidInput,
    LimitReached,
    NotAllowed,
    NotFound,
    ServiceError,
)

GameServiceError = ServiceError

__all__ = [
    "Conflict",
    "GameNotFound",
    "GameServiceError",
    "InvalidInput",
    "InvalidMove",
    "LimitReached",
    "NotAllowed",
    "NotFound",
    "ServiceError",
    "StalePly",
    "TurnTimedOut",
]


class InvalidMove(ServiceError):
    """An illegal placement: the answer names its cell (or null)."""

    kind = ErrorKind.INVALID
    names_cell = True


class GameNotFound(NotFound):
    """There is no game ``game_id`` (the one place that says so)."""

    def __init__(self, game_id: object) -> None:
        super().__init__(_("There is no game %(id)s.") % {"id": game_id})
        self.game_id = game_id


class StalePly(Conflict):
    """The move was made for another ply than the current one (stale or repeated)."""

    names_ply = True


class TurnTimedOut(Conflict):
    """The move arrived after the turn's deadline: the seat to move has timed out."""

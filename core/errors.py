"""Domain errors: what a service refuses, in words for the user, without HTTP.

As HackSoft's ``ApplicationError``: services raise these; each interface words them its own way.
The API answers with the HTTP status of the error's ``kind`` (``core.api.errors``, the one
mapping), the sockets with an ``error`` frame, the pages with a message.

The one home of the refusals every app shares (``ServiceError`` and its kinds): games, ratings,
tournaments, learn and social raise and catch these, each importing them from here, so that no app
refuses with another app's errors. ``games.errors`` adds the game's own (an illegal move, a stale
ply, a timed-out turn) on top of them.
"""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Any, ClassVar


class ErrorKind(StrEnum):
    """Why a request is refused."""

    INVALID = "invalid"  # the request itself is wrong (bad input, an illegal move)
    NOT_ALLOWED = "not_allowed"  # not this user's to do
    NOT_FOUND = "not_found"  # no such thing
    CONFLICT = "conflict"  # not now: the state has moved on (stale ply, full, a limit reached)
    TOO_MANY = "too_many"  # not now: a budget of this caller's is spent (``retry_after``)


class ApplicationError(Exception):
    """A request the domain refuses. ``message`` is for the user (in their language); ``extra``
    holds the details an answer adds beside it (e.g. the cell at fault)."""

    kind: ClassVar[ErrorKind] = ErrorKind.INVALID
    # Whole seconds until the caller may try again (the API's ``Retry-After``), when known.
    retry_after: int | None = None

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    @property
    def extra(self) -> dict[str, Any]:
        return {}


class ServiceError(ApplicationError):
    """A request a service refuses (every app's services). ``code`` is the engine's error code
    when the engine refused a move (``"occupied"``...), else None; ``cell`` the cell at fault;
    ``ply`` the game's ply."""

    names_cell: ClassVar[bool] = False
    """Whether the answer always carries ``cell`` (null when unknown): an illegal move."""
    names_ply: ClassVar[bool] = False
    """Whether the answer always carries ``ply``: a move made for another ply."""

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
        if self.names_cell:
            extra["cell"] = self.cell
        if self.names_ply or self.ply is not None:
            extra["ply"] = self.ply
        if self.code is not None:
            extra["code"] = self.code
        return extra


class InvalidInput(ServiceError):
    kind = ErrorKind.INVALID


class NotAllowed(ServiceError):
    kind = ErrorKind.NOT_ALLOWED


class NotFound(ServiceError):
    kind = ErrorKind.NOT_FOUND


class Conflict(ServiceError):
    kind = ErrorKind.CONFLICT


class TooManyAttempts(ServiceError):
    """Too many failed attempts (an invitation's password): ``retry_after`` seconds to wait."""

    kind = ErrorKind.TOO_MANY

    def __init__(self, message: str, *, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = max(1, math.ceil(retry_after))


class LimitReached(Conflict):
    """A per-user limit (open games, games with bots) is reached: finish or cancel one first."""


def error_code(exc: ApplicationError) -> str:
    """The ``code`` an answer to ``exc`` carries, the REST body and the socket ``error`` frame
    alike: the engine's code when it refused a move, else the error's kind."""
    code = getattr(exc, "code", None)
    return code if isinstance(code, str) and code else exc.kind.value

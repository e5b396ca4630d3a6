"""Domain errors: what a service refuses, in words for the user, without HTTP.

As HackSoft's ``ApplicationError``: services raise these; each interface words them its own way.
The API answers with the HTTP status of the error's ``kind`` (``siesta_site.api.errors``, the one
mapping), the sockets with an ``error`` frame, the pages with a message.
"""

from __future__ import annotations

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

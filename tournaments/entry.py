"""Joining behind the invitation-password limits: the one place the API and the pages join.

``core.throttling`` counts failed passwords per (tournament, address), per (tournament, user),
per tournament and per address; a caller over them is refused (``TooManyAttempts``: 429 with
``Retry-After`` on the API, a message on the page) before the password is hashed, so that
guessing costs the server nothing. A right password clears the caller's count and makes the
address known to the tournament: the invited are never locked out by someone else's guesses.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from core import throttling
from core.errors import TooManyAttempts
from tournaments import selectors, services
from tournaments.models import Tournament


def join(
    request: Any,
    *,
    tournament: Tournament,
    user: User,
    invite: str | None = None,
    password: str | None = None,
) -> Tournament:
    """``services.tournament_join`` of ``tournament`` (read by the caller, who may see it)."""
    asked = selectors.password_asked(tournament, user)
    if asked:
        wait = throttling.entry_password_wait(request, tournament.pk, user.pk)
        if wait is not None:
            raise TooManyAttempts(throttling.wait_words(wait), retry_after=wait)
    try:
        joined = services.tournament_join(
            tournament_id=tournament.pk, user=user, invite=invite, password=password
        )
    except services.WrongPassword:
        throttling.record_entry_password_failure(request, tournament.pk, user.pk)
        raise
    if asked:
        throttling.record_entry_password_success(request, tournament.pk, user.pk)
    return joined

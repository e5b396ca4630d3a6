"""What an API token grants, for the REST API and the sockets alike (docs/api.md, "Tokens").

Two kinds of key are sent as ``Authorization: Token <key>`` (or in a socket's ``auth`` frame):

- the account's API token of API.md (DRF's ``Token``, 40 hex digits): every scope;
- a personal access token (``accounts.models.PersonalAccessToken``), ``siesta_pat_`` and a
  random secret: only its scopes, until it expires or is revoked.

The infrastructure cannot import accounts (the layers of docs/architecture.md), so accounts
registers how a personal key is checked (``personal_tokens_provide``, in ``AccountsConfig.ready``),
as ratings registers the seats' ratings with games.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

PERSONAL_TOKEN_PREFIX = "siesta_pat_"

READ = "read"
PLAY = "play"
TOURNAMENTS = "tournaments"
SCOPES = (READ, PLAY, TOURNAMENTS)
"""``read``: GET only; ``play``: games, seeks, challenges, chat in games; ``tournaments``: join,
leave and run tournaments."""

ANY_SCOPE = "*"
"""A call any token may make, whatever its scopes (``GET /api/me/``, logout)."""


class TokenRefused(Exception):
    """A personal key that signs nobody in: unknown, revoked, expired, or its user inactive.
    ``message`` says which, in the user's language."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class TokenGrant:
    """Who a token signs in and what it may do. ``scopes`` None: every scope (the account's API
    token); ``token_id`` is the personal token's id (None for the account's token)."""

    user: Any
    scopes: frozenset[str] | None
    token_id: int | None = None

    def allows(self, scope: str | None) -> bool:
        """Whether a call needing ``scope`` is allowed (None: no personal token may make it)."""
        if self.scopes is None or scope == ANY_SCOPE:
            return True
        return scope is not None and scope in self.scopes


def is_personal_key(key: str) -> bool:
    return key.startswith(PERSONAL_TOKEN_PREFIX)


def secret_digest(secret: str) -> str:
    """What is stored of a personal token, and what travels through the channel layer instead of
    a secret (``core.sockets``). The secrets are long and random: one SHA-256 is enough."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


_personal_token_check: Callable[[str], TokenGrant] | None = None


def personal_tokens_provide(check: Callable[[str], TokenGrant]) -> None:
    """Register how a personal key is checked: returns its grant or raises ``TokenRefused``."""
    global _personal_token_check
    _personal_token_check = check


def personal_token_grant(key: str) -> TokenGrant:
    """The grant of a personal key, or ``TokenRefused``. Runs queries: call it in a thread."""
    if _personal_token_check is None:  # accounts is not installed
        raise TokenRefused("Invalid token.")
    return _personal_token_check(key)

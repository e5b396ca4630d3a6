"""Who calls the API, and what their token lets them do (``core.credentials``).

``TokenAuthentication`` reads ``Authorization: Token <key>`` as DRF's does, and also takes a
personal access token (``siesta_pat_...``): its grant becomes ``request.auth``. An unknown,
expired or revoked key is a 401 in the error shape (``core.api.errors``). ``TokenScope``,
the first permission of every ``SiestaApi`` view, refuses a call outside the token's scopes: 403
``{"error", "code": "missing_scope_<scope>", "scope"}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _
from rest_framework import authentication, exceptions
from rest_framework.permissions import SAFE_METHODS, BasePermission

from core.credentials import (
    ANY_SCOPE,
    READ,
    TokenGrant,
    TokenRefused,
    is_personal_key,
    personal_token_grant,
)
from core.errors import ApplicationError, ErrorKind

if TYPE_CHECKING:  # rest_framework.views loads this module through the settings: no cycle
    from rest_framework.request import Request
    from rest_framework.views import APIView


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's token authentication, which also knows personal access tokens."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        if not is_personal_key(key):
            return super().authenticate_credentials(key)  # the account's token, as before
        try:
            grant = personal_token_grant(key)
        except TokenRefused as exc:
            raise exceptions.AuthenticationFailed(exc.message) from None
        return grant.user, grant


class MissingScope(ApplicationError):
    """A personal access token used for a call its scopes do not cover."""

    kind = ErrorKind.NOT_ALLOWED

    def __init__(self, scope: str | None) -> None:
        if scope is None:
            message = _(
                "A personal access token cannot do this: sign in with your password "
                "or use the account's API token."
            )
        else:
            message = _("This token does not have the %(scope)s scope.") % {"scope": scope}
        super().__init__(message)
        self.scope = scope

    @property
    def extra(self) -> dict[str, Any]:
        if self.scope is None:
            return {"code": "personal_token_not_allowed", "scope": None}
        return {"code": f"missing_scope_{self.scope}", "scope": self.scope}


def required_scope(view: APIView, method: str) -> str | None:
    """The scope a personal token needs for ``method`` on ``view``: ``read_scope`` (default
    ``read``) for GET, HEAD and OPTIONS, ``write_scope`` (default None: refused) otherwise."""
    if method in SAFE_METHODS:
        scope: str | None = getattr(view, "read_scope", READ)
    else:
        scope = getattr(view, "write_scope", None)
    return scope


class TokenScope(BasePermission):
    """Refuse a personal access token a call outside its scopes (``required_scope``)."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        grant = request.auth
        if not isinstance(grant, TokenGrant):
            return True  # a session, the account's token, or nobody
        scope = required_scope(view, request.method or "GET")
        if not grant.allows(scope):
            raise MissingScope(scope)
        return True


__all__ = ["ANY_SCOPE", "MissingScope", "TokenAuthentication", "TokenScope", "required_scope"]

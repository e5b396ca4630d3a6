"""The base of every API view: who may call, and how errors look."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from django.contrib.auth.models import User
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.authentication import TokenAuthentication, TokenScope
from core.api.errors import api_exception_handler
from core.credentials import READ
from core.safejson import JSONParser

if TYPE_CHECKING:
    from rest_framework.permissions import _SupportsHasPermission


class SiestaApi(APIView):
    # Anyone may read; writes need a user, known by `Authorization: Token <key>` (scripts) or by
    # the session cookie with CSRF (browsers). The token is tried first so that a request without
    # credentials gets 401 with a `WWW-Authenticate: Token` challenge (DRF answers 401 when the
    # first authenticator has a challenge, else 403). Bodies are JSON only (API.md).
    # A personal access token may only make the calls of its scopes (TokenScope, checked first):
    # `read_scope` for GET, `write_scope` for the other methods; a view that names no
    # `write_scope` refuses personal tokens its writes (core/api/authentication.py).
    # (Comments, not a docstring: drf-spectacular would show a docstring on every operation.)

    authentication_classes = [TokenAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticatedOrReadOnly]
    parser_classes = [JSONParser]
    read_scope: str | None = READ
    write_scope: str | None = None

    def get_permissions(self) -> Sequence[_SupportsHasPermission]:
        return [TokenScope(), *super().get_permissions()]

    def get_exception_handler(self) -> Callable[[Exception, dict[str, Any]], Response | None]:
        return api_exception_handler


def signed_in_user(request: Request) -> User:
    """The caller of a write (the permission class has already turned anonymous callers away)."""
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated()
    return user

"""Errors of the API in the shape of API.md: ``{"error": message, ...}``, never a 500 for bad input.

- A domain error (``core.errors.ApplicationError``) answers with the HTTP status of its
  kind (``HTTP_STATUS``, the one mapping) and its ``extra`` beside ``"error"``: an illegal move
  adds ``"cell"`` (or null) and, when the engine refused it, ``"code"`` (e.g. ``"occupied"``); a
  stale ply adds ``"ply"`` (the game's current ply); a spent budget answers 429 with
  ``Retry-After``. ``"error"`` is in the request's language.
- Invalid input answers 400 with ``"error"`` (the first problem, readable on its own) and DRF's
  field errors beside it, e.g. ``{"error": "username: ...", "username": ["..."]}``. Django's
  ``ValidationError`` raised by a service answers the same.
- Any other DRF error (malformed JSON, missing credentials, unknown route method...) keeps DRF's
  status and headers, with its ``detail`` as ``"error"`` and its code as ``"code"``.
- Every body has ``"code"``: one shape, ``{"error", "code", ...}``, for every 4xx.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.serializers import as_serializer_error
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

from core.api.serializers import ErrorSerializer
from core.errors import ApplicationError, ErrorKind

HTTP_STATUS: dict[ErrorKind, int] = {
    ErrorKind.INVALID: status.HTTP_400_BAD_REQUEST,
    ErrorKind.NOT_ALLOWED: status.HTTP_403_FORBIDDEN,
    ErrorKind.NOT_FOUND: status.HTTP_404_NOT_FOUND,
    ErrorKind.CONFLICT: status.HTTP_409_CONFLICT,
    ErrorKind.TOO_MANY: status.HTTP_429_TOO_MANY_REQUESTS,
}


def http_status(exc: ApplicationError) -> int:
    """The HTTP status a domain error answers with."""
    return HTTP_STATUS[exc.kind]


def application_error_body(exc: ApplicationError) -> dict[str, Any]:
    """``{"error", "code", ...}``: ``code`` is the engine's when it refused a move, else the
    error's kind (``invalid``, ``not_allowed``, ``not_found``, ``conflict``, ``too_many``)."""
    return {"error": exc.message, "code": exc.kind.value, **exc.extra}


def error_response(exc: ApplicationError) -> Response:
    """The answer to a domain error: its message and details, with the status of its kind (and
    ``Retry-After`` when the error knows how long to wait)."""
    headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else None
    return Response(application_error_body(exc), status=http_status(exc), headers=headers)


def error_responses(**descriptions: str) -> dict[int, OpenApiResponse]:
    """Error responses for the schema, e.g. ``error_responses(e404="No such game.")``."""
    return {
        int(code[1:]): OpenApiResponse(ErrorSerializer, description=text)
        for code, text in descriptions.items()
    }


def _first_problem(detail: Any, path: tuple[str, ...] = ()) -> tuple[tuple[str, ...], str]:
    """The first message in DRF's nested error detail, with the field path that leads to it."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            if value:
                return _first_problem(value, (*path, str(key)))
    elif isinstance(detail, list):
        for index, value in enumerate(detail):
            if value:
                step = (str(index),) if isinstance(value, dict) else ()
                return _first_problem(value, path + step)
    elif detail:
        return path, str(detail)
    return path, _("Invalid input.")


def validation_error_body(exc: exceptions.ValidationError) -> dict[str, Any]:
    path, message = _first_problem(exc.detail)
    field = ".".join(p for p in path if p != api_settings.NON_FIELD_ERRORS_KEY)
    summary = (
        _("%(field)s: %(message)s") % {"field": field, "message": message} if field else message
    )
    body: dict[str, Any] = {"error": summary, "code": "invalid"}
    if isinstance(exc.detail, dict):
        body.update(exc.detail)
    return body


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ApplicationError):
        return error_response(exc)
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(as_serializer_error(exc))
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # a real bug: let Django answer 500 and log it
    if isinstance(exc, exceptions.ValidationError):
        response.data = validation_error_body(exc)
    elif isinstance(response.data, dict) and "detail" in response.data:
        response.data = {"error": str(response.data["detail"]), "code": _drf_code(exc)}
    return response


def _drf_code(exc: Exception) -> str:
    """The code of a DRF error: ``not_authenticated``, ``authentication_failed``,
    ``permission_denied``, ``not_found``, ``method_not_allowed``, ``parse_error``,
    ``unsupported_media_type``, ``not_acceptable``, ``throttled``..."""
    if isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        if isinstance(codes, str):
            return codes
        return str(exc.default_code)
    if isinstance(exc, Http404):
        return "not_found"
    return "not_allowed"  # Django's PermissionDenied, the only other error DRF answers

"""Errors of the API in the shape of API.md: ``{"error": message, ...}``, never a 500 for bad input.

- A game service error answers with its ``.status``; an illegal move adds ``"cell"`` (or null)
  and, when the engine refused it, ``"code"`` (e.g. ``"occupied"``); a stale ply adds ``"ply"``
  (the game's current ply). ``"error"`` is in the request's language.
- Invalid input answers 400 with ``"error"`` (the first problem, readable on its own) and DRF's
  field errors beside it, e.g. ``{"error": "username: ...", "username": ["..."]}``.
- Any other DRF error (malformed JSON, missing credentials, unknown route method...) keeps DRF's
  status and headers, with its ``detail`` as ``"error"``.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

from games.services import GameServiceError, InvalidMove, StalePly


def game_service_error_body(exc: GameServiceError) -> dict[str, Any]:
    body: dict[str, Any] = {"error": exc.message}
    if isinstance(exc, InvalidMove):
        body["cell"] = exc.cell
    if isinstance(exc, StalePly):
        body["ply"] = exc.ply
    if exc.code is not None:
        body["code"] = exc.code
    return body


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
    body: dict[str, Any] = {"error": summary}
    if isinstance(exc.detail, dict):
        body.update(exc.detail)
    return body


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, GameServiceError):
        return Response(game_service_error_body(exc), status=exc.status)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # a real bug: let Django answer 500 and log it
    if isinstance(exc, exceptions.ValidationError):
        response.data = validation_error_body(exc)
    elif isinstance(response.data, dict) and "detail" in response.data:
        response.data = {"error": str(response.data["detail"])}
    return response

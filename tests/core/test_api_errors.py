"""The one mapping of domain errors to HTTP (core.api.errors)."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from rest_framework.test import APIRequestFactory

from core.api.base import SiestaApi
from core.api.errors import HTTP_STATUS, api_exception_handler
from core.errors import ApplicationError, ErrorKind
from games import errors as game_errors
from games.engine_budget import EngineBudgetSpent
from learn.services import PuzzleError, PuzzleNotFound


def _answer(exc: Exception):
    view = SiestaApi()
    request = APIRequestFactory().get("/")
    return api_exception_handler(exc, {"view": view, "request": request})


def test_every_kind_has_one_status():
    assert set(HTTP_STATUS) == set(ErrorKind)
    assert HTTP_STATUS == {
        ErrorKind.INVALID: 400,
        ErrorKind.NOT_ALLOWED: 403,
        ErrorKind.NOT_FOUND: 404,
        ErrorKind.CONFLICT: 409,
        ErrorKind.TOO_MANY: 429,
    }


def test_an_error_that_knows_how_long_to_wait_says_so_in_retry_after():
    response = _answer(EngineBudgetSpent(7.2))
    assert response.status_code == 429
    assert response["Retry-After"] == "8"
    assert response.data == {
        "error": response.data["error"],
        "code": "engine_budget",
        "retry_after": 8,
    }
    assert "8 seconds" in response.data["error"]


@pytest.mark.parametrize(
    ("error", "status", "body"),
    [
        (game_errors.InvalidInput("bad"), 400, {"error": "bad", "code": "invalid"}),
        (
            game_errors.InvalidMove("taken", cell="F5", code="occupied"),
            400,
            {"error": "taken", "cell": "F5", "code": "occupied"},
        ),
        (
            game_errors.InvalidMove("no cell"),
            400,
            {"error": "no cell", "code": "invalid", "cell": None},
        ),
        (game_errors.NotAllowed("not yours"), 403, {"error": "not yours", "code": "not_allowed"}),
        (
            game_errors.GameNotFound(7),
            404,
            {"error": "There is no game 7.", "code": "not_found"},
        ),
        (
            game_errors.StalePly("stale", ply=3),
            409,
            {"error": "stale", "code": "conflict", "ply": 3},
        ),
        (game_errors.LimitReached("too many"), 409, {"error": "too many", "code": "conflict"}),
        (PuzzleError("illegal", "A2"), 400, {"error": "illegal", "code": "invalid", "cell": "A2"}),
        (
            PuzzleNotFound("no puzzle"),
            404,
            {"error": "no puzzle", "code": "not_found", "cell": None},
        ),
    ],
)
def test_domain_errors_answer_with_the_status_of_their_kind(error, status, body):
    assert isinstance(error, ApplicationError)
    response = _answer(error)
    assert (response.status_code, response.data) == (status, body)


def test_a_django_validation_error_from_a_service_answers_like_invalid_input():
    response = _answer(ValidationError({"username": ["Taken."]}))
    assert response.status_code == 400
    assert response.data == {
        "error": "username: Taken.",
        "code": "invalid",
        "username": ["Taken."],
    }


def test_other_exceptions_are_left_to_django():
    assert _answer(RuntimeError("a bug")) is None

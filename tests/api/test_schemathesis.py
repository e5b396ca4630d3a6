"""The schema is the truth: schemathesis sends generated requests (valid and invalid ones) to every
operation of ``/api/schema/`` through the WSGI app and runs all of its checks on each answer
(no 5xx, only documented statuses and content types, bodies that match the declared schema,
invalid input refused, ...). Any finding fails the test.

The number of examples per operation is bounded (``SIESTA_SCHEMATHESIS_EXAMPLES``, default 12)
so the run stays well under two minutes. ``/api/auth/logout/`` is left out: it deletes the
token the other requests sign in with.
"""

from __future__ import annotations

import os

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.factories import UserFactory

EXAMPLES = int(os.environ.get("SIESTA_SCHEMATHESIS_EXAMPLES", "12"))


@pytest.fixture
def _connections_kept():
    """Requests go straight to the WSGI handler: keep the test's database connection open
    across them (as Django's test client does), so every request sees the test transaction."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture(autouse=True)
def _no_throttling(settings):
    """Every operation documents 429, but throttling here would only measure the run."""
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": dict.fromkeys(rates),
    }


@pytest.fixture
def token(db):
    return Token.objects.create(user=UserFactory()).key


schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
schema.config.generation.update(
    modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
    max_examples=EXAMPLES,
    deterministic=True,
    database="none",
    # JSON with a NUL character is refused (400, core.safejson: PostgreSQL cannot store
    # one), as docs/api.md says: no string of the API may hold one.
    allow_x00=False,
)
schema = schema.exclude(path="/api/auth/logout/")


# Operations whose schema-valid input may still be refused (400, in the documented error shape)
# by a rule no JSON Schema states: the game's rules, a password's strength, the credentials,
# combinations of settings. The check that a valid body is accepted is left out for these only;
# every other check (including the shape of that 400) still runs.
RULES_BEYOND_THE_SCHEMA = {
    "POST /api/analysis/best/": "the record or position must be one a game can reach",
    "POST /api/analysis/line/": "the record or position must be one a game can reach",
    "POST /api/analysis/turn/": "a legal position, and a turn in the notation",
    "POST /api/auth/register/": "a taken username, a weak password",
    "POST /api/auth/token/": "wrong credentials",
    "POST /api/games/": "bots on seats 2..players, teams need 4 players",
    "POST /api/seeks/": "teams need 4 players",
    "POST /api/tournaments/": "format, table size, mode and rounds must fit together",
    "POST /api/tokens/": "a name of more than spaces, an expiry in the future",
    "POST /api/games/{game_id}/moves/": "a legal turn in the notation",
    "POST /api/puzzles/{puzzle_id}/attempts/": "a turn in the notation",
}


@pytest.mark.requires_postgres
@pytest.mark.usefixtures("_connections_kept")
@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_every_operation_answers_as_its_schema_says(case, token):
    excluded = []
    if case.operation.label in RULES_BEYOND_THE_SCHEMA:
        excluded.append(positive_data_acceptance)
    case.call_and_validate(headers={"Authorization": f"Token {token}"}, excluded_checks=excluded)

"""Shared fixtures, and the markers for tests that need the real services.

`@pytest.mark.requires_postgres` and `@pytest.mark.requires_redis` skip a test, with the reason
shown, when DATABASE_URL is not PostgreSQL or Redis at REDIS_URL does not answer. In CI
(`CI=true`) the run stops with an error instead, so a missing service can't pass unnoticed.
"""

import functools
import os

import pytest
import redis
from django.conf import settings
from django.utils import translation

from tests.factories import UserFactory
from tests.live_server import live_server_url  # noqa: F401 - the one live site of a test run
from tests.payloads import broadcasts  # noqa: F401 - a fixture for every app's broadcast tests


@functools.cache
def _postgres_missing() -> str | None:
    engine = settings.DATABASES["default"]["ENGINE"]
    if engine != "django.db.backends.postgresql":
        return f"needs PostgreSQL: DATABASE_URL selects {engine}"
    return None


@functools.cache
def _redis_missing() -> str | None:
    if not settings.REDIS_URL:
        return "needs Redis: REDIS_URL is not set"
    try:
        redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        return f"needs Redis: {settings.REDIS_URL} does not answer ({exc})"
    return None


_REQUIREMENTS = {"requires_postgres": _postgres_missing, "requires_redis": _redis_missing}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    in_ci = os.environ.get("CI", "").lower() in ("1", "true", "yes")
    for item in items:
        for marker, missing in _REQUIREMENTS.items():
            if item.get_closest_marker(marker) and (reason := missing()):
                if in_ci:
                    raise pytest.UsageError(f"{item.nodeid} {reason} (CI is set: not skipping)")
                item.add_marker(pytest.mark.skip(reason=reason))


_SERVICES = {"needs PostgreSQL": "PostgreSQL", "needs Redis": "Redis"}


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line at the end saying how many tests the missing services left out, and how to run
    them (`make test` on a bare machine skips them)."""
    counts = dict.fromkeys(_SERVICES.values(), 0)
    for report in terminalreporter.stats.get("skipped", []):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
        for prefix, service in _SERVICES.items():
            if prefix in reason:
                counts[service] += 1
    if not any(counts.values()):
        return
    needs = " and ".join(
        f"{n} {'needs' if n == 1 else 'need'} {service}" for service, n in counts.items() if n
    )
    terminalreporter.write_line(
        f"Skipped here: {needs} (row locks, races, the cross-process channel layer, the full "
        "stack). To run them too: DATABASE_URL=postgres://... REDIS_URL=redis://... make test "
        "(docs/testing.md)."
    )


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def user(db):
    return UserFactory()


def pytest_configure(config: pytest.Config) -> None:
    """No background threads for the whole session, from before collection on: a module that
    requests a page while it is imported (schemathesis reads the schema so) would otherwise start
    the in-process beat and the heartbeat, whose writes then leak into every later test; nor may
    a request that a test's thread makes after the test has ended."""
    from django.conf import settings as django_settings

    django_settings.SIESTA_INPROCESS_BEAT = False
    django_settings.SIESTA_TASKS_IN_THREADS = False
    django_settings.SIESTA_HEARTBEAT = False  # tests of the turn clocks beat by hand


@pytest.fixture(autouse=True)
def _celery_eager(settings):
    """Tasks run in-process in tests (a dedicated integration test uses a real worker)."""
    from siesta_site.celery import app

    # Synchronously, in the test's thread: no background threads, no in-process beat.
    settings.SIESTA_TASKS_IN_THREADS = False
    settings.SIESTA_INPROCESS_BEAT = False
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


@pytest.fixture(autouse=True)
def _database_threads_hand_back_their_connections():
    """The consumers' database threads keep their connections between calls (games.consumers):
    hand them back after each test, so that none outlives the test database."""
    yield
    from games.consumers import release_db_connections

    release_db_connections()


@pytest.fixture(autouse=True)
def _english_to_start():
    """Every test starts in English. A request through LocaleMiddleware leaves its language active
    in the thread, so without this a test could see the language of the one that ran before it."""
    with translation.override(settings.LANGUAGE_CODE):
        yield


@pytest.fixture(autouse=True)
def _throttles_off(request, settings):
    """Tests make many requests from one address: throttles are off, except in tests that ask
    for ``real_throttles``."""
    if "real_throttles" in request.fixturenames:
        return
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {}}


@pytest.fixture
def real_throttles(settings):
    """The configured limits, counted in a cache of this test's own; returns the rates."""
    import uuid

    from rest_framework.settings import api_settings

    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"throttles-{uuid.uuid4()}",
        }
    }
    return api_settings.DEFAULT_THROTTLE_RATES


@pytest.fixture(autouse=True)
def _engine_inline_and_unbudgeted(request, settings):
    """Searches run in the test's thread (no pool to spawn) and draw from no budget, except in
    tests that ask for ``engine_budget``."""
    settings.SIESTA_ENGINE_POOL = False
    if "engine_budget" not in request.fixturenames:
        settings.SIESTA_ENGINE_BUDGET = 0


@pytest.fixture
def engine_budget(settings):
    """The engine budget on, counted in a cache of this test's own, on a clock the test moves:
    ``engine_budget.now`` is the time, ``engine_budget.budget`` the buckets."""
    import types
    import uuid

    from games import engine_budget as module

    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"engine-budget-{uuid.uuid4()}",
        }
    }
    settings.SIESTA_ENGINE_BUDGET = 2.0
    settings.SIESTA_ENGINE_BUDGET_WINDOW = 60.0
    clock = types.SimpleNamespace(now=1_000_000.0, budget=module.BUDGET)
    previous = module.BUDGET.clock
    module.BUDGET.clock = lambda: clock.now
    yield clock
    module.BUDGET.clock = previous

"""The rule-level service tests on SQLite too, when the suite runs on PostgreSQL (as CI does).

A move takes one path on every database (docs/performance.md, "The move's path"), but the SQL
under it is each database's own (one statement on PostgreSQL, a statement per row elsewhere), and
a Django test process has one database. So this test runs ``tests/games/services/`` and
``tests/games/test_rows.py`` once more in a pytest of their own with ``DATABASE_URL`` and
``REDIS_URL`` unset: SQLite in memory and the in-memory channel layer, as ``make test`` runs them
with no services (docs/testing.md). The races on threads and the PostgreSQL statements' text
(``requires_postgres``) stay in the PostgreSQL run. On SQLite the suite ran them already: skipped.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.conf import settings

SUITES = ["tests/games/services", "tests/games/test_rows.py"]


def test_the_service_tests_pass_on_sqlite_too():
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("this run is on SQLite already: it runs the service tests itself")
    unset = ("DATABASE_URL", "REDIS_URL", "CI", "PYTEST_ADDOPTS")
    env = {name: value for name, value in os.environ.items() if name not in unset}
    command = [
        *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"),
        *("-m", "not requires_postgres and not requires_redis"),
        *SUITES,
    ]
    run = subprocess.run(
        command, cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]

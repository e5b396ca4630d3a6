"""The consumers' database work runs in a bounded pool of threads (not asgiref's one shared thread),
and every call hands its connection back (PostgreSQL's pool)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from django.db import connection

from games import consumers

pytestmark = [pytest.mark.requires_postgres, pytest.mark.django_db(transaction=True)]


def _slow_query() -> tuple[str, bool]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_sleep(0.3)")
    return threading.current_thread().name, connection.connection is not None


async def test_calls_run_side_by_side_in_the_pool_and_release_their_connections(settings):
    settings.SIESTA_DB_THREADS = 4
    start = time.perf_counter()
    results = await asyncio.gather(*(consumers.db_call(_slow_query)() for _ in range(4)))
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0, "four 0.3 s queries must not run one after the other"
    assert all(name.startswith("siesta-db") for name, _ in results)
    assert len({name for name, _ in results}) > 1

    def still_connected() -> bool:
        return connection.connection is not None

    assert not any(await asyncio.gather(*(consumers.db_call(still_connected)() for _ in range(8))))


def test_sqlite_keeps_channels_thread_sensitive_call(settings):
    settings.SIESTA_DB_THREADS = 1
    assert consumers.db_call(_slow_query).__class__.__name__ == "DatabaseSyncToAsync"

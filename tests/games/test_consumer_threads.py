"""The consumers' database work runs in a bounded pool of threads (not asgiref's one shared thread).
A thread keeps its connection from one call to the next, and hands it back to PostgreSQL's pool
when a call left it unfit: after a database error, inside a transaction, or held too long."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import DatabaseError, connection, transaction

from games import consumers

pytestmark = [pytest.mark.requires_postgres, pytest.mark.django_db(transaction=True)]


def _slow_query() -> tuple[str, bool]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_sleep(0.3)")
    return threading.current_thread().name, connection.connection is not None


async def test_calls_run_side_by_side_in_the_pool(settings):
    settings.SIESTA_DB_THREADS = 4
    start = time.perf_counter()
    results = await asyncio.gather(*(consumers.db_call(_slow_query)() for _ in range(4)))
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0, "four 0.3 s queries must not run one after the other"
    assert all(name.startswith("siesta-db") for name, _ in results)
    assert len({name for name, _ in results}) > 1


@pytest.fixture
def one_thread(settings):
    """A pool of one database thread, so that consecutive calls share it."""
    settings.SIESTA_DB_THREADS = 2  # more than one: the pool of threads, not Channels' thread
    single = ThreadPoolExecutor(max_workers=1, thread_name_prefix="siesta-db-test")
    previous, consumers._executor = consumers._executor, single
    yield
    consumers._executor = previous
    single.submit(lambda: connection.close()).result()
    single.shutdown()


def _backend() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def _connected() -> bool:
    return connection.connection is not None


async def test_a_thread_keeps_its_connection_between_calls(one_thread):
    first = await consumers.db_call(_backend)()
    second = await consumers.db_call(_backend)()
    assert first == second
    assert await consumers.db_call(_connected)()
    # Kept idle in autocommit, outside any transaction.
    assert await consumers.db_call(
        lambda: (connection.get_autocommit(), connection.in_atomic_block)
    )() == (True, False)


def _fails_in_the_database() -> None:
    # A ProgrammingError: Django marks the connection (errors_occurred). It does not for a
    # DataError or an IntegrityError, after which the connection is as good as before.
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM no_such_table")


def _leaves_a_transaction_open() -> int:
    transaction.set_autocommit(False)
    return _backend()


async def test_a_connection_that_saw_an_error_is_handed_back(one_thread):
    await consumers.db_call(_backend)()
    with pytest.raises(DatabaseError):
        await consumers.db_call(_fails_in_the_database)()
    assert not await consumers.db_call(_connected)()


async def test_a_connection_left_in_a_transaction_is_handed_back_rolled_back(one_thread):
    await consumers.db_call(_leaves_a_transaction_open)()
    assert not await consumers.db_call(_connected)()
    assert await consumers.db_call(lambda: connection.get_autocommit())()


async def test_a_connection_held_too_long_is_handed_back(one_thread, monkeypatch):
    assert await consumers.db_call(_backend)()
    monkeypatch.setattr(consumers, "HOLD_SECONDS", 0.0)
    assert await consumers.db_call(_connected)()  # still held during this call, handed back after
    assert not await consumers.db_call(_connected)()


async def test_release_hands_back_every_threads_connection(settings):
    settings.SIESTA_DB_THREADS = 4
    await asyncio.gather(*(consumers.db_call(_slow_query)() for _ in range(4)))
    consumers.release_db_connections()
    connected = await asyncio.gather(*(consumers.db_call(_slow_connected)() for _ in range(4)))
    assert connected == [False] * 4


def _slow_connected() -> bool:
    time.sleep(0.1)  # so that the four calls take four threads
    return _connected()


def test_sqlite_keeps_channels_thread_sensitive_call(settings):
    settings.SIESTA_DB_THREADS = 1
    assert consumers.db_call(_slow_query).__class__.__name__ == "DatabaseSyncToAsync"

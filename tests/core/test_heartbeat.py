"""The process heartbeat (core.heartbeat): it beats while Redis answers, and a beat that fails
(the database or Redis down) leaves a gap rather than stopping the thread."""

from __future__ import annotations

import threading

import pytest

from core import heartbeat

BEATS: list[str] = []
BEATEN = threading.Event()


def beat_ok() -> None:
    BEATS.append("ok")
    BEATEN.set()


def beat_failing_once() -> None:
    """The database is down for the first beat, back for the next."""
    BEATS.append("try")
    if BEATS.count("try") == 1:
        raise ConnectionError("the database is down")
    BEATEN.set()


@pytest.fixture(autouse=True)
def _clean(settings):
    BEATS.clear()
    BEATEN.clear()
    settings.SIESTA_HEARTBEAT_SECONDS = 0.01
    yield
    heartbeat.stop_heartbeat()


def test_no_beat_while_redis_does_not_answer(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    settings.SIESTA_HEARTBEAT_BEAT = "tests.core.test_heartbeat.beat_ok"
    assert heartbeat.redis_answers() is False
    assert heartbeat.beat_once() is False
    assert BEATS == []


def test_without_redis_the_beat_runs(settings):
    settings.REDIS_URL = None
    settings.SIESTA_HEARTBEAT_BEAT = "tests.core.test_heartbeat.beat_ok"
    assert heartbeat.beat_once() is True
    assert BEATS == ["ok"]


def test_the_thread_starts_once_and_beats_on_after_a_failed_beat(settings):
    settings.REDIS_URL = None
    settings.SIESTA_HEARTBEAT = True
    settings.SIESTA_HEARTBEAT_BEAT = "tests.core.test_heartbeat.beat_failing_once"
    started = heartbeat.start_heartbeat()
    assert started is not None
    assert heartbeat.start_heartbeat() is None  # once per process
    assert BEATEN.wait(10)
    assert BEATS[:2] == ["try", "try"]


def test_off_it_starts_no_thread(settings):
    settings.SIESTA_HEARTBEAT = False
    assert heartbeat.start_heartbeat() is None

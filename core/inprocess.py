"""Enqueuing Celery tasks, and running them in this process when there is no broker.

Infrastructure shared by every app (it knows no app's tasks). Two ways to run tasks:

- With ``REDIS_URL`` set, in worker processes (``make worker``) fed by the broker, the periodic
  ones sent by ``make beat`` (``CELERY_BEAT_SCHEDULE``).
- With the embedded defaults (no Redis: Celery is eager), in the server's process. Tasks enqueued
  by a request then run in a small pool of background threads, so a bot thinking for a second
  never blocks the server (``SIESTA_TASKS_IN_THREADS``), and a daemon thread runs the beat schedule
  (``SIESTA_INPROCESS_BEAT``), started by the first request the server answers
  (``SiestaSiteConfig.ready``). Tests turn both off and run tasks synchronously.

Queues (``queue_for``, which the project's Celery router asks too): bot turns, analyses and
periodic work each have their own, so that one account's hard bots or a burst of analyses never
hold up another's bot reply or the clocks. The in-process runner keeps the same separation with
one thread pool per queue.

Enqueuing (``enqueue``, the one function every app's ``enqueue.py`` calls) happens after a commit
and never fails the request that committed: a task that could not be sent (broker down) is logged,
and the apps' periodic sweeps send it again.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from celery.schedules import maybe_schedule
from django.conf import settings
from django.db import close_old_connections, connections
from django.utils.module_loading import import_string

logger = logging.getLogger(__name__)


@functools.cache
def celery_app() -> Any:
    """The project's Celery app, named by ``SIESTA_CELERY_APP`` (the core imports no project
    module: the composition root, ``siesta_site.celery``, says where its app is)."""
    return import_string(settings.SIESTA_CELERY_APP)


def queue_for(task_name: str) -> str:
    """The queue a task goes to: ``SIESTA_TASK_QUEUES`` by task name, else the default queue.

    Read at each call (a Celery router), so settings overridden in tests take effect."""
    queues: dict[str, str] = getattr(settings, "SIESTA_TASK_QUEUES", {})
    return queues.get(task_name) or celery_app().conf.task_default_queue


def tasks_in_threads() -> bool:
    """Whether enqueued tasks run in this process's background threads (eager Celery, outside
    tests) rather than through the broker or synchronously."""
    return bool(
        celery_app().conf.task_always_eager and getattr(settings, "SIESTA_TASKS_IN_THREADS", False)
    )


POOL_THREADS = {"bots": 2}
"""Threads per queue for the in-process runner; one for any other queue."""

_executors: dict[str, ThreadPoolExecutor] = {}
_executor_lock = threading.Lock()
_idle = threading.Condition(_executor_lock)
_in_flight: dict[tuple[str, tuple[Any, ...]], Future[None]] = {}


def enqueue(task: Any, *args: Any) -> bool:
    """Send ``task(*args)`` to its queue (or run it, see above). ``task`` is a Celery task or the
    name it is registered under (as ``send_task`` takes it: the caller need not import the task's
    module). Returns whether it was sent; a broker that cannot take it is logged, not raised (the
    sweeps send it again)."""
    if isinstance(task, str):
        task = celery_app().tasks[task]
    if not tasks_in_threads():
        if celery_app().conf.task_always_eager:  # tests: run now, and let a failure fail the test
            task.delay(*args)
            return True
        try:
            task.delay(*args)
        except Exception:
            logger.warning("could not enqueue %s%r; a periodic sweep will", task.name, args)
            return False
        return True
    key = (task.name, args)
    # A pool per queue, as the workers have: analyses (seconds each) never hold up bot turns.
    pool = queue_for(task.name)
    with _executor_lock:
        if key in _in_flight:  # the same job is already queued or running here
            return True
        if pool not in _executors:
            _executors[pool] = ThreadPoolExecutor(
                max_workers=POOL_THREADS.get(pool, 1), thread_name_prefix=f"siesta-{pool}"
            )
        _in_flight[key] = _executors[pool].submit(_run_in_thread, key, task, args)
    return True


def drain(timeout: float = 120.0) -> bool:
    """Drop the tasks still queued in this process and wait for the running ones to end; whether
    they all did within ``timeout`` seconds. Tests call it before their database is emptied or
    dropped, so that no task of one test writes into the next one's data."""
    deadline = time.monotonic() + timeout
    with _idle:
        for key, future in list(_in_flight.items()):
            if future.cancel():
                del _in_flight[key]
        while _in_flight:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            _idle.wait(left)
    return True


dispatch = enqueue
"""The former name of ``enqueue``."""


def _run_in_thread(key: tuple[str, tuple[Any, ...]], task: Any, args: tuple[Any, ...]) -> None:
    close_old_connections()
    try:
        task(*args)
    except Exception:
        logger.exception("task %s%r failed", task.name, args)
    finally:
        with _idle:
            _in_flight.pop(key, None)
            _idle.notify_all()
        connections.close_all()


class Daemon:
    """A loop in a daemon thread of this process, every ``tick`` seconds until stopped
    (``_run`` waits on ``_stop``)."""

    thread_name = "siesta-daemon"

    def __init__(self, tick: float = 1.0) -> None:
        self.tick = tick
        self._stop = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
        self.thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self.thread is not None:
            self.thread.join(timeout)

    def _run(self) -> None:
        raise NotImplementedError


class InProcessBeat(Daemon):
    """Runs ``CELERY_BEAT_SCHEDULE`` in a daemon thread of this process, as ``celery beat`` would
    send it to a worker: each due task is dispatched like any enqueued task."""

    thread_name = "siesta-beat"

    def _entries(self) -> list[tuple[str, Any, Any, tuple[Any, ...]]]:
        entries = []
        for name, entry in settings.CELERY_BEAT_SCHEDULE.items():
            task = celery_app().tasks.get(entry["task"])
            if task is None:
                logger.warning("periodic task %s (%s) is not registered", name, entry["task"])
                continue
            schedule = maybe_schedule(entry["schedule"], app=celery_app())
            entries.append((name, schedule, task, tuple(entry.get("args", ()))))
        return entries

    def _run(self) -> None:
        entries = self._entries()
        last_run = {name: schedule.now() for name, schedule, _task, _args in entries}
        while not self._stop.wait(self.tick):
            for name, schedule, task, args in entries:
                due, _next = schedule.is_due(last_run[name])
                if not due:
                    continue
                last_run[name] = schedule.now()
                try:
                    enqueue(task, *args)
                except Exception:
                    logger.exception("periodic task %s failed", name)
                finally:
                    close_old_connections()
        connections.close_all()


_beat: InProcessBeat | None = None
_beat_lock = threading.Lock()


def start_inprocess_beat(**_signal_kwargs: Any) -> InProcessBeat | None:
    """Start, once per process, the periodic tasks in a daemon thread when there is no broker.

    Connected to ``request_started`` in ``SiestaSiteConfig.ready``: it only starts in a process
    that serves requests (``make run``), with eager Celery and ``SIESTA_INPROCESS_BEAT`` on, so
    never in management commands, workers or tests. Returns the beat this call started, if any."""
    global _beat
    if _beat is not None or not getattr(settings, "SIESTA_INPROCESS_BEAT", False):
        return None
    if not celery_app().conf.task_always_eager:
        return None
    with _beat_lock:
        if _beat is not None:
            return None
        _beat = InProcessBeat()
        _beat.start()
    logger.info("no broker: running the periodic tasks in this process")
    return _beat


def stop_inprocess_beat() -> None:
    """Stop the in-process beat (tests)."""
    global _beat
    with _beat_lock:
        beat, _beat = _beat, None
    if beat is not None:
        beat.stop()

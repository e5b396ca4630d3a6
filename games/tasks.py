"""Celery tasks of the games app. Thin: they take ids and call services.

Two ways to run them:

- With ``REDIS_URL`` set, in worker processes (``make worker``) fed by the broker, the periodic
  ones sent by ``make beat`` (``CELERY_BEAT_SCHEDULE``).
- With the embedded defaults (no Redis: Celery is eager), in the server's process. Tasks enqueued
  by a request then run in a small pool of background threads, so a bot thinking for a second
  never blocks the server (``SIESTA_TASKS_IN_THREADS``), and a daemon thread runs the beat schedule
  (``SIESTA_INPROCESS_BEAT``), started by the first request the server answers. Tests turn both
  off and run tasks synchronously.

Queues (``siesta_site.celery.queue_for``): bot turns, analyses and periodic work each have their
own, so that one account's hard bots or a burst of analyses never hold up another's bot reply or
the clocks. The in-process runner keeps the same separation with one thread pool per queue.

Enqueuing happens after a commit and never fails the request that committed: a task that could not
be sent (broker down) is logged, and the periodic sweeps below send it again (bot turns still
waiting, finished games without analysis).
"""

from __future__ import annotations

import logging
import random
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import close_old_connections, connections

logger = logging.getLogger(__name__)

BOT_TURN_STALL = timedelta(seconds=5)
"""A bot turn still waiting this long after the last turn is enqueued again."""

ANALYSIS_STALL = timedelta(minutes=1)
"""A finished game still without its analysis this long after the end is analysed again."""


@shared_task(acks_late=True)  # type: ignore[untyped-decorator]
def bot_move(game_id: int, ply: int) -> bool:
    """Play the bot's turn of ``game_id`` at ``ply``.

    Whatever the task finds (the game moved on, ended, was resigned, or this task already ran),
    it changes nothing unless it is still that bot's turn at ``ply``: the move service checks it
    again under the game's lock. Returns whether it played."""
    from games import bots, services
    from games.models import Game
    from games.selectors import game_seats, position_of

    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != Game.Status.ACTIVE or game.ply != ply:
        return False
    seats = game_seats(game)
    seat = game.seat_to_move(seats)
    if seat is None or not seat.played_by_bot:
        return False
    turn = bots.choose_turn(position_of(game, seats), seat.level_for_bot, random.Random())
    if turn is None:
        logger.warning("bot found no scoring turn in game %s at ply %s", game_id, ply)
        return False
    try:
        return services.game_bot_move_make(game_id=game_id, ply=ply, move=str(turn))
    except services.GameServiceError as exc:
        logger.error("bot turn %s refused in game %s at ply %s: %s", turn, game_id, ply, exc)
        return False


@shared_task(acks_late=True)  # type: ignore[untyped-decorator]
def analyse_game(game_id: int) -> bool:
    """Analyse a finished game (once: a repeat finds the stored analysis). Returns whether an
    analysis is stored."""
    from games.analysis import game_analyse

    return game_analyse(game_id=game_id) is not None


@shared_task  # type: ignore[untyped-decorator]
def expire_turns() -> list[int]:
    """Periodic: players whose turn time ran out are out."""
    from games import services

    return services.game_turn_timeouts_expire()


@shared_task  # type: ignore[untyped-decorator]
def expire_open_games() -> list[int]:
    """Periodic: open games nobody joined for ``SIESTA_OPEN_GAME_MINUTES`` are cancelled."""
    from games import services

    return services.game_open_expire()


@shared_task  # type: ignore[untyped-decorator]
def requeue_bot_turns() -> int:
    """Periodic: re-enqueue bot turns still waiting, so a lost task never stalls a game."""
    from games import services

    waiting = services.bot_turns_waiting(older_than=BOT_TURN_STALL)
    for game_id, ply in waiting:
        enqueue_bot_move(game_id, ply)
    return len(waiting)


@shared_task  # type: ignore[untyped-decorator]
def requeue_analyses() -> int:
    """Periodic: analyse finished games whose analysis never arrived (a lost task)."""
    from games.analysis import games_awaiting_analysis

    waiting = games_awaiting_analysis(finished_before=ANALYSIS_STALL)
    for game_id in waiting:
        enqueue_analysis(game_id)
    return len(waiting)


def enqueue_bot_move(game_id: int, ply: int) -> None:
    """Called by the services once the commit that made it a bot's turn is done."""
    _dispatch(bot_move, game_id, ply)


def enqueue_analysis(game_id: int) -> None:
    """Called by the services once the commit that finished the game is done."""
    _dispatch(analyse_game, game_id)


def dispatch(task: Any, *args: Any) -> None:
    """Enqueue ``task`` as the games app's own tasks are (other apps' tasks use it too)."""
    _dispatch(task, *args)


# -- in-process mode (no broker) -------------------------------------------------------------


def tasks_in_threads() -> bool:
    """Whether enqueued tasks run in this process's background threads (eager Celery, outside
    tests) rather than through the broker or synchronously."""
    from siesta_site.celery import app

    return bool(app.conf.task_always_eager and getattr(settings, "SIESTA_TASKS_IN_THREADS", False))


POOL_THREADS = {"bots": 2}
"""Threads per queue for the in-process runner; one for any other queue."""

_executors: dict[str, ThreadPoolExecutor] = {}
_executor_lock = threading.Lock()
_in_flight: set[tuple[str, tuple[Any, ...]]] = set()


def _dispatch(task: Any, *args: Any) -> bool:
    """Send ``task(*args)`` to its queue (or run it, see above). Returns whether it was sent; a
    broker that cannot take it is logged, not raised (the sweeps send it again)."""
    from siesta_site.celery import app, queue_for

    if not tasks_in_threads():
        if app.conf.task_always_eager:  # tests: run now, and let a failure fail the test
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
        _in_flight.add(key)
        if pool not in _executors:
            _executors[pool] = ThreadPoolExecutor(
                max_workers=POOL_THREADS.get(pool, 1), thread_name_prefix=f"siesta-{pool}"
            )
        _executors[pool].submit(_run_in_thread, key, task, args)
    return True


def _run_in_thread(key: tuple[str, tuple[Any, ...]], task: Any, args: tuple[Any, ...]) -> None:
    close_old_connections()
    try:
        task(*args)
    except Exception:
        logger.exception("task %s%r failed", task.name, args)
    finally:
        with _executor_lock:
            _in_flight.discard(key)
        connections.close_all()


class InProcessBeat:
    """Runs ``CELERY_BEAT_SCHEDULE`` in a daemon thread of this process, as ``celery beat`` would
    send it to a worker: each due task is dispatched like any enqueued task."""

    def __init__(self, tick: float = 1.0) -> None:
        self.tick = tick
        self._stop = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, name="siesta-beat", daemon=True)
        self.thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self.thread is not None:
            self.thread.join(timeout)

    def _entries(self) -> list[tuple[str, Any, Any, tuple[Any, ...]]]:
        from celery.schedules import maybe_schedule

        from siesta_site.celery import app

        entries = []
        for name, entry in settings.CELERY_BEAT_SCHEDULE.items():
            task = app.tasks.get(entry["task"])
            if task is None:
                logger.warning("periodic task %s (%s) is not registered", name, entry["task"])
                continue
            schedule = maybe_schedule(entry["schedule"], app=app)
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
                    _dispatch(task, *args)
                except Exception:
                    logger.exception("periodic task %s failed", name)
                finally:
                    close_old_connections()
        connections.close_all()


_beat: InProcessBeat | None = None
_beat_lock = threading.Lock()


def start_inprocess_beat(**_signal_kwargs: Any) -> InProcessBeat | None:
    """Start, once per process, the periodic tasks in a daemon thread when there is no broker.

    Connected to ``request_started`` in ``GamesConfig.ready``: it only starts in a process that
    serves requests (``make run``), with eager Celery and ``SIESTA_INPROCESS_BEAT`` on, so never
    in management commands, workers or tests. Returns the beat this call started, if any."""
    global _beat
    if _beat is not None or not getattr(settings, "SIESTA_INPROCESS_BEAT", False):
        return None
    from siesta_site.celery import app

    if not app.conf.task_always_eager:
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

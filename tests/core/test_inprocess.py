"""The in-process task runner and beat (``core.inprocess``), used without a broker:
enqueued tasks run in a thread pool per queue, the beat schedule in a daemon thread that the first
request starts; tests run tasks synchronously. Exercised with the games app's real tasks."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import connections
from django.utils import timezone

from core import inprocess
from games import enqueue, tasks
from games.models import Game, Seat
from tests.games.factories import make_game
from tests.games.services.helpers import play_best_turn
from tests.siesta_site.helpers import in_a_fresh_process


def _wait_for(condition, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_the_test_session_runs_no_beat_nor_heartbeat():
    """Collection imports modules that request pages (the schemathesis tests read the schema so):
    none of them may start a background beat, whose writes would leak into later tests."""
    from core import heartbeat

    running = {thread.name for thread in threading.enumerate()}
    assert not running & {"siesta-beat", "siesta-heartbeat"}
    assert inprocess._beat is None
    assert heartbeat._heartbeat is None


@pytest.mark.django_db(transaction=True)
def test_without_a_broker_bot_turns_run_in_a_background_thread(settings):
    settings.SIESTA_TASKS_IN_THREADS = True
    assert inprocess.tasks_in_threads()
    game = make_game(players=2, bots=[(2, "medium")])
    caller = threading.get_ident()
    seen_threads: list[int] = []
    original = tasks.bot_move.run

    def spy(game_id: int, ply: int) -> bool:
        seen_threads.append(threading.get_ident())
        return original(game_id, ply)

    tasks.bot_move.run = spy
    try:
        play_best_turn(game)  # commits; the bot's task goes to the pool
        assert _wait_for(lambda: Game.objects.get(pk=game.pk).ply == 2)
    finally:
        tasks.bot_move.run = original
    assert seen_threads
    assert caller not in seen_threads
    game.refresh_from_db()
    assert game.to_move == 1


@pytest.mark.django_db(transaction=True)
def test_without_a_broker_the_first_request_starts_the_periodic_tasks(settings, client):
    settings.SIESTA_INPROCESS_BEAT = True
    settings.CELERY_BEAT_SCHEDULE = {
        "expire-turns": {"task": "games.tasks.expire_turns", "schedule": 0.2},
    }
    game = make_game(players=3, bots=[(3, "medium")])
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    try:
        client.get("/")
        assert inprocess._beat is not None
        assert _wait_for(lambda: Seat.objects.get(game=game, seat=1).out_reason != "")
    finally:
        inprocess.stop_inprocess_beat()
        connections.close_all()
    assert Seat.objects.get(game=game, seat=1).out_reason == Seat.OutReason.TIMEOUT


def test_bot_turns_analyses_and_periodic_work_have_queues_of_their_own(settings):
    from siesta_site.celery import app, route_task

    def queue(name: str) -> str:
        return route_task(name, (), {}, {})["queue"]

    assert queue(tasks.bot_move.name) == "bots"
    assert queue(tasks.analyse_game.name) == "analyses"
    periodic = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert periodic >= {"games.tasks.expire_turns", "games.tasks.expire_open_games"}
    # The puzzle pool's top-up plays bot games: engine work, on the analyses queue.
    engine_work = {"learn.tasks.puzzle_pool_top_up"}
    assert periodic >= engine_work
    assert {queue(name) for name in periodic - engine_work} == {"periodic"}
    assert {queue(name) for name in engine_work} == {"analyses"}
    assert queue("some.other.task") == app.conf.task_default_queue == "celery"
    # Celery itself routes by it.
    assert app.amqp.router.route({}, tasks.bot_move.name)["queue"].name == "bots"


@pytest.mark.django_db(transaction=True)
def test_without_a_broker_each_queue_has_its_own_threads(settings):
    settings.SIESTA_TASKS_IN_THREADS = True
    ran: dict[str, str] = {}
    originals = {task: task.run for task in (tasks.bot_move, tasks.analyse_game)}
    release = threading.Event()

    def slow_analysis(game_id: int) -> bool:
        ran["analyses"] = threading.current_thread().name
        release.wait(30)  # an analysis that takes long...
        return False

    def bot(game_id: int, ply: int) -> bool:
        ran["bots"] = threading.current_thread().name
        return False

    tasks.analyse_game.run = slow_analysis
    tasks.bot_move.run = bot
    try:
        enqueue.enqueue_analysis(1)
        assert _wait_for(lambda: "analyses" in ran)
        enqueue.enqueue_bot_move(1, 0)  # ...does not hold up a bot turn
        assert _wait_for(lambda: "bots" in ran, timeout=5)
    finally:
        release.set()
        for task, run in originals.items():
            task.run = run
    assert ran["analyses"].startswith("siesta-analyses")
    assert ran["bots"].startswith("siesta-bots")


@pytest.mark.django_db(transaction=True)
def test_without_a_broker_the_seek_matcher_runs_in_a_thread_not_in_the_commit_hook(settings):
    """Every app enqueues through ``inprocess.enqueue``: a seek's triggered sweep runs in the
    periodic queue's thread, not inside the request's commit hook."""
    from social import tasks as social_tasks
    from social.services.seeks import seek_create
    from tests.factories import UserFactory

    settings.SIESTA_TASKS_IN_THREADS = True
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "t"}
    }
    ran: list[str] = []
    original = social_tasks.match_seeks.run
    social_tasks.match_seeks.run = lambda: ran.append(threading.current_thread().name) or []
    try:
        seek_create(user=UserFactory())
        assert _wait_for(lambda: bool(ran))
    finally:
        social_tasks.match_seeks.run = original
    assert ran[0] != threading.current_thread().name
    assert ran[0].startswith("siesta-")


def test_tests_run_tasks_synchronously():
    assert not inprocess.tasks_in_threads()
    assert inprocess.start_inprocess_beat() is None


def test_the_tasks_the_services_enqueue_by_name_are_registered_in_a_fresh_process():
    """``games.enqueue`` and ``social.enqueue`` name their tasks: once Django is set up (any
    process: server, worker, shell) each name is a registered task, declared under that name."""
    result = in_a_fresh_process(
        "from siesta_site.celery import app;"
        "from games import enqueue as g; from social import enqueue as s;"
        "names = [g.BOT_MOVE, g.ANALYSE_GAME, s.MATCH_SEEKS, s.EMAIL_NOTIFICATION];"
        "print(all(app.tasks[name].name == name for name in names))"
    )
    assert result.stdout.strip() == "True", result.stderr
    assert tasks.bot_move.name == enqueue.BOT_MOVE
    assert tasks.analyse_game.name == enqueue.ANALYSE_GAME


class _Blocking:
    """A task (as ``enqueue`` takes one) whose first call waits until the test lets it go."""

    name = "tests.core.blocking"

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.ran: list[int] = []

    def __call__(self, number: int) -> None:
        self.started.set()
        self.release.wait(30)
        self.ran.append(number)


def test_drain_drops_the_queued_tasks_and_waits_for_the_running_one(settings):
    settings.SIESTA_TASKS_IN_THREADS = True
    task = _Blocking()
    inprocess.enqueue(task, 1)
    inprocess.enqueue(task, 2)  # the default queue has one thread: this one waits its turn
    assert task.started.wait(30)

    assert inprocess.drain(timeout=0.05) is False  # the first is still running
    drained: list[bool] = []
    drainer = threading.Thread(target=lambda: drained.append(inprocess.drain()))
    drainer.start()
    task.release.set()
    drainer.join(30)

    assert drained == [True]
    assert task.ran == [1]  # the queued call was dropped, never run
    task.started.clear()
    assert inprocess.enqueue(task, 2)  # and may be sent again
    assert task.started.wait(30)
    assert inprocess.drain()
    assert task.ran == [1, 2]

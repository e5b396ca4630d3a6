"""A Celery worker killed in the middle of a bot's turn (docs/reliability.md): the turn is not
lost and not doubled. The task was taken but never acknowledged; the periodic sweep sends the
waiting turn again, a restarted worker plays it once, and a late copy of the old task (the broker
handing it out again) changes nothing."""

from __future__ import annotations

import os
import sys
import time
import uuid

import pytest
import redis
from django.conf import settings as django_settings

from games import services, tasks
from games.engine.search import best_turn
from games.models import Game, Turn
from games.selectors import game_get, position_of
from tests.games.factories import make_game
from tests.reliability.live import Process, database_url, wait_for

pytestmark = [
    pytest.mark.requires_postgres,
    pytest.mark.requires_redis,
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def bot_queue(settings):
    """Bot turns of this test go to a queue of its own (other runs share the Redis server)."""
    from siesta_site.celery import app

    queue = f"siesta-test-bots-{uuid.uuid4().hex[:10]}"
    settings.SIESTA_TASK_QUEUES = {**settings.SIESTA_TASK_QUEUES, "games.tasks.bot_move": queue}
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = False
    try:
        yield queue
    finally:
        app.conf.task_always_eager = previous
        redis.Redis.from_url(django_settings.REDIS_URL).delete(queue)


def start_worker(queue: str, log) -> Process:
    env = {
        **os.environ,
        "DATABASE_URL": database_url(django_settings.DATABASES["default"]),
        "REDIS_URL": django_settings.REDIS_URL,
        "CELERY_EAGER": "0",
        "DJANGO_SETTINGS_MODULE": "siesta_site.settings",
    }
    worker = Process(
        [sys.executable, "-m", "celery", "-A", "siesta_site", "worker", "--pool=solo",
         "--queues", queue, "--without-mingle", "--without-gossip", "--loglevel", "INFO"],
        env,
        log,
    )  # fmt: skip
    worker.start()
    assert wait_for(lambda: "ready." in worker.output() or not worker.running, 60), worker.output()
    return worker


def human_moves(game: Game) -> int:
    """The person (seat 1) plays the best turn; returns the ply the bot is then to play at."""
    game.refresh_from_db()
    best = best_turn(position_of(game_get(game.pk)))
    assert best.turn is not None
    services.game_move_make(
        game_id=game.pk, user=game.seats.get(seat=1).user, move=str(best.turn), ply=game.ply
    )
    return game.ply + 1


def bot_turns_at(game: Game, ply: int) -> int:
    return Turn.objects.filter(game=game, ply=ply + 1, by_bot=True).count()


def test_a_bot_turn_interrupted_by_a_worker_kill_is_played_exactly_once(
    bot_queue, tmp_path, monkeypatch
):
    game = make_game(bots=[(2, "hard")])
    log = tmp_path / "worker.log"
    started = time.monotonic()
    worker = start_worker(bot_queue, log)
    print(f"worker ready in {time.monotonic() - started:.1f} s")
    try:
        # Kill the worker as soon as it takes the bot's task, while the bot is thinking (a hard
        # bot thinks for about half a second); should it have been quicker, try the next turn.
        for _attempt in range(5):
            taken = worker.output().count("Task games.tasks.bot_move")
            ply = human_moves(game)  # committed: the bot's task goes to the queue
            assert wait_for(
                lambda taken=taken, worker=worker: (
                    worker.output().count("Task games.tasks.bot_move") > taken
                ),
                30,
                step=0.005,
            ), worker.output()
            worker.kill()
            if Game.objects.get(pk=game.pk).ply == ply:
                break  # killed mid-turn
            worker = start_worker(bot_queue, log)
        else:
            pytest.fail("the bot always finished before the kill")
        assert bot_turns_at(game, ply) == 0

        # The sweep finds the turn waiting and sends it again; a new worker plays it.
        worker = start_worker(bot_queue, log)
        done = worker.output().count("succeeded")
        monkeypatch.setattr(tasks, "BOT_TURN_STALL", tasks.BOT_TURN_STALL / 5)
        assert wait_for(lambda: tasks.requeue_bot_turns() >= 1, 15, step=0.5)
        assert wait_for(lambda: Game.objects.get(pk=game.pk).ply == ply + 1, 60)
        # A late copy of the interrupted task (as the broker redelivers it) changes nothing.
        tasks.bot_move.delay(game.pk, ply)
        assert wait_for(lambda: worker.output().count("succeeded") >= done + 2, 30), worker.output()
        time.sleep(0.5)
    finally:
        worker.stop()
    game.refresh_from_db()
    assert (game.ply, game.to_move) == (ply + 1, 1)
    assert bot_turns_at(game, ply) == 1
    assert list(game.turns.values_list("ply", flat=True)) == list(range(1, ply + 2))

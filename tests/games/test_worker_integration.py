"""A real Celery worker, fed through Redis, plays a bot's turns and analyses the finished game.

The worker is ``celery -A siesta_site worker --pool=solo`` in a subprocess pointed at this test's
database. Tasks go to a queue of this test's own, so other workers on the same Redis neither take
them nor hand this worker theirs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import redis
from django.conf import settings as django_settings

from games import selectors, services
from games.engine.search import best_turn
from games.models import Analysis, Game
from tests.games.factories import make_game
from tests.reliability.live import database_url, wait_for

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def worker_queue(settings):
    """A real worker consuming fresh queues; this process sends its tasks there (bot turns and
    analyses on queues of their own, as ``SIESTA_TASK_QUEUES`` routes them)."""
    from siesta_site.celery import app

    queue = f"siesta-test-{uuid.uuid4().hex[:12]}"
    settings.SIESTA_TASK_QUEUES = {
        "games.tasks.bot_move": f"{queue}-bots",
        "games.tasks.analyse_game": f"{queue}-analyses",
    }
    queues = [queue, *settings.SIESTA_TASK_QUEUES.values()]
    env = {
        **os.environ,
        "DATABASE_URL": database_url(django_settings.DATABASES["default"]),
        "REDIS_URL": django_settings.REDIS_URL,
        "CELERY_EAGER": "0",
        "DJANGO_SETTINGS_MODULE": "siesta_site.settings",
    }
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "siesta_site",
        "worker",
        "--pool=solo",
        "--queues",
        ",".join(queues),
        "--without-mingle",
        "--without-gossip",
        "--loglevel",
        "INFO",
    ]
    worker = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    previous = (app.conf.task_always_eager, app.conf.task_default_queue)
    app.conf.task_always_eager = False
    app.conf.task_default_queue = queue
    try:
        yield worker
    finally:
        app.conf.task_always_eager, app.conf.task_default_queue = previous
        worker.terminate()
        try:
            output, _ = worker.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            worker.kill()
            output, _ = worker.communicate()
        redis.Redis.from_url(django_settings.REDIS_URL).delete(*queues)
        if os.environ.get("SIESTA_SHOW_WORKER_LOG"):
            print(output)


@pytest.mark.requires_redis
@pytest.mark.requires_postgres
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_plays_the_bots_turns_and_analyses_the_game(worker_queue):
    game = make_game(players=2, bots=[(2, "medium")])
    person = game.seats.get(seat=1).user
    for ply in (0, 2):
        best = best_turn(selectors.position_of(selectors.game_get(game.pk)))
        # Committed at once (transaction=True): the bot's task goes to Redis, the worker plays.
        services.game_move_make(game_id=game.pk, user=person, move=str(best.turn), ply=ply)
        assert wait_for(lambda ply=ply: Game.objects.get(pk=game.pk).ply == ply + 2, 40), (
            f"the worker did not answer the move at ply {ply}"
        )
        assert worker_queue.poll() is None, "the worker stopped"
    game.refresh_from_db()
    assert game.to_move == 1
    assert list(game.turns.filter(by_bot=True).values_list("ply", flat=True)) == [2, 4]

    services.game_resign(game_id=game.pk, user=person)
    assert wait_for(
        lambda: Analysis.objects.filter(game=game, status=Analysis.Status.DONE).exists(), 40
    ), "the worker did not analyse the finished game"
    analysis = Analysis.objects.get(game=game)
    assert [t["ply"] for t in analysis.data["turns"]] == [1, 2, 3, 4]

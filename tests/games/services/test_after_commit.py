"""After the commit the change is made: a broadcast or an enqueue that fails (Redis down) is
logged, never fails the request, never stops the hooks after it, and the periodic sweeps send the
lost tasks again. (The same with a real Redis stopped mid-game: tests/reliability/.)

The failures are injected at the true external edges: the channel layer's ``group_send`` and the
broker publish of a task."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from channels.layers import InMemoryChannelLayer
from kombu.exceptions import OperationalError

from games import enqueue, services, tasks
from games.models import Analysis, Game
from tests.games.factories import make_game
from tests.games.services.helpers import best_move, seat_user

pytestmark = pytest.mark.django_db

BROKER_DOWN = OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


class DownLayer(InMemoryChannelLayer):
    """A channel layer whose server is down: every group send fails, as channels_redis does."""

    async def group_send(self, group, message):
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


@pytest.fixture
def layer_down(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": f"{__name__}.DownLayer"}}


@pytest.fixture
def broker_down(monkeypatch):
    """Publishing any task fails, as Celery's does with the broker down."""

    def refuse(*args, **kwargs):
        raise BROKER_DOWN

    for task in (tasks.bot_move, tasks.analyse_game):
        monkeypatch.setattr(task, "delay", refuse)
        monkeypatch.setattr(task, "apply_async", refuse)


def test_a_move_commits_when_the_broadcast_fails(
    layer_down, caplog, django_capture_on_commit_callbacks
):
    game = make_game(bots=[(2, "easy")])
    with caplog.at_level(logging.WARNING), django_capture_on_commit_callbacks(execute=True):
        result = services.game_move_make(
            game_id=game.pk, user=seat_user(game, 1), move=best_move(game), ply=0
        )
    assert result.ply == 1
    game.refresh_from_db()
    # The bot's turn was enqueued (and, eager here, played) although the broadcasts failed.
    assert game.ply == 2
    assert "could not broadcast game" in caplog.text


def test_a_failed_enqueue_stops_neither_the_request_nor_the_broadcast(
    broker_down, watch, caplog, django_capture_on_commit_callbacks
):
    """Eager Celery (tests) lets a failure propagate: the hook isolation alone keeps it in."""
    game = make_game(bots=[(2, "easy")])
    watcher = watch(game.pk)
    with django_capture_on_commit_callbacks(execute=True):
        services.game_move_make(
            game_id=game.pk, user=seat_user(game, 1), move=best_move(game), ply=0
        )
    game.refresh_from_db()
    assert (game.ply, game.to_move) == (1, 2)  # the bot's task was lost...
    assert watcher.versions() == [game.version]  # ...and the hook after it still ran


def test_a_failed_hook_is_logged_by_name_and_game(
    broker_down, caplog, django_capture_on_commit_callbacks
):
    game = make_game(bots=[(2, "easy")])
    with caplog.at_level(logging.ERROR), django_capture_on_commit_callbacks(execute=True):
        services.game_move_make(
            game_id=game.pk, user=seat_user(game, 1), move=best_move(game), ply=0
        )
    assert f"Error calling enqueue_bot_move({game.pk}, 1) in on_commit()" in caplog.text


def test_with_a_broker_enqueuing_logs_instead_of_raising(broker_down, caplog):
    from siesta_site.celery import app

    app.conf.task_always_eager = False  # restored by the autouse fixture
    with caplog.at_level(logging.WARNING):
        enqueue.enqueue_bot_move(1, 0)
        enqueue.enqueue_analysis(1)
    assert "could not enqueue games.tasks.bot_move(1, 0)" in caplog.text
    assert "could not enqueue games.tasks.analyse_game(1,)" in caplog.text


def test_the_sweeps_send_lost_tasks_again(monkeypatch, django_capture_on_commit_callbacks):
    game = make_game(bots=[(2, "easy")])
    with monkeypatch.context() as down:
        for task in (tasks.bot_move, tasks.analyse_game):
            down.setattr(task, "delay", lambda *a, **k: (_ for _ in ()).throw(BROKER_DOWN))
        with django_capture_on_commit_callbacks(execute=True):
            services.game_move_make(
                game_id=game.pk, user=seat_user(game, 1), move=best_move(game), ply=0
            )
        game.refresh_from_db()
        assert game.ply == 1  # the bot's turn is waiting
    # The broker is back: the next sweep finds the waiting turn.
    monkeypatch.setattr(tasks, "BOT_TURN_STALL", timedelta(0))
    assert tasks.requeue_bot_turns() == 1
    game.refresh_from_db()
    assert (game.ply, game.to_move) == (2, 1)

    with monkeypatch.context() as down:
        down.setattr(tasks.analyse_game, "delay", lambda *a: (_ for _ in ()).throw(BROKER_DOWN))
        with django_capture_on_commit_callbacks(execute=True):
            services.game_resign(game_id=game.pk, user=seat_user(game, 1))
    assert Game.objects.get(pk=game.pk).status == "finished"
    assert not Analysis.objects.filter(game=game).exists()
    monkeypatch.setattr(tasks, "ANALYSIS_STALL", timedelta(0))
    assert tasks.requeue_analyses() == 1
    assert Analysis.objects.get(game=game).status == "done"

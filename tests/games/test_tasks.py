"""Bot turns and analyses through the Celery task path (eager here; a real worker in
test_worker_integration.py). The in-process mode used without a broker:
tests/core/test_inprocess.py."""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta

import pytest
import redis
from django.db import connections
from django.utils import timezone

from games import selectors, services, tasks
from games.engine.record import GameRecord, replay
from games.engine.search import best_turn
from games.models import Analysis, Game, Seat
from tests.games.factories import make_game


def _human(game: Game, seat: int = 1):
    return game.seats.get(seat=seat).user


def _best_move(game_id: int) -> str:
    best = best_turn(selectors.position_of(selectors.game_get(game_id)))
    assert best.turn is not None
    return str(best.turn)


def _play_human_turn(game: Game, seat: int = 1) -> None:
    game.refresh_from_db()
    services.game_move_make(
        game_id=game.pk, user=_human(game, seat), move=_best_move(game.pk), ply=game.ply
    )


def _assert_record_replays_to_scores(game: Game) -> None:
    record = GameRecord.from_json(selectors.game_record(game))
    result = replay(record)
    assert result.error is None
    seats = selectors.game_seats(game)
    assert list(result.position.scores) == [s.score for s in seats]


@pytest.mark.django_db
def test_a_bot_game_runs_from_start_to_end_through_the_tasks(django_capture_on_commit_callbacks):
    game = make_game(players=2, bots=[(2, "medium")], variant="classic")
    while game.status != Game.Status.FINISHED:
        assert game.to_move == 1, "the bot's reply arrives before the person's next turn"
        # As after a request: the commit runs its callbacks, which enqueue the bot's task.
        with django_capture_on_commit_callbacks(execute=True):
            _play_human_turn(game)
        game.refresh_from_db()
    turns = list(game.turns.order_by("ply"))
    assert len(turns) == game.ply >= 10
    assert all(t.by_bot == (t.seat == 2) for t in turns)
    assert [t.seat for t in turns] == [1 + i % 2 for i in range(len(turns))]
    _assert_record_replays_to_scores(game)
    # The end enqueued the analysis, which ran too.
    assert Analysis.objects.get(game=game).status == Analysis.Status.DONE


@pytest.mark.django_db
def test_several_bots_including_hard_reply_in_turn(django_capture_on_commit_callbacks):
    game = make_game(players=4, bots=[(2, "easy"), (3, "hard"), (4, "medium")])
    with django_capture_on_commit_callbacks(execute=True):
        _play_human_turn(game)
    game.refresh_from_db()
    assert (game.ply, game.to_move) == (4, 1)
    by_seat = {t.seat: t for t in game.turns.all()}
    assert all(by_seat[seat].by_bot for seat in (2, 3, 4))
    _assert_record_replays_to_scores(game)


@pytest.mark.django_db
def test_an_expert_bot_replies_through_the_task_and_the_api_offers_it(
    django_capture_on_commit_callbacks,
):
    game = make_game(players=2, bots=[(2, "expert")])
    assert game.seats.get(seat=2).get_bot_level_display() == "expert"
    with django_capture_on_commit_callbacks(execute=True):
        _play_human_turn(game)
    game.refresh_from_db()
    assert (game.ply, game.to_move) == (2, 1)
    assert game.turns.get(seat=2).by_bot
    _assert_record_replays_to_scores(game)
    assert selectors.game_state(game)["seats"][1]["bot"] == "expert"


@pytest.mark.django_db
def test_a_duplicate_bot_task_changes_nothing():
    game = make_game(players=2, bots=[(2, "medium")])
    _play_human_turn(game)  # no on-commit callbacks run: the bot's task is not enqueued here
    game.refresh_from_db()
    assert (game.ply, game.to_move) == (1, 2)

    assert tasks.bot_move(game.pk, 1) is True
    game.refresh_from_db()
    state = (game.ply, game.version, list(game.board))
    assert tasks.bot_move(game.pk, 1) is False  # the same task again
    game.refresh_from_db()
    assert (game.ply, game.version, list(game.board)) == state
    assert game.turns.filter(seat=2).count() == 1


@pytest.mark.django_db
def test_stale_bot_tasks_change_nothing():
    game = make_game(players=2, bots=[(2, "medium")])
    version = game.version
    assert tasks.bot_move(game.pk, 0) is False  # the person is to move
    assert tasks.bot_move(game.pk, 5) is False  # a ply the game has not reached
    assert tasks.bot_move(10**9, 0) is False  # no such game
    _play_human_turn(game)
    game.refresh_from_db()
    version = game.version
    assert tasks.bot_move(game.pk, 0) is False  # an old ply
    game.refresh_from_db()
    assert (game.ply, game.version) == (1, version)

    services.game_resign(game_id=game.pk, user=_human(game))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    version = game.version
    assert tasks.bot_move(game.pk, 1) is False  # the game ended while the task waited
    game.refresh_from_db()
    assert (game.ply, game.version) == (1, version)


@pytest.mark.django_db
def test_the_requeue_task_replays_a_stalled_bot_turn():
    game = make_game(players=2, bots=[(2, "medium")])
    _play_human_turn(game)  # the bot's task is lost (its on-commit callback never ran)
    assert tasks.requeue_bot_turns() == 0  # not stalled yet: the turn was just played
    Game.objects.filter(pk=game.pk).update(bot_since=timezone.now() - timedelta(seconds=30))

    assert tasks.requeue_bot_turns() == 1  # eager: the re-enqueued task runs at once
    game.refresh_from_db()
    assert (game.ply, game.to_move) == (2, 1)
    assert game.turns.get(ply=2).by_bot


@pytest.mark.django_db
def test_a_bot_plays_for_a_player_who_resigned(django_capture_on_commit_callbacks):
    game = make_game(players=3, bots=[(3, "easy")])
    _play_human_turn(game, seat=1)
    game.refresh_from_db()
    assert game.to_move == 2
    with django_capture_on_commit_callbacks(execute=True):
        services.game_resign(game_id=game.pk, user=_human(game, 2))
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert (game.ply, game.to_move) == (3, 1)
    seat2 = game.turns.get(ply=2)
    assert (seat2.seat, seat2.by_bot) == (2, True)
    assert game.seats.get(seat=2).out_reason == Seat.OutReason.RESIGNED


@pytest.mark.django_db
def test_a_bot_plays_for_a_player_whose_time_ran_out(django_capture_on_commit_callbacks):
    game = make_game(players=3, bots=[(3, "medium")])
    _play_human_turn(game, seat=1)
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.expire_turns() == [game.pk]
    game.refresh_from_db()
    assert (game.ply, game.to_move) == (3, 1)
    assert game.turns.get(ply=2).by_bot


@pytest.mark.django_db
def test_the_end_of_a_game_enqueues_its_analysis(django_capture_on_commit_callbacks):
    game = make_game(players=2)
    _play_human_turn(game, seat=1)
    _play_human_turn(game, seat=2)
    with django_capture_on_commit_callbacks(execute=True):
        services.game_resign(game_id=game.pk, user=_human(game, 1))
    analysis = Analysis.objects.get(game=game)
    assert analysis.status == Analysis.Status.DONE
    assert [t["ply"] for t in analysis.data["turns"]] == [1, 2]


@pytest.mark.django_db
def test_the_requeue_task_analyses_games_whose_analysis_was_lost():
    game = make_game(players=2)
    _play_human_turn(game, seat=1)
    services.game_resign(game_id=game.pk, user=_human(game, 2))  # analysis task lost
    assert tasks.requeue_analyses() == 0  # just finished: its task may still be on the way
    Game.objects.filter(pk=game.pk).update(finished_at=timezone.now() - timedelta(minutes=5))
    assert tasks.requeue_analyses() == 1
    assert Analysis.objects.get(game=game).status == Analysis.Status.DONE
    assert tasks.requeue_analyses() == 0


@pytest.fixture
def lost_tasks(settings):
    """Enqueued tasks go to a queue no worker reads, as when a worker dies with them."""
    from siesta_site.celery import app

    queue = f"siesta-test-lost-{uuid.uuid4().hex[:12]}"
    settings.SIESTA_TASK_QUEUES = {}  # every task to that queue, bot turns and analyses too
    previous = (app.conf.task_always_eager, app.conf.task_default_queue)
    app.conf.task_always_eager = False
    app.conf.task_default_queue = queue
    try:
        yield
    finally:
        app.conf.task_always_eager, app.conf.task_default_queue = previous
        if settings.REDIS_URL:
            redis.Redis.from_url(settings.REDIS_URL).delete(queue)


@pytest.mark.requires_postgres
@pytest.mark.django_db(transaction=True)
def test_the_same_bot_task_running_twice_at_once_plays_once(lost_tasks):
    game = make_game(players=2, bots=[(2, "medium")])
    _play_human_turn(game)  # committed; its bot task is lost
    results: list[bool] = []
    barrier = threading.Barrier(2)

    def run() -> None:
        try:
            barrier.wait()
            results.append(tasks.bot_move(game.pk, 1))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(results) == [False, True]
    game.refresh_from_db()
    assert (game.ply, game.to_move) == (2, 1)
    assert game.turns.filter(seat=2).count() == 1

"""A player's move on PostgreSQL outside a transaction (docs/architecture.md): read without a lock,
written by one statement that applies only at the version read, and otherwise made the locked way.

These tests run outside any transaction (``transaction=True``), as the site's consumers and API
views call the service; the other service tests run inside the test's transaction, which takes the
locked way."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import rows, services
from games.models import Game, Seat, Turn
from tests.games.factories import make_game
from tests.games.services.helpers import best_move, play_until_the_last_turn, seat_user

pytestmark = [pytest.mark.requires_postgres, pytest.mark.django_db(transaction=True)]


def _move(game: Game, **kwargs) -> services.MoveResult:
    game.refresh_from_db()
    return services.game_move_make(
        game_id=game.pk,
        user=kwargs.get("user", seat_user(game, game.to_move)),
        move=kwargs.get("move", best_move(game)),
        ply=kwargs.get("ply", game.ply),
    )


def _in_another_thread(call) -> None:
    """Run ``call`` to the end on another thread, with a connection (and transaction) of its own,
    as another process's request would."""
    failures: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:
            failures.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=30)
    assert not failures


def test_a_move_is_read_without_a_lock_and_written_by_one_version_checked_statement(watch):
    game = make_game(players=3)
    version = game.version
    watcher = watch(game.pk)
    with CaptureQueriesContext(connection) as captured:
        result = _move(game, user=seat_user(game, 1))
    queries = [q["sql"] for q in captured.captured_queries]
    read, write = queries[-2:]  # (the test's own refresh and best move read first)
    assert read.lstrip().startswith("SELECT")
    assert "FOR UPDATE" not in read
    assert write.lstrip().startswith("WITH")
    assert f'"version" = {version} RETURNING' in write
    game.refresh_from_db()
    assert (result.ply, game.ply, game.version, game.to_move) == (1, 1, version + 1, 2)
    turn = Turn.objects.get(game=game)
    assert (turn.ply, turn.seat, turn.points) == (1, 1, result.points)
    assert Seat.objects.get(game=game, seat=1).score == result.points[0]
    assert watcher.versions() == [version + 1]


def test_a_change_between_the_read_and_the_write_sends_the_move_the_locked_way(monkeypatch, watch):
    """A hint asked (by another request) after the move's read and before its write raises the
    version: the write applies to nothing, and the move is made again under the lock, where it
    sees the hint and marks its turn. Nothing of the first attempt is written or sent."""
    game = make_game()
    version = game.version
    watcher = watch(game.pk)
    mover = seat_user(game, 1)
    real_write = rows.write_move_if_current
    attempts = []

    def hint_first(*args, **kwargs):
        if not attempts:
            _in_another_thread(lambda: services.game_hint(game_id=game.pk, user=mover))
        attempts.append(real_write(*args, **kwargs))
        return attempts[-1]

    monkeypatch.setattr(rows, "write_move_if_current", hint_first)
    result = _move(game, user=mover, move=best_move(game), ply=0)
    assert attempts == [False]
    game.refresh_from_db()
    assert (result.ply, game.ply, game.version) == (1, 1, version + 2)
    assert Turn.objects.get(game=game).hint is True
    assert watcher.versions() == [version + 1, version + 2]  # the hint's state, then the move's


def test_a_write_at_an_old_version_changes_nothing():
    game = make_game()
    seats = rows.seats_of(game.pk)
    read = seats[0].game
    services._remember(read)
    for seat in seats:
        services._remember(seat)
    _, turn, changed, _position = services._play(
        read, seats, seats[0], best_move(game), by_bot=False
    )
    read_version = read.version
    read.version += 1
    # Another change committed meanwhile.
    Game.objects.filter(pk=game.pk).update(version=F("version") + 1)
    pending = rows.PendingMove(turn, changed)
    written = rows.write_move_if_current(
        pending, read, services._changed_fields(read), version=read_version
    )
    assert written is False
    game.refresh_from_db()
    assert (game.ply, game.version) == (0, read_version + 1)
    assert not Turn.objects.filter(game=game).exists()
    assert list(Seat.objects.filter(game=game).values_list("score", flat=True)) == [0, 0]


def test_refusals_come_from_the_rows_read_and_write_nothing(watch):
    game = make_game()
    version = game.version
    watcher = watch(game.pk)
    with pytest.raises(services.InvalidMove) as refused:
        _move(game, user=seat_user(game, 1), move="SA1 RA1 HC1", ply=0)
    assert "A1" in str(refused.value)
    with pytest.raises(services.NotAllowed):
        _move(game, user=seat_user(game, 2), ply=0)
    with pytest.raises(services.StalePly):
        _move(game, user=seat_user(game, 1), ply=3)
    game.refresh_from_db()
    assert (game.ply, game.version) == (0, version)
    assert watcher.versions() == []


def test_a_late_move_times_the_player_out_the_locked_way():
    game = make_game(turn_seconds=3600)
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    with pytest.raises(services.TurnTimedOut):
        _move(game, user=seat_user(game, 1), ply=0)
    game.refresh_from_db()
    assert (game.status, game.end_reason, game.winners) == ("finished", "timeout", [2])


def test_the_move_that_ends_the_game_is_made_the_locked_way(finished_outcomes, watch):
    game = make_game()
    last = play_until_the_last_turn(game)
    game.refresh_from_db()
    watcher = watch(game.pk)
    with CaptureQueriesContext(connection) as captured:
        services.game_move_make(
            game_id=game.pk, user=seat_user(game, game.to_move), move=last, ply=game.ply
        )
    assert any("FOR UPDATE" in q["sql"] for q in captured.captured_queries)
    game.refresh_from_db()
    assert game.status == "finished"
    assert Turn.objects.filter(game=game).count() == game.ply
    assert [o.game_id for o in finished_outcomes] == [game.pk]
    assert watcher.versions() == [game.version]


def test_a_bots_turn_is_enqueued_once_the_move_is_written():
    """Tasks run eagerly in tests: the bot's task runs inside the hook, and finds the player's turn
    already written (a task enqueued before the write would find its ply stale and do nothing)."""
    game = make_game(bots=[(2, "easy")])
    _move(game, user=seat_user(game, 1), ply=0)
    game.refresh_from_db()
    assert game.ply == 2
    assert list(Turn.objects.filter(game=game).values_list("by_bot", flat=True)) == [False, True]


def test_with_the_setting_off_every_move_is_locked(settings):
    settings.SIESTA_VERSION_CHECKED_MOVES = False
    game = make_game()
    with CaptureQueriesContext(connection) as captured:
        services.game_move_make(
            game_id=game.pk, user=seat_user(game, 1), move=best_move(game), ply=0
        )
    assert any("FOR UPDATE" in q["sql"] for q in captured.captured_queries)

"""A move's one path (docs/performance.md, "The move's path"): read without a lock, written only at
the version read, and otherwise read again under the lock and written by the same write.

These tests run outside any transaction (``transaction=True``), as the site's consumers and API
views call the service; the other service tests run inside the test's transaction and take the
same path. The statements' text is PostgreSQL's; the rest runs on both databases
(tests/games/test_services_on_sqlite.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import rows, services
from games.models import Game, Seat, Turn
from tests.games.factories import make_game
from tests.games.services.helpers import best_move, play_until_the_last_turn, seat_user

pytestmark = pytest.mark.django_db(transaction=True)


def _move(game: Game, **kwargs) -> services.MoveResult:
    game.refresh_from_db()
    return services.game_move_make(
        game_id=game.pk,
        user=kwargs.get("user", seat_user(game, game.to_move)),
        move=kwargs.get("move", best_move(game)),
        ply=kwargs.get("ply", game.ply),
    )


@pytest.mark.requires_postgres
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
    """A hint asked (and committed) after the move's read and before its write raises the version:
    the write applies to nothing, and the move is read again under the lock, where it sees the hint
    and marks its turn, and made by the same write. Nothing of the first attempt is written or
    sent. (The hint runs in the move's thread, between the two: no transaction is open there.)"""
    game = make_game()
    version = game.version
    watcher = watch(game.pk)
    mover = seat_user(game, 1)
    real_write = rows.write_move
    attempts = []

    def hint_first(*args, **kwargs):
        if not attempts:
            services.game_hint(game_id=game.pk, user=mover)
        attempts.append(real_write(*args, **kwargs))
        return attempts[-1]

    monkeypatch.setattr(rows, "write_move", hint_first)
    result = _move(game, user=mover, move=best_move(game), ply=0)
    assert attempts == [False, True]
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
    written = rows.write_move(pending, read, services._changed_fields(read), version=read_version)
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


def test_the_move_that_ends_the_game_is_version_checked_and_ends_it_in_its_transaction(
    finished_outcomes, watch
):
    game = make_game()
    last = play_until_the_last_turn(game)
    game.refresh_from_db()
    watcher = watch(game.pk)
    with CaptureQueriesContext(connection) as captured:
        services.game_move_make(
            game_id=game.pk, user=seat_user(game, game.to_move), move=last, ply=game.ply
        )
    queries = [q["sql"] for q in captured.captured_queries]
    # (The ratings and the analysis lock rows of their own in the same transaction.)
    assert not any(sql.startswith('SELECT "games_seat"') and "FOR UPDATE" in sql for sql in queries)
    assert any('"version" = ' in sql for sql in queries)
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


def test_a_move_inside_a_callers_transaction_takes_the_same_path(watch):
    """No second way: inside a transaction the read takes no lock either, the write checks the
    version, and the state goes out once the caller's transaction commits."""
    game = make_game()
    version = game.version
    watcher = watch(game.pk)
    move = best_move(game)
    with transaction.atomic(), CaptureQueriesContext(connection) as captured:
        services.game_move_make(game_id=game.pk, user=seat_user(game, 1), move=move, ply=0)
        assert watcher.versions() == []
    assert not any("FOR UPDATE" in q["sql"] for q in captured.captured_queries)
    assert any('"version" = ' in q["sql"] for q in captured.captured_queries)
    game.refresh_from_db()
    assert (game.ply, game.version) == (1, version + 1)
    assert watcher.versions() == [version + 1]


def test_a_bots_move_takes_the_same_path_and_a_stale_one_changes_nothing():
    """Tasks run eagerly in tests: the bot's move is made inside the player's move's hook."""
    game = make_game(bots=[(2, "easy")])
    with CaptureQueriesContext(connection) as captured:
        _move(game, user=seat_user(game, 1), ply=0)
    writes = [q["sql"] for q in captured.captured_queries if '"version" = ' in q["sql"]]
    assert len(writes) == 2  # the player's and the bot's, each at the version it read
    assert not any("FOR UPDATE" in q["sql"] for q in captured.captured_queries)
    game.refresh_from_db()
    assert (game.ply, game.to_move) == (2, 1)
    assert services.game_bot_move_make(game_id=game.pk, ply=1, move=best_move(game)) is False
    assert services.game_bot_move_make(game_id=10**9, ply=0, move="SA1") is False
    assert list(Turn.objects.filter(game=game).values_list("by_bot", flat=True)) == [False, True]

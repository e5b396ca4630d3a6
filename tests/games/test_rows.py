"""The move path's plain SQL (games/rows.py): what it reads and writes matches the ORM's view of
the same rows, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from django.db import connection, transaction

from games import rows
from games.models import Turn
from games.selectors import game_get, game_state, game_state_current
from tests.games.factories import make_game
from tests.games.services.helpers import play_best_turn

pytestmark = pytest.mark.django_db


def _orm_turns(game_id: int) -> list[tuple]:
    return [
        (t.ply, t.seat, t.move, list(t.points), t.hint, t.played_at)
        for t in Turn.objects.filter(game_id=game_id).order_by("ply")
    ]


@pytest.mark.parametrize("players", [2, 4])
def test_the_seats_read_brings_the_turns_as_the_orm_reads_them(players):
    game = make_game(players=players)
    for _ in range(5):
        play_best_turn(game)
        game.refresh_from_db()
    seats = rows.seats_of(game.pk)
    turns = rows.known_turns(seats[0].game)
    if turns is None:  # read apart from the seats (not PostgreSQL)
        turns = rows.turns_of(game.pk)
    assert [tuple(t) for t in turns] == _orm_turns(game.pk)
    assert rows.turns_of(game.pk) == turns
    assert [s.user_id for s in seats] == [s.user_id for s in game.seats.order_by("seat")]


def test_the_state_a_socket_gets_on_joining_is_the_rest_apis():
    game = make_game(players=3)
    for _ in range(4):
        play_best_turn(game)
        game.refresh_from_db()
    assert game_state_current(game.pk) == game_state(game_get(game.pk))
    assert game_state_current(10**9) is None


def test_turns_that_do_not_match_the_games_ply_are_not_used():
    """After a lock that waited, PostgreSQL re-reads the locked game but not the turns of the same
    statement: when the two disagree, the turns are read again."""
    game = make_game()
    play_best_turn(game)
    seats = rows.seats_of(game.pk)
    read = seats[0].game
    if rows.known_turns(read) is None:
        pytest.skip("the turns are read apart from the seats here")
    read.ply += 1  # as if another move committed while this read waited for the lock
    assert rows.known_turns(read) is None


def test_a_written_move_reads_back_as_the_orm_sees_it():
    game = make_game()
    play_best_turn(game)
    result = play_best_turn(game)
    state = game_state_current(game.pk)
    assert state is not None
    assert state["ply"] == result.ply == 2
    assert [t["ply"] for t in state["turns"]] == [1, 2]
    assert state == game_state(game_get(game.pk))


def test_a_tokens_user_reads_back_as_the_orm_sees_it():
    from rest_framework.authtoken.models import Token

    user = make_game().seats.get(seat=1).user
    key = Token.objects.create(user=user).key
    found = rows.user_for_token(key)
    assert found == user
    assert [getattr(found, f.attname) for f in user._meta.concrete_fields] == [
        getattr(user, f.attname) for f in user._meta.concrete_fields
    ]
    assert rows.user_for_token("no such key") is None


def test_on_postgresql_the_moves_statements_are_prepared():
    """Parsed and planned once per connection (a third of PostgreSQL's CPU per move before)."""
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's")
    game = make_game(players=2)
    for _ in range(2):
        play_best_turn(game)
        game.refresh_from_db()
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0].lstrip() for row in cursor.fetchall()]
    assert any(s.startswith("SELECT") and "FOR UPDATE" in s for s in prepared), prepared
    assert any(s.startswith("WITH") and "games_turn" in s for s in prepared), prepared


@pytest.mark.requires_postgres
@pytest.mark.django_db(transaction=True)
def test_the_locked_read_takes_the_games_lock_before_any_seats():
    """As a move's version-checked write does (the game, then the mover's seat): waiting for a game
    another holds, the locked read holds none of its seats, so the two cannot deadlock."""
    game = make_game()
    settings = connection.settings_dict
    holder = psycopg.connect(
        dbname=settings["NAME"], user=settings["USER"], host=settings["HOST"], port=settings["PORT"]
    )
    holder.execute("SELECT id FROM games_game WHERE id = %s FOR UPDATE", [game.pk])
    read: list[list] = []

    def locked_read() -> None:
        try:
            with transaction.atomic():
                read.append(rows.seats_locked(game.pk))
        finally:
            connection.close()

    reader = threading.Thread(target=locked_read)
    reader.start()
    try:
        deadline = time.monotonic() + 10
        while not _waits_for_a_lock() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _waits_for_a_lock()
        with connection.cursor() as cursor:  # every seat free, while the read waits for the game
            cursor.execute(
                "SELECT id FROM games_seat WHERE game_id = %s FOR UPDATE NOWAIT", [game.pk]
            )
    finally:
        holder.rollback()
        holder.close()
        reader.join(timeout=10)
    assert len(read) == 1
    assert len(read[0]) == 2


def _waits_for_a_lock() -> bool:
    """Whether a seats read (its text is longer than PostgreSQL shows) waits for a lock."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND datname = current_database() AND query LIKE %s",
            ['SELECT "games_seat".%'],
        )
        return cursor.fetchone()[0] > 0

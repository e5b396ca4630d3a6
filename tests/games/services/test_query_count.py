"""A move costs a handful of queries (issue: at most five), and writes only the columns it changes.

Counted with Django's own query capture around the service, on SQLite and on PostgreSQL alike."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from tests.games.factories import make_game
from tests.games.services.helpers import best_move, seat_user

pytestmark = pytest.mark.django_db(transaction=True)

MAX_QUERIES_PER_MOVE = 5


def _move(game) -> list[str]:
    game.refresh_from_db()
    user, move = seat_user(game, game.to_move), best_move(game)
    with CaptureQueriesContext(connection) as captured:
        services.game_move_make(game_id=game.pk, user=user, move=move, ply=game.ply)
    # BEGIN and COMMIT (which SQLite's backend logs) frame the transaction; everything else counts.
    return [
        query["sql"]
        for query in captured.captured_queries
        if query["sql"].strip().upper() not in ("BEGIN", "BEGIN IMMEDIATE", "COMMIT")
    ]


@pytest.mark.parametrize("players", [2, 4])
def test_a_move_takes_at_most_five_queries(players):
    game = make_game(players=players)
    for _ in range(6):
        queries = _move(game)
        assert len(queries) <= MAX_QUERIES_PER_MOVE, "\n".join(queries)


@pytest.mark.parametrize("players", [2, 4])
def test_on_postgresql_a_move_is_two_statements(players):
    """The read brings the seats, the game, the users and the turns, without a lock; the turn, the
    seats and the game are written in one statement that applies only at the version read; the new
    state needs no further read. Each in autocommit: no BEGIN, no COMMIT."""
    if connection.vendor != "postgresql":
        pytest.skip("one statement per written row elsewhere")
    game = make_game(players=players)
    for _ in range(4):
        queries = _move(game)
        assert len(queries) == 2, "\n".join(queries)
        assert queries[0].lstrip().startswith("SELECT")
        assert "FOR UPDATE" not in queries[0]
        assert queries[1].lstrip().startswith("WITH")
        assert 'INSERT INTO "games_turn"' in queries[1]
        assert 'AND "version" = ' in queries[1]


def _updates(queries: list[str]) -> list[str]:
    """Each UPDATE, whether a statement of its own or a clause of a move's one statement."""
    found = []
    for sql in queries:
        for part in re.split(r"(?=UPDATE \")", sql)[1:]:
            found.append(part.split(")")[0] if part.rstrip().endswith(")") else part)
    return found


def test_a_move_updates_only_the_changed_columns():
    game = make_game()
    _move(game)
    queries = _move(game)
    updates = _updates(queries)
    game_update = next(sql for sql in updates if re.search(r'UPDATE "games_game"', sql))
    assigned = set(re.findall(r'"(\w+)" = ', game_update.split(" WHERE ")[0]))
    # What a move changes, and never the columns it does not (created_at, players, rated, ...).
    assert assigned <= {"ply", "version", "board", "suns", "shadows", "to_move", "deadline"}
    assert {"ply", "version", "board", "to_move"} <= assigned
    seat_updates = [sql for sql in updates if 'UPDATE "games_seat"' in sql]
    assert len(seat_updates) == 1
    assert '"joined_at"' not in seat_updates[0]
    assert '"user_id"' not in seat_updates[0]

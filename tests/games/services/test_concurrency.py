"""Services racing for the same game on PostgreSQL: the row lock (and a move's version check, which
sends a move that lost the race the locked way) serialises them, so the game ends once and each ply
is played once. (Two moves for the same ply through the API: see
tests/games/api/test_concurrency.py.)"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from games import services
from games.models import Game, Turn
from tests.games.factories import make_game
from tests.games.services.helpers import best_move, play_until_the_last_turn, seat_user

pytestmark = [
    pytest.mark.requires_postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.parametrize("attempt", range(3)),
]


def race(**calls: Callable[[], Any]) -> dict[str, Any]:
    """Run the calls in threads released at the same moment. Each name maps to what its call
    returned or to the service error it raised; anything else fails the test."""
    start = threading.Barrier(len(calls))
    outcomes: dict[str, Any] = {}
    failures: list[BaseException] = []

    def run(name: str, call: Callable[[], Any]) -> None:
        try:
            start.wait(timeout=10)
            try:
                outcomes[name] = call()
            except services.GameServiceError as exc:
                outcomes[name] = exc
        except BaseException as exc:  # surfaced below: a thread's failure must fail the test
            failures.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=item) for item in calls.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures
    assert set(outcomes) == set(calls)
    return outcomes


def resign_at_once(game: Game, *, seats: tuple[int, ...]) -> dict[str, Any]:
    """The players of ``seats`` resign at the same moment; outcomes by seat number (as text)."""
    users = {str(seat): seat_user(game, seat) for seat in seats}
    return race(
        **{
            seat: lambda user=user: services.game_resign(game_id=game.pk, user=user)
            for seat, user in users.items()
        }
    )


def test_both_players_resigning_at_once_end_the_game_once(attempt, finished_outcomes, watch):
    game = make_game()
    watcher = watch(game.pk)
    version = game.version
    outcomes = resign_at_once(game, seats=(1, 2))
    refused = [seat for seat, outcome in outcomes.items() if isinstance(outcome, Exception)]
    assert len(refused) == 1
    assert isinstance(outcomes[refused[0]], services.Conflict)
    game.refresh_from_db()
    assert (game.status, game.end_reason, game.winners) == (
        "finished",
        "resigned",
        [int(refused[0])],
    )
    assert list(game.seats.exclude(out_reason="").values_list("seat", flat=True)) == [
        3 - int(refused[0])
    ]
    assert [o.game_id for o in finished_outcomes] == [game.pk]
    assert (game.version, watcher.versions()) == (version + 1, [version + 1])


def test_two_of_three_resigning_at_once_leave_one_winner(attempt, finished_outcomes, watch):
    """Each resignation alone lets the game go on; together they leave one player in play, which
    only a resignation that sees the other one can tell."""
    game = make_game(players=3)
    watcher = watch(game.pk)
    version = game.version
    outcomes = resign_at_once(game, seats=(1, 2))
    assert not any(isinstance(o, Exception) for o in outcomes.values())
    game.refresh_from_db()
    assert (game.status, game.end_reason, game.winners) == ("finished", "resigned", [3])
    assert [o.game_id for o in finished_outcomes] == [game.pk]
    # Each commit broadcasts from its own thread after it: the two may arrive in either order
    # (a socket sends only a version newer than the last it sent), each exactly once.
    assert sorted(watcher.versions()) == [version + 1, version + 2]


def test_a_move_and_another_players_resignation_at_once_both_count(attempt, watch):
    """Neither ends the game: the move is made by its version-checked write or, when the
    resignation came first, the locked way; each is made once and sent once."""
    game = make_game(players=3)
    move = best_move(game)
    version = game.version
    watcher = watch(game.pk)
    outcomes = race(
        move=lambda: services.game_move_make(
            game_id=game.pk, user=seat_user(game, 1), move=move, ply=0
        ),
        resign=lambda: services.game_resign(game_id=game.pk, user=seat_user(game, 3)),
    )
    assert not any(isinstance(o, Exception) for o in outcomes.values())
    game.refresh_from_db()
    assert (game.status, game.ply, game.to_move) == ("active", 1, 2)
    assert Turn.objects.filter(game=game).count() == 1
    assert game.seats.get(seat=3).out_reason == "resigned"
    # Each commit broadcasts from its own thread after it: the two may arrive in either order
    # (a socket sends only a version newer than the last it sent), each exactly once.
    assert sorted(watcher.versions()) == [version + 1, version + 2]


def test_the_last_move_and_a_resignation_at_once_end_the_game_once(
    attempt, finished_outcomes, watch
):
    game = make_game()
    last = play_until_the_last_turn(game)
    game.refresh_from_db()
    mover, other = game.to_move, 3 - game.to_move
    ply, version = game.ply, game.version
    watcher = watch(game.pk)
    outcomes = race(
        move=lambda: services.game_move_make(
            game_id=game.pk, user=seat_user(game, mover), move=last, ply=ply
        ),
        resign=lambda: services.game_resign(game_id=game.pk, user=seat_user(game, other)),
    )
    refused = [name for name, outcome in outcomes.items() if isinstance(outcome, Exception)]
    assert len(refused) == 1
    assert isinstance(outcomes[refused[0]], services.Conflict)
    game.refresh_from_db()
    assert game.status == "finished"
    if refused == ["resign"]:  # the move came first and ended the game
        assert game.end_reason != "resigned"
        assert (game.ply, Turn.objects.filter(game=game).count()) == (ply + 1, ply + 1)
    else:
        assert (game.end_reason, game.winners) == ("resigned", [mover])
        assert (game.ply, Turn.objects.filter(game=game).count()) == (ply, ply)
    assert [o.game_id for o in finished_outcomes] == [game.pk]
    assert watcher.versions() == [version + 1]


def test_a_move_and_its_timeout_at_once_count_once(attempt, finished_outcomes):
    """The deadline has passed: the move is refused whoever comes first (the move service checks
    the clock too), and the player times out exactly once, by the sweep or by the move."""
    game = make_game(turn_seconds=3600)
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    outcomes = race(
        move=lambda: services.game_move_make(
            game_id=game.pk, user=seat_user(game, 1), move="SA1 RB1 HC1", ply=0
        ),
        expire=lambda: services.game_turn_timeouts_expire(),
    )
    game.refresh_from_db()
    assert isinstance(outcomes["move"], services.Conflict)
    assert outcomes["expire"] in ([game.pk], [])  # [] when the move's own check came first
    assert (game.status, game.end_reason, game.winners) == ("finished", "timeout", [2])
    assert not Turn.objects.filter(game=game).exists()
    assert len(finished_outcomes) == 1

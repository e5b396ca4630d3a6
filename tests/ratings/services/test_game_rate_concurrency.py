"""Two attempts to finish (or rate) the same game at once rate it exactly once (PostgreSQL)."""

import threading
from collections.abc import Callable

import pytest
from django.db import connection

from games import services as game_services
from games.models import Game
from games.selectors import finished_game
from ratings import services
from ratings.models import RatedGame, Rating, RatingChange
from tests.games.factories import make_game
from tests.ratings.play import play_round, user_at

pytestmark = [pytest.mark.requires_postgres, pytest.mark.django_db(transaction=True)]


def race(*calls: Callable[[], object]) -> list[object]:
    """Run ``calls`` in threads released together; each result or raised exception, in order."""
    barrier = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)

    def run(index: int, call: Callable[[], object]) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = call()
        except Exception as exc:
            results[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads)
    return results


def assert_rated_once(game: Game) -> None:
    assert RatedGame.objects.filter(game=game).count() == 1
    rows = RatingChange.objects.filter(game=game)
    assert sorted(rows.values_list("seat", flat=True)) == [1, 2]
    for row in rows:
        rating = Rating.objects.get(user=row.user, pool="ffa")
        assert rating.games == 1
        assert rating.rating == row.after
    assert sorted(rows.values_list("delta", flat=True)) == [-20.0, 20.0]


def test_two_players_resigning_at_once_rate_the_game_once():
    for _attempt in range(3):
        game = make_game()
        play_round(game)
        first, second = user_at(game, 1), user_at(game, 2)
        results = race(
            lambda g=game, u=first: game_services.game_resign(game_id=g.pk, user=u),
            lambda g=game, u=second: game_services.game_resign(game_id=g.pk, user=u),
        )
        finished = [r for r in results if isinstance(r, Game)]
        refused = [r for r in results if isinstance(r, game_services.Conflict)]
        assert (len(finished), len(refused)) == (1, 1), results
        assert_rated_once(game)


def test_two_rating_attempts_for_the_same_outcome_at_once_rate_it_once():
    game = make_game()
    play_round(game)
    game_services.game_resign(game_id=game.pk, user=user_at(game, 2))
    outcome = finished_game(Game.objects.get(pk=game.pk))
    RatingChange.objects.all().delete()
    RatedGame.objects.all().delete()
    Rating.objects.all().delete()

    results = race(*[lambda: services.game_rate(outcome=outcome)] * 3)
    assert sum(isinstance(r, RatedGame) for r in results) == 1, results
    assert results.count(None) == 2
    assert_rated_once(game)

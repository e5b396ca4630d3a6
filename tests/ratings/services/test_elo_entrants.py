"""Live rating and the replay build the formula's entrants with one helper, ``elo_entrants``: on
the same games they give the same floats, bit for bit."""

from __future__ import annotations

from typing import Any

import pytest

from games import services as game_services
from games.models import Game
from games.selectors import finished_game
from ratings import services
from ratings.models import RatedGame, Rating
from ratings.services import elo_entrants, game_assess, ratings_recompute
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.ratings.play import play_round, play_to_end, play_turn

pytestmark = pytest.mark.django_db


def _exactly(stored: Any, expected: Any) -> bool:
    """Equal without tolerance: floats by their bits."""
    if isinstance(stored, float) or isinstance(expected, float):
        return (
            isinstance(stored, float)
            and isinstance(expected, float)
            and stored.hex() == expected.hex()
        )
    return bool(stored == expected)


def _hinted_three(users: list[Any], resigners: list[Any]) -> Game:
    """A game of three where the first asks for a hint, everyone moves once, then two resign."""
    game = make_game(players=3, users=users)
    play_turn(game.pk, hint=True)
    play_turn(game.pk)
    play_turn(game.pk)
    for user in resigners:
        game_services.game_resign(game_id=game.pk, user=user)
    return game


def _varied_history() -> None:
    """Free-for-all games of 2, 3 and 4 people (one with a hint, some with a player out) and a
    played-out team game, so that ratings, game counts and K differ between players."""
    users = [UserFactory() for _ in range(4)]
    a, b, c, d = users
    for pair, resigner in (((a, b), b), ((b, c), b), ((c, a), a), ((a, b), a), ((d, a), d)):
        game = make_game(users=pair)
        play_round(game)
        game_services.game_resign(game_id=game.pk, user=resigner)
    _hinted_three([c, d, b], [d, b])
    play_to_end(make_game(players=4, users=[b, a, d, c]), hint_seats=frozenset({2}))
    play_to_end(make_game(players=4, users=[d, c, b, a], mode="teams"))


def test_live_and_replay_give_bit_identical_ratings(monkeypatch: pytest.MonkeyPatch) -> None:
    _varied_history()
    stored = {(r.user_id, r.pool): r.rating for r in Rating.objects.all()}
    assert len({round(rating, 6) for rating in stored.values()}) >= 4  # really varied
    assert {pool for _, pool in stored} == {"ffa", "teams"}
    monkeypatch.setattr(services, "_same", _exactly)
    report = ratings_recompute()
    assert report.differences == []
    assert report.counted_games == RatedGame.objects.filter(counted=True).count() == 8


def test_live_and_replay_build_the_same_entrants() -> None:
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    game = _hinted_three([c, a, b], [a, b])
    before = {1: 1612.25, 2: 1487.5, 3: 1500.0}

    def rating_of(seat: int) -> Rating:
        return Rating(pool="ffa", rating=before[seat], games=seat * 10)

    finished = finished_game(Game.objects.get(pk=game.pk))
    live = elo_entrants(game_assess(finished), finished.outcome, rating_of)
    rated = RatedGame.objects.get(game_id=game.pk)
    rows = sorted(rated.changes.all(), key=lambda r: r.seat)
    replay = elo_entrants(services._reassess(rated, rows), rated.outcome, rating_of)
    assert live == replay
    assert [(e.seat, e.counts) for e in live] == [(1, False), (2, True), (3, True)]
    assert [e.out for e in live] == [False, True, True]  # a (seat 2) and b (seat 3) resigned

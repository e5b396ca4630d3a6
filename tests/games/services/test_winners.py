"""Who wins a finished game (``services._winners``, used whenever a game ends): the highest score,
ties share, seats that are out rank last; in team games the higher sum, a team with a member out
loses, equal sums are a draw with both teams listed."""

from __future__ import annotations

import pytest

from games import services
from games.models import Game, Seat
from tests.games.factories import make_game
from tests.games.services.helpers import play_best_turn, seat_user


def _seats(scores: list[int], *, out: tuple[int, ...] = (), teams: list[int] | None = None):
    return [
        Seat(
            seat=number,
            score=score,
            out_reason="resigned" if number in out else "",
            team=teams[number - 1] if teams else None,
        )
        for number, score in enumerate(scores, start=1)
    ]


@pytest.mark.parametrize(
    ("scores", "out", "winners"),
    [
        ([30, 20], (), [1]),
        ([20, 30, 10], (), [2]),
        ([30, 30, 10], (), [1, 2]),
        ([40, 30, 10], (1,), [2]),  # out ranks last, however much it scored
        ([40, 30, 30, 10], (1,), [2, 3]),
        ([40, 30, 20], (1, 2), [3]),
        ([10, 20], (1, 2), [2]),  # everyone out: the scores decide
    ],
)
def test_free_for_all(scores: list[int], out: tuple[int, ...], winners: list[int]):
    game = Game(players=len(scores), mode=Game.Mode.FFA)
    assert services._winners(game, _seats(scores, out=out)) == winners


@pytest.mark.parametrize(
    ("scores", "teams", "out", "winners"),
    [
        ([10, 20, 30, 5], [1, 2, 2, 1], (), [2, 3]),  # 50 against 15
        ([30, 1, 1, 30], [1, 1, 2, 2], (), [1, 2, 3, 4]),  # 31 against 31: a draw
        ([40, 40, 1, 1], [1, 2, 1, 2], (), [1, 2, 3, 4]),  # 41 against 41
        ([50, 40, 1, 1], [1, 2, 1, 2], (1,), [2, 4]),  # the team with a member out loses
        ([50, 40, 1, 1], [1, 2, 1, 2], (3,), [2, 4]),
        ([50, 40, 1, 1], [1, 2, 1, 2], (1, 2), [1, 3]),  # both teams have one out: sums decide
    ],
)
def test_teams(scores: list[int], teams: list[int], out: tuple[int, ...], winners: list[int]):
    game = Game(players=4, mode=Game.Mode.TEAMS)
    assert services._winners(game, _seats(scores, out=out, teams=teams)) == winners


@pytest.mark.django_db
def test_a_team_game_played_to_its_end_goes_to_the_higher_sum():
    game = make_game(players=4, mode="teams")
    while game.status == Game.Status.ACTIVE:
        play_best_turn(game)
        game.refresh_from_db()
    assert game.end_reason in ("last_sun", "last_shadow", "last_roof", "no_scoring_move")
    seats = list(game.seats.order_by("seat"))
    sums = {team: sum(s.score for s in seats if s.team == team) for team in (1, 2)}
    best = max(sums.values())
    assert game.winners == [s.seat for s in seats if sums[s.team] == best]
    assert len(game.winners) in (2, 4)


@pytest.mark.django_db
def test_a_team_whose_member_resigned_loses_though_ahead():
    game = make_game(players=4, mode="teams", bots=[(2, "easy"), (3, "easy"), (4, "easy")])
    play_best_turn(game)  # only seat 1 scores: its team is ahead
    services.game_resign(game_id=game.pk, user=seat_user(game, 1))  # no person left: the end
    game.refresh_from_db()
    assert (game.status, game.end_reason) == ("finished", "resigned")
    teams = dict(game.seats.values_list("seat", "team"))
    assert game.winners == [seat for seat in (1, 2, 3, 4) if teams[seat] != teams[1]]

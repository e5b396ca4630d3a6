"""A forfeit (a first turn missed in a tournament game) in the one place results are decided."""

import pytest

from games.engine.outcome import GameOutcome, SeatResult


def test_a_forfeit_ranks_below_everyone_who_showed_whatever_a_bot_scored() -> None:
    outcome = GameOutcome(
        (
            SeatResult(seat=1, score=40, out=True, forfeit=True),  # a bot played on and scored
            SeatResult(seat=2, score=10, out=True),  # resigned later
            SeatResult(seat=3, score=20),
        )
    )
    assert outcome.forfeits == [1]
    assert outcome.duel(2, 1) == 1.0
    assert outcome.points(1) == 0.0
    assert outcome.winners == [3]
    assert outcome.ranking == [[3], [2], [1]]


def test_two_seats_the_one_who_showed_wins() -> None:
    outcome = GameOutcome((SeatResult(1, 0, out=True, forfeit=True), SeatResult(2, 0)))
    assert (outcome.winners, outcome.points(2), outcome.points(1)) == ([2], 1.0, 0.0)


def test_a_team_with_a_forfeit_loses() -> None:
    outcome = GameOutcome(
        (
            SeatResult(1, 30, out=True, team=1, forfeit=True),
            SeatResult(2, 0, out=True, team=2),
            SeatResult(3, 30, team=1),
            SeatResult(4, 0, team=2),
        )
    )
    assert outcome.team_duel(2, 1) == 1.0
    assert outcome.winners == [2, 4]


def test_a_forfeit_is_out() -> None:
    with pytest.raises(ValueError, match="out"):
        SeatResult(1, 0, forfeit=True)


def test_no_forfeit_no_change() -> None:
    assert GameOutcome.of([30, 20], out=[1]).forfeits == []

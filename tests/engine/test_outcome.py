"""``GameOutcome``: who beat whom, the winners, points and ranking of a finished game."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import GameOutcome, SeatResult
from games.engine.outcome import Verdict


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
def test_free_for_all_winners(scores: list[int], out: tuple[int, ...], winners: list[int]):
    assert GameOutcome.of(scores, out=out).winners == winners


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
def test_team_winners(scores: list[int], teams: list[int], out: tuple[int, ...], winners):
    assert GameOutcome.of(scores, out=out, teams=teams).winners == winners


def test_duels_points_and_verdicts_in_free_for_all():
    outcome = GameOutcome.of([30, 20, 30, 50], out=[4])
    assert [outcome.duel(1, b) for b in (2, 3, 4)] == [1.0, 0.5, 1.0]
    assert [outcome.duel(4, b) for b in (1, 2, 3)] == [0.0, 0.0, 0.0]
    assert [outcome.points(s) for s in (1, 2, 3, 4)] == [2.5 / 3, 1 / 3, 2.5 / 3, 0.0]
    assert [outcome.verdict(s) for s in (1, 2, 3, 4)] == [
        Verdict.DRAW,
        Verdict.LOSS,
        Verdict.DRAW,
        Verdict.LOSS,
    ]
    assert outcome.ranking == [[1, 3], [2], [4]]
    assert GameOutcome.of([10, 20]).verdict(2) == Verdict.WIN


def test_teammates_are_not_opponents():
    outcome = GameOutcome.of([10, 5, 3, 3], teams=[1, 2, 1, 2])
    assert outcome.opponents(1) == [2, 4]
    assert outcome.duel(1, 2) == outcome.duel(3, 4) == 1.0
    assert outcome.duel(4, 1) == 0.0
    assert [outcome.points(s) for s in (1, 2, 3, 4)] == [1.0, 0.0, 1.0, 0.0]
    assert outcome.team_scores == {1: 13, 2: 8}
    assert outcome.ranking == [[1, 3], [2, 4]]
    with pytest.raises(ValueError, match="teammates"):
        outcome.duel(1, 3)


def test_a_team_with_a_member_out_ranks_last():
    outcome = GameOutcome.of([50, 1, 40, 1], out=[3], teams=[1, 2, 1, 2])
    assert outcome.teams_out == {1}
    assert outcome.ranking == [[2, 4], [1, 3]]
    assert outcome.team_duel(2, 1) == 1.0


@pytest.mark.parametrize(
    "seats",
    [
        (SeatResult(1, 0),),
        (SeatResult(1, 0), SeatResult(1, 3)),
        (SeatResult(1, 0, team=1), SeatResult(2, 0)),
        (SeatResult(1, 0, team=1), SeatResult(2, 0, team=3), SeatResult(3, 0, team=2)),
    ],
)
def test_malformed_outcomes_are_refused(seats):
    with pytest.raises(ValueError, match=r"seat|team"):
        GameOutcome(seats)


def test_unknown_seats_and_self_duels_are_refused():
    outcome = GameOutcome.of([1, 2])
    with pytest.raises(ValueError, match="no seat 3"):
        outcome.duel(1, 3)
    with pytest.raises(ValueError, match="itself"):
        outcome.duel(1, 1)
    with pytest.raises(ValueError, match="team"):
        outcome.team_duel(1, 2)


@given(
    st.lists(st.integers(0, 60), min_size=2, max_size=4),
    st.sets(st.integers(1, 4)),
)
def test_duels_are_antisymmetric_and_winners_lose_to_none(scores, out):
    outcome = GameOutcome.of(scores, out=out)
    seats = range(1, len(scores) + 1)
    for a, b in itertools.permutations(seats, 2):
        assert outcome.duel(a, b) + outcome.duel(b, a) == 1.0
    # The old rule: the best score among those still in (everyone when all are out).
    pool = [s for s in seats if s not in out] or list(seats)
    best = max(scores[s - 1] for s in pool)
    assert outcome.winners == [s for s in pool if scores[s - 1] == best]
    assert outcome.ranking[0] == outcome.winners
    assert sorted(itertools.chain.from_iterable(outcome.ranking)) == list(seats)
    assert sum(outcome.points(s) for s in seats) == pytest.approx(len(scores) / 2)

"""The arena's pure logic (no database): streak scoring, pairing the waiting, standings."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.arena import Waiting, arena_standings, arena_tables, on_streak, streak_points
from tournaments.pairing import TableResult


def test_wins_count_double_after_two_in_a_row_until_a_game_that_is_not_a_win():
    assert streak_points([1, 1, 1, 1]) == (1 + 1 + 2 + 2, 4)
    assert streak_points([1, 1, 0.5, 1, 1, 1]) == (1 + 1 + 0.5 + 1 + 1 + 2, 3)
    assert streak_points([1, 1, 0, 1]) == (3.0, 1)
    assert streak_points([0.5, 1, 1, 0.5]) == (3.0, 0)  # a draw is never doubled
    assert streak_points([]) == (0.0, 0)
    assert not on_streak(1)
    assert on_streak(2)


@given(st.lists(st.sampled_from([0.0, 0.5, 1.0]), max_size=30))
def test_streak_points_are_at_least_the_plain_sum_and_at_most_twice(points):
    total, _run = streak_points(points)
    assert sum(points) <= total <= 2 * sum(points)


def w(pid, points=0.0, rating=1500.0, last=()):
    return Waiting(id=pid, points=points, rating=rating, last_opponents=frozenset(last))


def test_waiting_players_meet_neighbours_in_the_standing():
    field = [w(1, 0.0), w(2, 3.0), w(3, 2.0), w(4, 0.5)]
    assert arena_tables(field, 2) == [(2, 3), (4, 1)]


def test_never_the_previous_opponent_when_another_choice_exists():
    field = [w(1, 3.0, last=[2]), w(2, 2.9, last=[1]), w(3, 1.0), w(4, 0.0)]
    tables = arena_tables(field, 2)
    assert sorted(tables) == [(1, 3), (2, 4)]


def test_two_who_just_met_wait_for_others_unless_nobody_else_can_come():
    field = [w(1, last=[2]), w(2, last=[1])]
    assert arena_tables(field, 2, allow_rematch=False) == []
    assert arena_tables(field, 2, allow_rematch=True) == [(1, 2)]


def test_bigger_tables_only_when_the_table_size_allows_and_enough_wait():
    field = [w(i, float(10 - i)) for i in range(1, 6)]
    assert arena_tables(field, 2) == [(1, 2), (3, 4)]  # one waits
    assert [len(t) for t in arena_tables(field, 4)] == [3, 2]  # nobody left alone
    assert [len(t) for t in arena_tables(field[:3], 4)] == [3]
    assert [len(t) for t in arena_tables(field, 4, exact=True)] == [4]


@given(
    st.lists(st.integers(min_value=0, max_value=8), min_size=0, max_size=14, unique=True),
    st.integers(min_value=2, max_value=4),
    st.booleans(),
)
def test_nobody_sits_twice_and_no_avoidable_rematch(ids, size, allow_rematch):
    # Each player's previous opponent is the next id (a chain of pairs).
    field = [w(pid, float(pid % 3), last=[pid ^ 1]) for pid in ids]
    tables = arena_tables(field, size, allow_rematch=allow_rematch)
    seated = [pid for table in tables for pid in table]
    assert len(seated) == len(set(seated))
    assert all(2 <= len(t) <= size for t in tables)
    if not allow_rematch:
        for table in tables:
            for a, b in pairwise(sorted(table)):
                assert b != a ^ 1 or a ^ 1 not in table


def result(a, b, points_a, score_a=0, score_b=0):
    return TableResult(
        players=(a, b), points={a: points_a, b: 1 - points_a}, scores={a: score_a, b: score_b}
    )


def test_standings_by_streak_points_then_performance_then_score():
    ratings = {1: 1500.0, 2: 1500.0, 3: 1900.0, 4: 1100.0}
    results = [
        result(1, 4, 1.0),  # 1: win, win, win -> 1 + 1 + 2 = 4
        result(2, 3, 1.0),  # 2: win, win, loss, win -> 3
        result(1, 4, 1.0),
        result(2, 3, 1.0),
        result(1, 4, 1.0),
        result(3, 2, 1.0),
        result(2, 3, 1.0),
    ]
    rows = arena_standings([1, 2, 3, 4], results, ratings)
    assert [(r.player, r.points) for r in rows[:2]] == [(1, 4.0), (2, 3.0)]
    assert rows[0].games == 3


def test_equal_points_ordered_by_mean_opponent_rating_then_score_and_ties_share_a_rank():
    ratings = {1: 1500.0, 2: 1800.0, 3: 1500.0, 4: 1200.0, 5: 1500.0, 6: 1500.0}
    results = [result(1, 2, 0.5), result(3, 4, 0.5), result(5, 6, 0.5, 10, 10)]
    rows = arena_standings([4, 3, 1, 2, 5, 6], results, ratings)
    order = [r.player for r in rows]
    assert order[0] == 1  # met an 1800
    assert order[-1] == 3  # met an 1200
    ranks = {r.player: r.rank for r in rows}
    assert ranks[5] == ranks[6] == 2  # met a 1500 and scored 10
    assert ranks[2] == ranks[4] == 4  # met a 1500 and scored 0


@pytest.mark.parametrize("players", range(3, 9))
def test_arena_over_many_games_rotates_seats_and_nobody_waits_twice(players):
    from bench.pairing_bench import ArenaReport, simulate_arena

    report = ArenaReport()
    for seed in range(5):
        simulate_arena(players=players, games=40, table_size=2, seed=seed, report=report)
    assert report.most_skipped <= 1  # passed over at most one wave while others were seated
    assert max(report.spreads) <= 2
    assert len(report.met) == players * (players - 1) // 2  # everyone meets everyone
    if players <= 4:  # in every event (more players pair by standing: not every pair meets)
        assert report.fewest_met == players * (players - 1) // 2
    assert max(report.waits) <= 300  # never more than one game (the longest lasts 300 s)


def test_a_player_passed_over_comes_before_the_standing():
    field = [w(1, 5.0), w(2, 4.0), Waiting(3, 0.0, 1500.0, skipped=1)]
    assert arena_tables(field, 2) == [(3, 1)]  # 2 waits, once

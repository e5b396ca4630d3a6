"""The chart layout and leaderboard positions."""

from datetime import UTC, datetime

import pytest

from ratings.selectors import chart_layout, leaderboard, leaderboard_position, pool_parse
from tests.ratings.factories import RatingFactory


def test_chart_spans_ratings_with_round_ticks():
    at = datetime(2026, 1, 1, tzinfo=UTC)
    chart = chart_layout([(1500.0, None, None), (1520.0, at, 7), (1480.0, at, 9)], height=220)
    assert [tick.label for tick in chart.ticks] == [1480, 1490, 1500, 1510, 1520]
    xs = [p.x for p in chart.points]
    assert xs == [chart.left, (chart.left + chart.right) / 2, chart.right]
    ys = {p.rating: p.y for p in chart.points}
    assert ys[1520.0] == chart.top  # highest rating on the top tick
    assert ys[1480.0] == chart.bottom
    assert ys[1500.0] == pytest.approx((chart.top + chart.bottom) / 2)
    assert chart.polyline.split()[0] == f"{chart.left:.1f},{ys[1500.0]:.1f}"
    assert (chart.first.rating, chart.last.rating, chart.last.game_id) == (1500.0, 1480.0, 9)


def test_chart_of_a_flat_history_still_has_height():
    chart = chart_layout([(1500.0, None, None), (1500.0, None, 1)])
    assert len(chart.ticks) >= 2
    assert all(chart.top <= p.y <= chart.bottom for p in chart.points)


def test_no_chart_without_points():
    assert chart_layout([]) is None


def test_pool_parse():
    assert pool_parse(None) == "ffa"
    assert pool_parse("") == "ffa"
    assert pool_parse("teams") == "teams"
    assert pool_parse("", default="") == ""
    with pytest.raises(ValueError, match="FFA"):
        pool_parse("FFA")


@pytest.mark.django_db
def test_leaderboard_position_counts_ties_by_name():
    RatingFactory(user__username="a", rating=1600.0)
    tied_before = RatingFactory(user__username="b", rating=1550.0)
    tied_after = RatingFactory(user__username="c", rating=1550.0)
    assert [r.user.username for r in leaderboard(pool="ffa")] == ["a", "b", "c"]
    first = leaderboard_position(user=tied_before.user, pool="ffa", page_size=2)
    second = leaderboard_position(user=tied_after.user, pool="ffa", page_size=2)
    assert (first.rank, first.page) == (2, 1)
    assert (second.rank, second.page) == (2, 2)
    assert leaderboard_position(user=tied_after.user, pool="teams") is None

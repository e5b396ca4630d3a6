"""The chart layout, leaderboard positions and the hinted share."""

from datetime import UTC, datetime

import pytest

from ratings.selectors import (
    HintShare,
    chart_layout,
    hint_share,
    leaderboard,
    leaderboard_position,
    pool_parse,
)
from tests.factories import UserFactory
from tests.ratings.factories import RatingFactory
from tests.ratings.play import hinted_game


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


# -- hinted share ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_hinted_share_counts_rated_games_played_to_the_end():
    """Of the games where ratings were at stake, those with a hint: casual and aborted games (a
    hint or not) are left out, and the other player's rated game still counts."""
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    hinted_game([ana, bo], bo, hinters={ana})  # ana hints: out of ratings, bo is rated
    hinted_game([ana, bo], ana)  # no hint
    hinted_game([ana, bo], ana, hinters={ana}, rated=False)  # casual
    hinted_game([ana, bo], bo, hinters={ana}, moves=1)  # aborted: bo never moved
    assert hint_share(user=ana) == HintShare(hinted_games=1, rated_games=2)
    assert (hint_share(user=ana).share, hint_share(user=ana).percent) == (0.5, 50)
    assert hint_share(user=bo) == HintShare(hinted_games=0, rated_games=2)
    assert hint_share(user=bo).percent == 0


@pytest.mark.django_db
def test_a_game_where_everyone_hinted_still_counts_as_rated_for_each():
    ana, bo = UserFactory(), UserFactory()
    hinted_game([ana, bo], bo, hinters={ana, bo})
    assert hint_share(user=ana) == hint_share(user=bo) == HintShare(1, 1)


@pytest.mark.django_db
def test_no_share_before_the_first_rated_game(user):
    share = hint_share(user=user)
    assert (share.rated_games, share.share, share.percent) == (0, None, None)


@pytest.mark.django_db
def test_the_leaderboard_shows_each_pool_s_share():
    ana, bo, cy, dee = (UserFactory(username=name) for name in ("ana", "bo", "cy", "dee"))
    hinted_game([ana, bo], bo, hinters={ana})
    hinted_game([ana, bo], ana)
    hinted_game([ana, bo, cy, dee], bo, cy, dee, players=4, mode="teams", hinters={ana})
    ffa = {row.user.username: HintShare.of(row) for row in leaderboard(pool="ffa")}
    assert ffa == {"ana": HintShare(1, 2), "bo": HintShare(0, 2)}
    teams = {row.user.username: HintShare.of(row) for row in leaderboard(pool="teams")}
    assert teams == {"bo": HintShare(0, 1), "cy": HintShare(0, 1), "dee": HintShare(0, 1)}
    assert hint_share(user=ana) == HintShare(2, 3)  # the profile's: both pools


@pytest.mark.django_db
def test_a_leaderboard_page_is_read_in_one_query(django_assert_max_num_queries):
    for _ in range(3):
        first, second = UserFactory(), UserFactory()
        hinted_game([first, second], second)
        hinted_game([first, second], second, hinters={first})
    with django_assert_max_num_queries(1):
        shares = [HintShare.of(row) for row in leaderboard(pool="ffa")]
    assert (
        sorted(shares, key=lambda s: s.hinted_games)
        == [HintShare(0, 2)] * 3 + [HintShare(1, 2)] * 3
    )

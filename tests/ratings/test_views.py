"""Leaderboard and "About ratings" pages, and the nav links to them (a profile is accounts':
tests/accounts/test_profile.py)."""

import re

import pytest
from django.urls import reverse

from tests.factories import UserFactory
from tests.ratings.factories import RatingFactory
from tests.ratings.play import hinted_game, resigned_game

pytestmark = pytest.mark.django_db


def page(client, url: str, status: int = 200) -> str:
    response = client.get(url)
    assert response.status_code == status
    return response.content.decode()


def rows(html: str) -> list[str]:
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return re.findall(r"<tr.*?</tr>", body, flags=re.S)


# -- leaderboard ---------------------------------------------------------------------------------


def test_leaderboard_lists_rank_player_rating_games_and_record(client):
    winner, loser = UserFactory(username="ana"), UserFactory(username="bo")
    resigned_game([winner, loser], loser)
    html = page(client, reverse("leaderboard") + "?mode=ffa")
    first, second = rows(html)
    assert ">1<" in first
    assert f'href="{reverse("profile", args=["ana"])}"' in first
    assert ">1520<" in first
    assert "?</abbr>" in first  # provisional
    assert "1 / 0 / 0" in first
    assert ">2<" in second
    assert "bo" in second
    assert ">1480<" in second
    assert "0 / 0 / 1" in second


def test_leaderboard_defaults_to_ffa_and_keeps_pools_apart(client):
    RatingFactory(user__username="ffa-player", pool="ffa")
    RatingFactory(user__username="team-player", pool="teams")
    default = page(client, reverse("leaderboard"))
    assert "ffa-player" in default
    assert "team-player" not in default
    teams = page(client, reverse("leaderboard") + "?mode=teams")
    assert "team-player" in teams
    assert "ffa-player" not in teams


def test_leaderboard_rejects_an_unknown_mode(client):
    assert "chess" in page(client, reverse("leaderboard") + "?mode=chess", status=400)


def test_leaderboard_does_not_reflect_markup(client):
    """Regression: the unknown mode was echoed into a text/html 400 (reflected XSS)."""
    script = "<script>alert(document.domain)</script>"
    response = client.get(reverse("leaderboard"), {"mode": script})
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/plain")
    assert response["X-Content-Type-Options"] == "nosniff"


def test_leaderboard_rounds_and_marks_established_players(client):
    RatingFactory(user__username="steady", rating=1612.6, games=20)
    (row,) = rows(page(client, reverse("leaderboard")))
    assert ">1613<" in row
    assert "provisional" not in row


def test_equal_ratings_share_a_rank(client):
    RatingFactory(user__username="a", rating=1600.0)
    RatingFactory(user__username="b", rating=1550.0)
    RatingFactory(user__username="c", rating=1550.0)
    RatingFactory(user__username="d", rating=1500.0)
    ranks = [
        re.search(r'<td class="fold-main fold-rank">(\d+)</td>', r).group(1)
        for r in rows(page(client, "/leaderboard/"))
    ]
    assert ranks == ["1", "2", "2", "4"]


def test_leaderboard_needs_the_minimum_number_of_games(client, settings):
    RatingFactory(user__username="newcomer", games=2)
    RatingFactory(user__username="regular", games=3)
    assert "newcomer" in page(client, reverse("leaderboard"))
    settings.RATINGS_LEADERBOARD_MIN_GAMES = 3
    html = page(client, reverse("leaderboard"))
    assert "newcomer" not in html
    assert "regular" in html
    assert "after 3 counted games" in html


def test_leaderboard_is_paginated_by_25(client):
    RatingFactory.create_batch(30)
    first = page(client, reverse("leaderboard"))
    assert len(rows(first)) == 25
    assert "Page 1 of 2" in first
    second = rows(page(client, reverse("leaderboard") + "?mode=ffa&page=2"))
    assert len(second) == 5
    assert '<td class="fold-main fold-rank">26</td>' in second[0]


def test_own_row_is_highlighted(client):
    RatingFactory.create_batch(3)
    me = RatingFactory(rating=1650.5)
    client.force_login(me.user)
    html = page(client, reverse("leaderboard"))
    highlighted = [r for r in rows(html) if 'class="mine"' in r]
    assert len(highlighted) == 1
    assert me.user.username in highlighted[0]
    assert "Your rank" not in html


def test_own_rank_is_shown_when_on_another_page(client):
    RatingFactory.create_batch(30, rating=1800.0)
    me = RatingFactory(rating=1400.0)
    client.force_login(me.user)
    html = page(client, reverse("leaderboard"))
    assert "Your rank: 31 (page 2)." in html
    assert "?mode=ffa&amp;page=2" in html
    assert 'class="mine"' not in html
    assert 'class="mine"' in page(client, reverse("leaderboard") + "?page=2")


def test_no_rank_shown_for_a_player_not_on_the_board(client, user):
    RatingFactory()
    client.force_login(user)
    assert "Your rank" not in page(client, reverse("leaderboard"))


# -- about and nav -------------------------------------------------------------------------------


def test_about_page_explains_the_formula(client):
    html = page(client, reverse("ratings_about"))
    assert "E = 1 / (1 + 10<sup>(R_B − R_A) / 400</sup>)" in html
    assert "K = 40 while a player has fewer than 20 counted games" in html
    assert "= K / (n − 1) × Σ (S − E)" in html
    assert "= K × (S − E)" in html
    assert "everyone starts at 1500" in html


def test_nav_links_to_leaderboard_and_own_profile(client, user):
    home = page(client, reverse("rules"))
    assert f'href="{reverse("leaderboard")}"' in home
    client.force_login(user)
    assert f'href="{reverse("profile", args=[user.username])}"' in page(client, reverse("rules"))


# -- hints -----------------------------------------------------------------------------------------


def test_the_leaderboard_shows_each_player_s_hinted_share(client):
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    hinted_game([ana, bo], bo)
    hinted_game([ana, bo], ana)
    hinted_game([ana, bo], bo, hinters={ana})
    html = page(client, reverse("leaderboard"))
    assert 'title="Share of rated games in which the player took a hint"' in html
    assert "#icon-hint" in html.split("<thead>", 1)[1].split("</thead>", 1)[0]
    by_name = {re.search(r'href="/users/(\w+)/"', row).group(1): row for row in rows(html)}
    assert (
        'title="Hints in 1 of 3 rated games (33%)" aria-hidden="true">33%</span>' in by_name["ana"]
    )
    assert (
        '<span class="visually-hidden">Hints in 1 of 3 rated games (33%)</span>' in by_name["ana"]
    )
    assert ">0%</span>" in by_name["bo"]


def test_a_leaderboard_row_without_history_shows_no_share(client):
    RatingFactory(user__username="imported")
    (row,) = rows(page(client, reverse("leaderboard")))
    assert '<td class="num hints" data-label="Hints">—</td>' in row


def test_the_leaderboard_page_reads_its_rows_in_a_few_queries(
    client, django_assert_max_num_queries
):
    for _ in range(3):
        first, second = UserFactory(), UserFactory()
        hinted_game([first, second], second)
        hinted_game([first, second], second, hinters={first})
    # The count, the page with every share, and the bots' box (two grouped queries).
    with django_assert_max_num_queries(4):
        html = page(client, reverse("leaderboard"))
    assert html.count("Hints in 1 of 2 rated games (50%)") == 2 * 3

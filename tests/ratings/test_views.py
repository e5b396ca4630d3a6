"""Leaderboard, profile and "About ratings" pages, and the nav links to them."""

import re

import pytest
from django.urls import reverse

from games import services as game_services
from ratings.models import Rating
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.ratings.factories import RatingFactory
from tests.ratings.play import hinted_game, play_round, resigned_game, user_at

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
    ranks = [re.search(r"<td>(\d+)</td>", r).group(1) for r in rows(page(client, "/leaderboard/"))]
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
    assert "<td>26</td>" in second[0]


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


# -- profile -------------------------------------------------------------------------------------


def test_profile_shows_ratings_chart_history_and_games(client):
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    rated = resigned_game([ana, bo], bo)
    casual = resigned_game([ana, bo], ana, rated=False)
    open_game = make_game(users=[ana], start=False)
    html = page(client, reverse("profile", args=["ana"]))

    assert "<h1>ana</h1>" in html
    assert ">1520<abbr" in html  # current ffa rating, provisional
    assert "Peak" in html
    assert "1 / 0 / 0" in html
    # The chart: a polyline from 1500 to 1520, drawn by the site.
    assert "rating-chart" in html
    assert len(re.search(r'points="([^"]+)"', html).group(1).split()) == 2
    history = html.split("Rating history", 1)[1].split("Recent games", 1)[0]
    newest, oldest = rows(history)
    assert f'href="/games/{casual.pk}/"' in newest
    assert "not counted: casual game" in newest
    assert f'href="/games/{rated.pk}/"' in oldest
    assert f'href="{reverse("profile", args=["bo"])}"' in oldest  # the opponent
    assert "1500.0" in oldest
    assert "1520.0" in oldest
    assert "+20.0" in oldest
    assert "win" in oldest
    games = rows(html.split("Recent games", 1)[1])
    assert len(games) == 3
    for game, row in zip([open_game, casual, rated], games, strict=True):
        assert f'href="/games/{game.pk}/"' in row
    assert "open" in games[0]
    assert "lost" in games[1]
    assert "won" in games[2]


def test_profile_without_games(client, user):
    html = page(client, reverse("profile", args=[user.username]))
    assert ">1500<abbr" in html
    assert "rating-chart" not in html
    assert "No finished games yet." in html


def test_profile_of_an_unknown_player_is_404(client):
    page(client, reverse("profile", args=["nobody"]), status=404)


def test_profile_names_bots_and_reasons(client):
    game = make_game(bots=[(2, "hard")])
    play_round(game)
    person = user_at(game, 1)
    game_services.game_resign(game_id=game.pk, user=person)
    html = page(client, reverse("profile", args=[person.username]))
    assert "bot (hard)" in html
    assert "not counted: fewer than two people in the game" in html
    assert not Rating.objects.exists()


def test_team_profile_marks_the_partner(client):
    game = make_game(players=4, mode="teams")
    play_round(game)
    quitter = user_at(game, 1)
    game_services.game_resign(game_id=game.pk, user=quitter)
    for seat in (2, 3):
        game_services.game_resign(game_id=game.pk, user=user_at(game, seat))
    html = page(client, reverse("profile", args=[quitter.username]))
    assert html.count("(partner)") == 1


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
    assert '<td class="num hints">—</td>' in row


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


def test_the_profile_shows_the_hinted_share_and_marks_hinted_games(client):
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    for _ in range(3):
        hinted_game([ana, bo], bo)
    hinted = hinted_game([ana, bo], bo, hinters={ana})
    html = page(client, reverse("profile", args=["ana"]))
    line = re.search(r'<p class="hint-share">(.*?)</p>', html, flags=re.S).group(1)
    assert "#icon-hint" in line
    assert "Hints in 1 of 4 rated games (25%)" in line
    recent = html.split("Recent games", 1)[1]
    (hinted_row,) = [row for row in rows(recent) if f"Game {hinted.pk}<" in row]
    ana_item, bo_item = re.findall(r"<li>.*?</li>", hinted_row, flags=re.S)
    assert "hint-mark" in ana_item
    assert "hint-mark" not in bo_item
    assert 'title="Used a hint: this game does not count for their rating"' in ana_item
    assert recent.count("hint-mark") == 1
    assert "Hints in 0 of 4 rated games (0%)" in page(client, reverse("profile", args=["bo"]))


def test_no_hint_line_before_the_first_rated_game(client, user):
    assert "hint-share" not in page(client, reverse("profile", args=[user.username]))


def test_the_hinted_share_is_translated(client):
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    hinted_game([ana, bo], bo, hinters={ana})
    hinted_game([ana, bo], bo)
    client.cookies["django_language"] = "fr"
    html = page(client, reverse("profile", args=["ana"]))
    assert "Indices dans 1 des 2 parties classées (50\u00a0%)" in html
    assert "Share of rated games" not in page(client, reverse("leaderboard"))

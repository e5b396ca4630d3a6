"""A person's profile (``/users/<name>/``): their ratings with chart and history, their recent
games, the hinted share."""

import re

import pytest
from django.urls import reverse

from games import services as game_services
from ratings.models import Rating
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.ratings.play import hinted_game, play_round, resigned_game, user_at

pytestmark = pytest.mark.django_db


def page(client, url: str, status: int = 200) -> str:
    response = client.get(url)
    assert response.status_code == status
    return response.content.decode()


def rows(html: str) -> list[str]:
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return re.findall(r"<tr.*?</tr>", body, flags=re.S)


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


# -- hints -----------------------------------------------------------------------------------------


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

"""Ratings in sight: beside the names in the lobby's lists and on a tournament's page (entrants,
pairings, standings), as the game page shows them ("(1512)")."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse

from games import services
from ratings.models import Rating
from ratings.selectors import ratings_of
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.tournaments.factories import make_tournament
from tests.tournaments.helpers import start

pytestmark = pytest.mark.django_db


def rated(username: str, rating: float, pool: str = "ffa"):
    user = UserFactory(username=username)
    Rating.objects.create(user=user, pool=pool, rating=rating, peak=rating, games=12)
    return user


def shown(username: str, rating: int) -> re.Pattern[str]:
    """A name (a link or not) and its rating after it (templates/games/_seat_rating.html)."""
    return re.compile(
        rf'>?{username}(</a>)?\s+<span class="seat-rating" title="Rating">'
        rf'<span class="visually-hidden">Rating </span>\({rating}\)</span>'
    )


def test_ratings_of_rounds_and_reads_1500_before_a_first_rated_game(django_assert_num_queries):
    alice = rated("alice", 1612.5)
    teams = rated("tess", 1400, pool="teams")
    newcomer = UserFactory()
    with django_assert_num_queries(1):
        found = ratings_of(user_ids=[alice.pk, newcomer.pk, teams.pk], pool="ffa")
    assert found == {alice.pk: 1612, newcomer.pk: 1500, teams.pk: 1500}
    assert ratings_of(user_ids=[], pool="ffa") == {}


def test_the_lobby_shows_ratings_beside_names_in_open_and_live_games(client):
    alice, bob = rated("alice", 1612.4), rated("bob", 1480)
    services.game_create(user=alice, players=2)
    make_game(users=[bob, UserFactory(username="newbie")], bots=[])
    make_game(players=2, users=[UserFactory(username="carmen")], bots=[(2, "easy")])
    page = client.get(reverse("lobby")).content.decode()
    assert shown("alice", 1612).search(page)
    assert shown("bob", 1480).search(page)
    assert shown("newbie", 1500).search(page)
    assert re.search(r"Bot \(easy\)\s*</span>", page)  # no rating for a bot


def test_the_lobby_lists_refresh_keeps_the_ratings(client):
    services.game_create(user=rated("alice", 1700), players=3)
    fragment = client.get(reverse("lobby") + "?lists=1").content.decode()
    assert shown("alice", 1700).search(fragment)


def test_a_tournament_page_shows_ratings_of_entrants_pairings_and_standings(client):
    alice, bob = rated("alice", 1655), rated("bob", 1540)
    tournament = make_tournament(players=[alice, bob], starts_in=timedelta(0))
    upcoming_page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert shown("alice", 1655).search(upcoming_page.split('id="players-heading"')[1])

    start(tournament)
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    standings, rest = page.split('id="standings-heading"')[1].split('id="rounds-heading"')
    rounds, players = rest.split('id="players-heading"')
    for part in (standings, rounds, players):
        assert "(1655)" in part
        assert "(1540)" in part
    live = client.get(reverse("tournament_live", args=[tournament.pk])).content.decode()
    assert "(1655)" in live


def test_the_lobby_reads_the_ratings_of_all_its_lists_in_one_query(client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    alice = rated("alice", 1600)
    client.force_login(alice)
    services.game_create(user=alice, players=2)  # open, and one of hers
    make_game(users=[alice, UserFactory()])  # live, and one of hers
    finished = make_game(users=[alice, UserFactory()])
    services.game_resign(game_id=finished.pk, user=alice)
    make_game()  # someone else's
    with CaptureQueriesContext(connection) as queries:
        page = client.get(reverse("lobby")).content.decode()
    assert sum('"ratings_rating"' in q["sql"] for q in queries.captured_queries) == 1
    assert shown("alice", 1600).search(page)

"""The tournament pages: the list and a tournament's page, in every language, with join, leave
and withdrawal through their forms, and the live part the page script reloads."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse

from tests.factories import UserFactory
from tests.tournaments.factories import make_tournament
from tests.tournaments.helpers import finish, round_games, start
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

WORDS = {
    "en": ("Tournaments", "Upcoming", "Standings"),
    "es": ("Torneos", "Próximos", "Clasificación"),
    "de": ("Turniere", "Demnächst", "Tabelle"),
    "it": ("Tornei", "In programma", "Classifica"),
    "fr": ("Tournois", "À venir", "Classement"),
}


@pytest.mark.parametrize("language", sorted(WORDS))
def test_the_pages_render_in_each_language(client, language):
    upcoming = make_tournament(players=1, name="Evening cup")
    running = start(make_tournament(players=2, name="Running cup", starts_in=timedelta(0)))
    client.cookies["django_language"] = language
    title, upcoming_word, standings_word = WORDS[language]
    listing = client.get(reverse("tournaments")).content.decode()
    assert title in listing
    assert upcoming_word in listing
    assert "Evening cup" in listing
    assert "Running cup" in listing
    assert f'href="{reverse("tournament", args=[upcoming.pk])}"' in listing
    page = client.get(reverse("tournament", args=[running.pk])).content.decode()
    assert standings_word in page
    assert f'data-ws-path="/ws/tournaments/{running.pk}/"' in page
    game = round_games(running)[0]
    assert f'href="/games/{game.pk}/"' in page


def test_the_header_links_the_tournaments(client):
    assert f'href="{reverse("tournaments")}"' in client.get("/").content.decode()


def test_join_and_leave_through_the_page(client):
    tournament = make_tournament()
    user = UserFactory()
    client.force_login(user)
    url = reverse("tournament", args=[tournament.pk])
    assert "Join" in client.get(url).content.decode()
    response = client.post(reverse("tournament_join", args=[tournament.pk]))
    assert response.status_code == 302
    assert tournament.players.filter(user=user).exists()
    assert "Leave" in client.get(url).content.decode()
    client.post(reverse("tournament_leave", args=[tournament.pk]), {"next": "/tournaments/"})
    assert not tournament.players.filter(user=user).exists()


def test_a_late_join_is_refused_with_a_message(client):
    tournament = start(make_tournament(players=2))
    client.force_login(UserFactory())
    response = client.post(reverse("tournament_join", args=[tournament.pk]), follow=True)
    assert "already started" in response.content.decode()
    assert tournament.players.count() == 2


def test_the_player_sees_play_your_game_and_the_winner_at_the_end(client):
    tournament = start(make_tournament(players=2, rounds=1))
    (game,) = round_games(tournament)
    player = game.seats.get(seat=1).user
    client.force_login(player)
    live = client.get(reverse("tournament_live", args=[tournament.pk])).content.decode()
    assert 'id="play-your-game"' in live
    assert f'href="/games/{game.pk}/"' in live
    finish(game, winner=1)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert 'id="play-your-game"' not in page
    assert f"Tournament winner: {player.username}" in page
    assert "Final standings" in page


def test_withdrawing_from_the_page_resigns_the_game(client):
    tournament = start(make_tournament(players=2, rounds=2))
    (game,) = round_games(tournament)
    client.force_login(game.seats.get(seat=2).user)
    client.post(reverse("tournament_leave", args=[tournament.pk]))
    game.refresh_from_db()
    assert (game.status, game.end_reason) == ("finished", "resigned")


def test_a_cancelled_tournament_says_why(client):
    tournament = start(make_tournament(players=1, min_players=2))
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert "Too few players: 1 joined, 2 were needed." in page


def test_an_unknown_tournament_is_404(client):
    assert client.get(reverse("tournament", args=[999])).status_code == 404
    client.force_login(UserFactory())
    assert client.post(reverse("tournament_join", args=[999])).status_code == 404


def test_the_profile_lists_tournaments_and_placings(client):
    tournament = start(make_tournament(players=2, rounds=1, name="Summer cup"))
    (game,) = round_games(tournament)
    finish(game, winner=1)
    winner, loser = game.seats.get(seat=1).user, game.seats.get(seat=2).user
    upcoming = make_tournament(players=[loser], name="Autumn cup")
    page = client.get(reverse("profile", args=[winner.username])).content.decode()
    assert "Summer cup" in page
    assert '<use href="#icon-trophy"></use></svg> 1 of 2' in page  # an icon, not an emoji
    other = client.get(reverse("profile", args=[loser.username])).content.decode()
    assert "2 of 2" in other
    assert f'href="{reverse("tournament", args=[upcoming.pk])}"' in other
    client.cookies["django_language"] = "de"
    assert "Turniere" in client.get(reverse("profile", args=[loser.username])).content.decode()

"""The pages of tournaments created by players: the form, its refusals, changes, cancellation
and invitation links."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from tests.factories import UserFactory
from tests.tournaments.creation import veteran
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_throttles():
    cache.clear()
    yield
    cache.clear()


def form(**changes):
    starts = timezone.now() + timedelta(hours=2)
    data = {
        "name": "Players' cup",
        "format": "swiss",
        "rounds": 4,
        "table_size": 2,
        "mode": "ffa",
        "variant": "standard",
        "turn_seconds": 120,
        "starts_at": starts.strftime("%Y-%m-%dT%H:%M"),
        "max_players": 16,
        "visibility": "public",
        "password": "",
    }
    data.update(changes)
    return data


def test_the_list_links_the_form_or_says_why_not(client):
    page = client.get("/tournaments/").content.decode()
    assert "Log in to create a tournament" in page
    client.force_login(veteran(1))
    page = client.get("/tournaments/").content.decode()
    assert "Finish 2 more games to create tournaments." in page
    assert "/tournaments/new/" not in page
    client.force_login(veteran())
    assert 'href="/tournaments/new/"' in client.get("/tournaments/").content.decode()


def test_a_player_creates_a_tournament_with_the_form(client):
    player = veteran()
    client.force_login(player)
    page = client.get("/tournaments/new/")
    assert page.status_code == 200
    assert 'id="tournament-form"' in page.content.decode()
    response = client.post("/tournaments/new/", form())
    tournament = Tournament.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/tournaments/{tournament.pk}/"
    assert (tournament.created_by, tournament.rounds, tournament.visibility) == (
        player,
        4,
        "public",
    )
    # One at a time: the form page now says why not.
    page = client.get("/tournaments/new/").content.decode()
    assert "one at a time" in page
    assert 'id="tournament-form"' not in page


def test_a_player_without_finished_games_is_told_why(client):
    client.force_login(UserFactory())
    page = client.get("/tournaments/new/").content.decode()
    assert "Finish 3 more games to create tournaments." in page
    assert client.post("/tournaments/new/", form()).status_code == 200
    assert not Tournament.objects.exists()


def test_invalid_combinations_are_refused_in_the_readers_language(client):
    client.force_login(veteran())
    response = client.post(
        "/tournaments/new/", form(format="round_robin", table_size=3), HTTP_ACCEPT_LANGUAGE="de"
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "Ein Rundenturnier wird an Zweiertischen gespielt." in page
    response = client.post(
        "/tournaments/new/", form(visibility="public", password="x"), HTTP_ACCEPT_LANGUAGE="fr"
    )
    assert "Seul un tournoi sur invitation peut avoir un mot de passe." in response.content.decode()
    response = client.post("/tournaments/new/", form(name=""), HTTP_ACCEPT_LANGUAGE="es")
    assert response.status_code == 200
    assert not Tournament.objects.exists()


def test_the_creator_edits_and_cancels_before_the_start(client):
    player = veteran()
    client.force_login(player)
    client.post("/tournaments/new/", form())
    tournament = Tournament.objects.get()
    detail = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert f'href="/tournaments/{tournament.pk}/edit/"' in detail
    edit = client.get(f"/tournaments/{tournament.pk}/edit/").content.decode()
    assert 'value="Players&#x27; cup"' in edit
    response = client.post(f"/tournaments/{tournament.pk}/edit/", form(name="Renamed", rounds=5))
    assert response.status_code == 302
    tournament.refresh_from_db()
    assert (tournament.name, tournament.rounds) == ("Renamed", 5)
    client.force_login(veteran())
    assert client.get(f"/tournaments/{tournament.pk}/edit/").status_code == 404
    assert (
        'id="tournament-manage"'
        not in client.get(f"/tournaments/{tournament.pk}/").content.decode()
    )
    client.post(f"/tournaments/{tournament.pk}/cancel/")
    tournament.refresh_from_db()
    assert tournament.status == "scheduled"
    client.force_login(player)
    client.post(f"/tournaments/{tournament.pk}/cancel/")
    tournament.refresh_from_db()
    assert (tournament.status, tournament.cancel_reason) == ("cancelled", "cancelled")
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Cancelled by its organiser." in page


def test_an_invitation_with_a_password_is_joined_through_its_link(client):
    creator = veteran()
    client.force_login(creator)
    client.post("/tournaments/new/", form(visibility="invite", password="s3cret"))
    tournament = Tournament.objects.get()
    token = tournament.invite_token
    detail = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert f"http://testserver/tournaments/invite/{token}/" in detail
    client.logout()
    signed_out = client.get(f"/tournaments/{tournament.pk}/?invite={token}").content.decode()
    assert f"?next=/tournaments/{tournament.pk}/%3Finvite%3D{token}" in signed_out
    guest = UserFactory()
    client.force_login(guest)
    assert "Players&#x27; cup" not in client.get("/tournaments/").content.decode()
    assert client.get(f"/tournaments/{tournament.pk}/").status_code == 404
    assert client.get("/tournaments/invite/not-a-token/").status_code == 404
    link = client.get(f"/tournaments/invite/{token}/")
    assert link["Location"] == f"/tournaments/{tournament.pk}/?invite={token}"
    page = client.get(link["Location"]).content.decode()
    assert 'name="password"' in page
    assert f'name="invite" value="{token}"' in page
    join = f"/tournaments/{tournament.pk}/join/"
    refused = client.post(join, {"invite": token, "password": "wrong"})
    assert refused["Location"] == f"/tournaments/{tournament.pk}/?invite={token}"
    assert "Wrong tournament password." in client.get(refused["Location"]).content.decode()
    assert not tournament.players.exists()
    client.post(join, {"invite": token, "password": "s3cret"})
    assert list(tournament.players.values_list("user", flat=True)) == [guest.pk]
    assert client.get(f"/tournaments/{tournament.pk}/").status_code == 200


def test_the_form_is_throttled(client, settings):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "tournament_create": "1/hour"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    client.force_login(veteran())
    # A refused attempt is given back; the first creation counts; the second waits (the first
    # cancelled, so the one-at-a-time rule does not refuse it before the throttle).
    client.post("/tournaments/new/", form(format="round_robin", table_size=3))
    assert client.post("/tournaments/new/", form()).status_code == 302
    Tournament.objects.update(status=Tournament.Status.CANCELLED)
    response = client.post("/tournaments/new/", form(name="Second"))
    assert "Too many attempts. Try again in" in response.content.decode()
    assert Tournament.objects.count() == 1


def test_staff_create_events_in_a_row_without_the_players_throttle(client, settings):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "tournament_create": "1/hour"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    client.force_login(UserFactory(is_staff=True))
    for name in ("First", "Second", "Third"):
        assert client.post("/tournaments/new/", form(name=name)).status_code == 302
    assert Tournament.objects.count() == 3

"""Tournaments created by players (API.md, Tournaments second edition): who may, one at a
time, invitations and their passwords, changes and cancellations."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from tests.factories import UserFactory
from tests.tournaments.api.test_views import LIST, client_for, create_body, url
from tests.tournaments.creation import veteran
from tests.tournaments.helpers import start
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_throttles():
    cache.clear()
    yield
    cache.clear()


def test_a_player_with_three_finished_games_creates_a_public_tournament():
    player = veteran()
    response = client_for(player).post(LIST, create_body(), format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["creator"], body["visibility"], body["featured"]) == (
        player.username,
        "public",
        False,
    )
    assert "invite_url" not in body
    listed = client_for(UserFactory()).get(LIST).json()["results"]
    assert [t["id"] for t in listed] == [body["id"]]


def test_fewer_finished_games_or_signed_out_is_refused():
    response = client_for(veteran(2)).post(LIST, create_body(), format="json")
    assert response.status_code == 403
    assert response.json()["error"] == "Finish 1 more game to create tournaments."
    assert client_for().post(LIST, create_body(), format="json").status_code in (401, 403)
    assert not Tournament.objects.exists()


def test_one_scheduled_or_running_tournament_per_player():
    player = veteran()
    client = client_for(player)
    first = client.post(LIST, create_body(), format="json").json()
    second = client.post(LIST, create_body(name="Again"), format="json")
    assert second.status_code == 409
    assert "one at a time" in second.json()["error"]
    assert client.delete(url(first["id"])).status_code == 200
    assert client.post(LIST, create_body(name="Again"), format="json").status_code == 201
    # Staff are not limited.
    staff = client_for(UserFactory(is_staff=True))
    assert staff.post(LIST, create_body(), format="json").status_code == 201
    assert staff.post(LIST, create_body(), format="json").status_code == 201


def test_invalid_combinations_and_a_start_in_the_past_are_400():
    client = client_for(veteran())
    bad = client.post(LIST, create_body(format="round_robin", table_size=3), format="json")
    assert bad.status_code == 400
    assert bad.json()["error"] == "A round robin is played at tables of 2."
    past = client.post(LIST, create_body(starts_at="2020-01-01T00:00:00Z"), format="json")
    assert past.status_code == 400
    public_password = client.post(LIST, create_body(password="secret"), format="json")
    assert public_password.status_code == 400
    assert not Tournament.objects.exists()


def test_an_invitation_is_unlisted_and_reached_with_its_token_and_password():
    creator = veteran()
    body = (
        client_for(creator)
        .post(LIST, create_body(visibility="invite", password="open sesame"), format="json")
        .json()
    )
    tournament = Tournament.objects.get(pk=body["id"])
    assert tournament.password != "open sesame"  # stored as a hash
    token = tournament.invite_token
    assert body["invite_url"] == f"http://testserver/tournaments/invite/{token}/"
    stranger = UserFactory()
    other = client_for(stranger)
    assert other.get(LIST).json()["results"] == []
    assert other.get(url(tournament.pk)).status_code == 404
    assert other.post(url(tournament.pk, "join"), {}, format="json").status_code == 404
    seen = other.get(url(tournament.pk) + f"?invite={token}").json()
    assert seen["name"] == "Friday Swiss"
    assert "invite_url" not in seen
    wrong = other.post(
        url(tournament.pk, "join"), {"invite": token, "password": "nope"}, format="json"
    )
    assert wrong.status_code == 403
    assert wrong.json()["error"] == "Wrong tournament password."
    joined = other.post(
        url(tournament.pk, "join"), {"invite": token, "password": "open sesame"}, format="json"
    )
    assert joined.status_code == 200
    assert [p["username"] for p in joined.json()["players"]] == [stranger.username]
    # A player who joined sees it listed; the creator too, with its link.
    assert [t["id"] for t in other.get(LIST).json()["results"]] == [tournament.pk]
    mine = client_for(creator).get(url(tournament.pk)).json()
    assert mine["invite_url"] == body["invite_url"]


def test_the_creator_changes_and_cancels_while_scheduled_others_cannot():
    creator = veteran()
    client = client_for(creator)
    body = client.post(LIST, create_body(), format="json").json()
    changed = client.patch(url(body["id"]), {"name": "Renamed", "rounds": 6}, format="json")
    assert changed.status_code == 200
    assert (changed.json()["name"], changed.json()["rounds"]) == ("Renamed", 6)
    bad = client.patch(url(body["id"]), {"table_size": 3, "mode": "teams"}, format="json")
    assert bad.status_code == 400
    assert client.patch(url(body["id"]), {"featured": True}, format="json").status_code == 403
    stranger = client_for(veteran())
    assert stranger.patch(url(body["id"]), {"name": "Mine"}, format="json").status_code == 403
    assert stranger.delete(url(body["id"])).status_code == 403
    cancelled = client.delete(url(body["id"]))
    assert cancelled.status_code == 200
    assert (cancelled.json()["status"], cancelled.json()["cancel_reason"]) == (
        "cancelled",
        "cancelled",
    )
    assert client.patch(url(body["id"]), {"name": "Late"}, format="json").status_code == 409


def test_after_the_start_only_staff_change_feature_or_cancel():
    creator = veteran()
    client = client_for(creator)
    body = client.post(LIST, create_body(), format="json").json()
    tournament = Tournament.objects.get(pk=body["id"])
    for _ in range(2):
        client_for(UserFactory()).post(url(tournament.pk, "join"), {}, format="json")
    start(tournament)
    assert client.patch(url(tournament.pk), {"name": "Late"}, format="json").status_code == 409
    assert client.delete(url(tournament.pk)).status_code == 409
    staff = client_for(UserFactory(is_staff=True))
    assert staff.patch(url(tournament.pk), {"rounds": 9}, format="json").status_code == 409
    featured = staff.patch(url(tournament.pk), {"featured": True, "name": "Star"}, format="json")
    assert featured.status_code == 200
    assert (featured.json()["featured"], featured.json()["name"]) == (True, "Star")
    assert staff.delete(url(tournament.pk)).json()["status"] == "cancelled"


def test_creation_is_throttled(settings):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "tournament_create": "1/hour"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    client = client_for(veteran())
    assert client.post(LIST, create_body(), format="json").status_code == 201
    assert client.post(LIST, create_body(), format="json").status_code == 429


def test_staff_create_events_without_the_players_limit(settings):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "tournament_create": "2/hour"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    staff = client_for(UserFactory(is_staff=True))
    for _ in range(4):
        assert staff.post(LIST, create_body(), format="json").status_code == 201

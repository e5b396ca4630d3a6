"""The admin adds and changes tournaments and schedules with the services' checks."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from tests.tournaments.factories import make_tournament
from tournaments.models import Schedule, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def boss(client):
    admin = get_user_model().objects.create_superuser("boss", "boss@example.com", "pw-12345-x")
    client.force_login(admin)
    return admin


def tournament_form(**changes):
    starts = timezone.now() + timedelta(hours=3)
    form = {
        "name": "Admin cup",
        "name_key": "",
        "starts_at_0": starts.strftime("%Y-%m-%d"),
        "starts_at_1": starts.strftime("%H:%M:%S"),
        "visibility": "public",
        "format": "swiss",
        "table_size": 2,
        "mode": "ffa",
        "variant": "standard",
        "rounds": 3,
        "turn_seconds": 120,
        "max_players": 16,
        "min_players": 2,
        "players-TOTAL_FORMS": 0,
        "players-INITIAL_FORMS": 0,
        "players-MIN_NUM_FORMS": 0,
        "players-MAX_NUM_FORMS": 1000,
    }
    form.update(changes)
    return form


def test_the_admin_adds_a_tournament_through_the_services(client, boss):
    response = client.post("/admin/tournaments/tournament/add/", tournament_form(featured="on"))
    assert response.status_code == 302, response.content.decode()[:3000]
    tournament = Tournament.objects.get(name="Admin cup")
    assert (tournament.created_by, tournament.featured, tournament.version) == (boss, True, 2)


def test_the_admin_refuses_invalid_combinations(client, boss):
    response = client.post(
        "/admin/tournaments/tournament/add/", tournament_form(mode="teams", table_size=2)
    )
    assert response.status_code == 200
    assert "Team tournaments are played at tables of 4." in response.content.decode()
    response = client.post(
        "/admin/tournaments/tournament/add/", tournament_form(format="swiss", rounds="")
    )
    assert "A Swiss tournament needs between 1 and 30 rounds." in response.content.decode()
    assert not Tournament.objects.exists()


def test_the_admin_changes_features_and_cancels(client, boss):
    tournament = make_tournament()
    page = f"/admin/tournaments/tournament/{tournament.pk}/change/"
    response = client.post(page, tournament_form(name="Renamed", rounds=5))
    assert response.status_code == 302
    tournament.refresh_from_db()
    assert (tournament.name, tournament.rounds) == ("Renamed", 5)
    bad = client.post(page, tournament_form(format="round_robin", table_size=4, rounds=""))
    assert "A round robin is played at tables of 2." in bad.content.decode()
    changelist = "/admin/tournaments/tournament/"
    client.post(changelist, {"action": "feature", "_selected_action": [tournament.pk]})
    tournament.refresh_from_db()
    assert tournament.featured
    client.post(changelist, {"action": "cancel", "_selected_action": [tournament.pk]})
    tournament.refresh_from_db()
    assert (tournament.status, tournament.cancel_reason) == ("cancelled", "cancelled")
    assert client.get(page).status_code == 200  # shown, no longer changed


def test_a_weekly_schedule_needs_its_day(client, boss):
    form = {
        "name": "Weekly",
        "name_key": "",
        "every": "weekly",
        "weekday": "",
        "time": "18:00",
        "active": "on",
        "format": "swiss",
        "table_size": 4,
        "mode": "ffa",
        "variant": "standard",
        "rounds": 3,
        "turn_seconds": 120,
        "max_players": 16,
        "min_players": 2,
    }
    response = client.post("/admin/tournaments/schedule/add/", form)
    assert response.status_code == 200
    assert not Schedule.objects.filter(name="Weekly").exists()
    response = client.post("/admin/tournaments/schedule/add/", {**form, "weekday": 5})
    assert response.status_code == 302
    assert Schedule.objects.get(name="Weekly").weekday == 5

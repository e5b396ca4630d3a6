"""Recurring schedules: the sweep creates each next tournament a day ahead, once; a fresh site has
two seeded schedules."""

from __future__ import annotations

from datetime import UTC, datetime, time

import pytest

from tournaments import services
from tournaments.models import Schedule, Tournament

pytestmark = pytest.mark.django_db


def at(hour: int, minute: int = 0, day: int = 10) -> datetime:
    return datetime(2030, 6, day, hour, minute, tzinfo=UTC)


def test_a_fresh_site_has_two_seeded_schedules():
    seeded = list(Schedule.objects.filter(active=True))
    assert len(seeded) == 2
    assert {s.format for s in seeded} == {"swiss"}
    created = services.schedules_extend(now=at(12))
    assert len(created) == 2
    assert Tournament.objects.filter(status="scheduled").count() == 2


def test_the_next_tournament_is_created_a_day_ahead_and_once():
    Schedule.objects.all().delete()
    schedule = Schedule.objects.create(
        name="Evening Swiss",
        time=time(18, 0),
        format="swiss",
        table_size=2,
        rounds=5,
        turn_seconds=90,
        max_players=20,
    )
    (first,) = services.schedules_extend(now=at(12))
    tournament = Tournament.objects.get(pk=first)
    assert tournament.starts_at == at(18)
    assert (tournament.name, tournament.rounds, tournament.turn_seconds) == ("Evening Swiss", 5, 90)
    assert (tournament.schedule, tournament.created_by) == (schedule, None)
    assert services.schedules_extend(now=at(12, 5)) == []
    # After 18:00 the next day's comes into the window.
    (second,) = services.schedules_extend(now=at(18, 1))
    assert Tournament.objects.get(pk=second).starts_at == at(18, day=11)
    assert services.schedules_extend(now=at(23)) == []


def test_inactive_schedules_create_nothing():
    Schedule.objects.update(active=False)
    assert services.schedules_extend(now=at(12)) == []


def test_the_sweep_creates_and_later_starts_a_scheduled_tournament():
    Schedule.objects.exclude(name="Daily Swiss").delete()
    report = services.tournaments_sweep(now=at(12))
    (created,) = report["created"]
    tournament = Tournament.objects.get(pk=created)
    report = services.tournaments_sweep(now=at(18, 0))
    assert report["started"] == [created]
    tournament.refresh_from_db()
    assert (tournament.status, tournament.cancel_reason) == ("cancelled", "too_few_players")


def test_a_schedule_no_tournament_can_have_is_skipped_and_refused_in_the_admin(client):
    from django.contrib.auth import get_user_model

    Schedule.objects.all().delete()
    Schedule.objects.create(name="Broken", time=time(18, 0), format="round_robin", table_size=3)
    Schedule.objects.create(name="Fine", time=time(19, 0), format="swiss", rounds=3)
    (created,) = services.schedules_extend(now=at(12))
    assert Tournament.objects.get(pk=created).name == "Fine"
    admin = get_user_model().objects.create_superuser("boss", "boss@example.com", "pw-12345-x")
    client.force_login(admin)
    response = client.post(
        "/admin/tournaments/schedule/add/",
        {
            "name": "Bad",
            "time": "18:00",
            "format": "round_robin",
            "table_size": 3,
            "mode": "ffa",
            "variant": "standard",
            "turn_seconds": 120,
            "max_players": 16,
            "min_players": 2,
            "active": "on",
        },
    )
    assert response.status_code == 200
    assert "A round robin is played at tables of 2." in response.content.decode()
    assert not Schedule.objects.filter(name="Bad").exists()


def test_the_admin_shows_tournaments_and_adds_them(client):
    from django.contrib.auth import get_user_model

    from tests.tournaments.factories import make_tournament

    tournament = make_tournament(players=2)
    admin = get_user_model().objects.create_superuser("boss", "boss@example.com", "pw-12345-x")
    client.force_login(admin)
    assert client.get("/admin/tournaments/tournament/").status_code == 200
    assert client.get(f"/admin/tournaments/tournament/{tournament.pk}/change/").status_code == 200
    assert client.get("/admin/tournaments/tournament/add/").status_code == 200
    assert client.get("/admin/tournaments/schedule/").status_code == 200

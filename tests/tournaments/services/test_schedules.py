"""Recurring schedules: the sweep creates each next tournament ahead of its start (an hour for an
hourly one, a day for the others), once; a fresh site has an hourly, a daily and a weekly one."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import pytest
from django.utils import timezone, translation

from tournaments import services
from tournaments.models import Schedule, Tournament

pytestmark = pytest.mark.django_db


def at(hour: int, minute: int = 0, day: int = 10) -> datetime:
    return datetime(2030, 6, day, hour, minute, tzinfo=UTC)


def test_a_fresh_site_has_hourly_daily_and_weekly_schedules():
    seeded = {s.name_key: s for s in Schedule.objects.filter(active=True)}
    assert set(seeded) == {"hourly_quick_swiss", "daily_swiss", "weekly_four"}
    hourly = seeded["hourly_quick_swiss"]
    assert (hourly.every, hourly.turn_seconds, hourly.format) == ("hourly", 60, "swiss")
    weekly = seeded["weekly_four"]
    assert (weekly.every, weekly.table_size) == ("weekly", 4)
    assert seeded["daily_swiss"].every == "daily"


@pytest.mark.parametrize("minute", [0, 1, 29, 59])
def test_at_any_time_a_tournament_starts_within_the_hour(minute):
    now = at(9, minute)
    services.schedules_extend(now=now)
    soon = Tournament.objects.filter(
        status="scheduled", starts_at__gt=now, starts_at__lte=now + timedelta(hours=1)
    )
    assert soon.filter(schedule__every="hourly").count() == 1
    # The hourly one is created once, an hour ahead at most: never a day of them.
    assert Tournament.objects.filter(schedule__every="hourly").count() == 1
    assert services.schedules_extend(now=now) == []


def test_the_hourly_schedule_follows_the_clock():
    Schedule.objects.exclude(every="hourly").delete()
    (first,) = services.schedules_extend(now=at(9, 30))
    assert Tournament.objects.get(pk=first).starts_at == at(10)
    assert services.schedules_extend(now=at(9, 59)) == []
    (second,) = services.schedules_extend(now=at(10, 0))
    assert Tournament.objects.get(pk=second).starts_at == at(11)


def test_a_weekly_schedule_creates_only_on_its_day():
    Schedule.objects.all().delete()
    Schedule.objects.create(
        name="Weekly",
        every="weekly",
        weekday=at(12).weekday(),
        time=time(20, 0),
        format="swiss",
        table_size=4,
        rounds=3,
    )
    assert services.schedules_extend(now=at(12, day=9)) == []  # the day before, 12:00: > 1 day
    (created,) = services.schedules_extend(now=at(21, day=9))
    assert Tournament.objects.get(pk=created).starts_at == at(20)
    assert services.schedules_extend(now=at(21)) == []  # next week's is 7 days away


def test_scheduled_names_are_shown_in_the_readers_language(client):
    Schedule.objects.exclude(every="hourly").delete()
    (created,) = services.schedules_extend(now=timezone.now())
    tournament = Tournament.objects.get(pk=created)
    assert (tournament.name, tournament.name_key) == ("Hourly quick Swiss", "hourly_quick_swiss")
    with translation.override("de"):
        assert tournament.display_name == "Schnelles Schweizer System, stündlich"
    pages = {
        "es": "Suizo rápido horario",
        "fr": "Suisse rapide horaire",
        "it": "Svizzero rapido orario",
        "en": "Hourly quick Swiss",
    }
    for language, name in pages.items():
        page = client.get("/tournaments/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
        assert name in page, language
        detail = client.get(f"/tournaments/{created}/", HTTP_ACCEPT_LANGUAGE=language)
        assert name in detail.content.decode(), language


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
    Schedule.objects.exclude(name_key="daily_swiss").delete()
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


def test_the_api_gives_the_name_in_the_requests_language(client):
    Schedule.objects.exclude(every="hourly").delete()
    (created,) = services.schedules_extend(now=timezone.now())
    body = client.get(f"/api/tournaments/{created}/", HTTP_ACCEPT_LANGUAGE="it").json()
    assert (body["name"], body["display_name"]) == (
        "Hourly quick Swiss",
        "Svizzero rapido orario",
    )


def test_a_scheduled_tournament_nobody_joined_is_not_listed_once_cancelled(client):
    Schedule.objects.exclude(every="hourly").delete()
    (created,) = services.schedules_extend(now=at(9, 30))
    services.tournament_start(tournament_id=created, now=at(10, 0))
    assert Tournament.objects.get(pk=created).cancel_reason == "too_few_players"
    page = client.get("/tournaments/").content.decode()
    assert f'href="/tournaments/{created}/"' not in page
    assert client.get(f"/tournaments/{created}/").status_code == 200

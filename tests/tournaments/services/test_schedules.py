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

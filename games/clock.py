"""Turn clocks that wait for the site: the heartbeat and the outages it reveals.

Every serving process beats (``core.heartbeat`` runs ``games.services.site_heartbeat``
every ``SIESTA_HEARTBEAT_SECONDS``) while the database and Redis answer: the beat is the time of
``SiteClock.beat_at``. A gap longer than ``SIESTA_OUTAGE_GAP_SECONDS`` between two beats is time
the site could not take a move (the database or Redis was down, or every process was stopped):
the first beat after it records a ``ClockOutage`` and moves every running turn's deadline on by
the gap, in one ``UPDATE`` (``record_beat``).

No turn is decided late while the site holds its clocks (``holds``): during an outage (the last
beat is older than the gap allows) and for ``SIESTA_OUTAGE_GRACE_SECONDS`` after one, the time
players need to reconnect. ``turn_is_late`` is the one decision of "this turn's time ran out".

With ``SIESTA_HEARTBEAT`` off, nothing beats and nothing holds (the clocks run as they are).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F

from games.models import ClockOutage, Game, SiteClock

CLOCK_ID = 1


def enabled() -> bool:
    return bool(getattr(settings, "SIESTA_HEARTBEAT", False))


def outage_gap() -> timedelta:
    """A gap between beats longer than this is an outage."""
    return timedelta(seconds=settings.SIESTA_OUTAGE_GAP_SECONDS)


def outage_grace() -> timedelta:
    """No turn is decided late this long after an outage ended."""
    return timedelta(seconds=settings.SIESTA_OUTAGE_GRACE_SECONDS)


def holds(now: datetime) -> bool:
    """Whether no turn may be decided late at ``now``: the site is in an outage (no beat for
    longer than the gap allows) or within the grace after one. One indexed read of one row."""
    if not enabled():
        return False
    row = SiteClock.objects.filter(pk=CLOCK_ID).values_list("beat_at", "outage_ended_at").first()
    if row is None:  # never beaten: no outage known
        return False
    beat_at, ended_at = row
    if now - beat_at > outage_gap():
        return True
    return ended_at is not None and now < ended_at + outage_grace()


def turn_is_late(game: Game, now: datetime) -> bool:
    """The one decision that the turn of ``game`` is late at ``now``: its deadline (already moved
    on by every outage recorded) has passed, and the site does not hold its clocks. A bot's seat
    has no deadline."""
    if game.status != Game.Status.ACTIVE or game.deadline is None or game.deadline >= now:
        return False
    return not holds(now)


@dataclass(frozen=True)
class Outage:
    started_at: datetime
    ended_at: datetime
    game_ids: list[int]


def record_beat(now: datetime) -> Outage | None:
    """Write the heartbeat at ``now``; when it ends a gap longer than the outage gap, record the
    outage and extend the running turns by it (deadlines that had not passed when it began), all
    in one transaction. Returns the outage recorded, if any.

    Cheap when another process beat a moment ago (one read), and safe with every process beating:
    the outage is recorded under the clock row's lock, by the first beat after it only."""
    beat_at = SiteClock.objects.filter(pk=CLOCK_ID).values_list("beat_at", flat=True).first()
    if beat_at is None:
        SiteClock.objects.get_or_create(pk=CLOCK_ID, defaults={"beat_at": now})
        return None
    interval = timedelta(seconds=settings.SIESTA_HEARTBEAT_SECONDS)
    if now - beat_at < interval / 2:
        return None
    if now - beat_at <= outage_gap():
        SiteClock.objects.filter(pk=CLOCK_ID, beat_at__lt=now).update(beat_at=now)
        return None
    with transaction.atomic():
        clock = SiteClock.objects.select_for_update().get(pk=CLOCK_ID)
        started = clock.beat_at
        if now - started <= outage_gap():  # another process recorded it first
            return None
        gap = now - started
        running = Game.objects.filter(
            status=Game.Status.ACTIVE, deadline__isnull=False, deadline__gte=started
        )
        game_ids = list(running.order_by().values_list("pk", flat=True))
        # Every change to a game raises its version (a move read before this one writes again).
        running.filter(pk__in=game_ids).update(
            deadline=F("deadline") + gap, version=F("version") + 1
        )
        ClockOutage.objects.create(started_at=started, ended_at=now, games=len(game_ids))
        clock.beat_at = now
        clock.outage_ended_at = now
        clock.save(update_fields=["beat_at", "outage_ended_at"])
    return Outage(started, now, game_ids)

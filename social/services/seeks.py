"""Quick pairing: a person's seek enters the pool, the matcher seats compatible seeks together
(bots fill a table for seeks that allow them, after a wait), and a seek is cancelled or expires.

Each service is one transaction; pushes go out on commit. Refusals raise the shared domain errors
(``core.errors``), so the API and the sockets answer them as they answer game errors.
"""

from __future__ import annotations

import logging
import random
from collections import defaultdict
from datetime import datetime, timedelta
from functools import partial
from typing import cast

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core.errors import Conflict, InvalidInput, LimitReached, NotFound, ServiceError
from games import services as game_services
from games.game_settings import GameSettings
from games.models import Game, Seat
from games.selectors import api_datetime
from games.state import BotLevel, GameMode, GameVariant
from ratings.elo import START_RATING
from social import realtime
from social.enqueue import enqueue_matcher
from social.models import Seek
from social.state import SeekFrame, SeekPayload, SeekStatus

logger = logging.getLogger(__name__)


SEEK_LIFETIME = timedelta(minutes=10)
"""A seek nobody matched in this time expires."""

BOT_FILL_AFTER = timedelta(seconds=30)
"""A seek that allows bots gets them after this wait."""

BOT_FILL_LEVEL = Seat.BotLevel.MEDIUM

RANGE_DOUBLES_AFTER = 30.0
"""Seconds of waiting that add the seek's rating range once more (x2 after 30 s, x3 after 60 s)."""

RATING_RANGES = (50, 1000)
"""The narrowest and widest rating range a seek may ask for."""


def seek_payload(seek: Seek) -> SeekPayload:
    """A seek as the API shows it to its owner (the casts name the values of the choices)."""
    return {
        "id": seek.pk,
        "status": cast(SeekStatus, seek.status),
        "game": seek.game_id,
        "players": seek.players,
        "mode": cast(GameMode, seek.mode),
        "variant": cast(GameVariant, seek.variant),
        "rated": seek.rated,
        "turn_seconds": seek.turn_seconds,
        "rating_range": seek.rating_range,
        "bot_fill": seek.bot_fill,
        "bot_level": cast(BotLevel, seek.bot_level),
        "created_at": api_datetime(seek.created_at),
        "expires_at": api_datetime(seek.expires_at),
    }


def user_rating(user_id: int, mode: str) -> float:
    """The person's rating in the mode's pool (1500 before their first counted game)."""
    from ratings.models import Rating

    found = Rating.objects.filter(user_id=user_id, pool=mode).values_list("rating", flat=True)
    return float(found.first() or START_RATING)


def seek_create(
    *,
    user: User,
    players: int = 2,
    mode: str = Game.Mode.FFA,
    variant: str = Game.Variant.STANDARD,
    rated: bool = True,
    turn_seconds: int = Game.DEFAULT_TURN_SECONDS,
    rating_range: int | None = None,
    bot_fill: bool = False,
    bot_level: str = BOT_FILL_LEVEL,
) -> Seek:
    """Enter the quick-pairing pool. One waiting seek per person (409 for a second one). A seek
    that allows bots counts against the bot games limit as a game with bots does (409 at it)."""
    GameSettings(players, mode, variant, turn_seconds).check()
    if bot_level not in Seat.BotLevel.values:
        raise InvalidInput(_("Unknown bot level: %(level)s.") % {"level": bot_level})
    if bot_fill:
        game_services.bot_games_limit_check(user)
    low, high = RATING_RANGES
    if rating_range is not None and not low <= rating_range <= high:
        raise InvalidInput(
            _("The rating range must be between %(low)s and %(high)s.") % {"low": low, "high": high}
        )
    now = timezone.now()
    try:
        with transaction.atomic():
            seek = Seek.objects.create(
                user=user,
                players=players,
                mode=mode,
                variant=variant,
                rated=rated,
                turn_seconds=turn_seconds,
                rating=user_rating(user.pk, mode),
                rating_range=rating_range,
                bot_fill=bot_fill,
                bot_level=bot_level,
                expires_at=now + SEEK_LIFETIME,
            )
            transaction.on_commit(_enqueue_matcher)
    except IntegrityError:
        raise Conflict(_("You are already looking for a game: cancel that first.")) from None
    return seek


def _enqueue_matcher() -> None:
    """The triggered sweep: a new seek is matched at once when it can be."""
    try:
        enqueue_matcher()
    except Exception:  # the broker is away: the periodic sweep will match it
        logger.exception("could not enqueue the seek matcher")


def seek_get(*, seek_id: int, user: User) -> Seek:
    """The caller's own seek (others' are not shown: 404)."""
    seek = Seek.objects.filter(pk=seek_id, user_id=user.pk).first()
    if seek is None:
        raise NotFound(_("There is no seek %(id)s of yours.") % {"id": seek_id})
    return seek


def seek_current(*, user: User) -> Seek | None:
    return Seek.objects.filter(user_id=user.pk, status=Seek.Status.WAITING).first()


def seek_cancel(*, seek_id: int, user: User) -> Seek:
    """Leave the pool. A seek already matched stays matched (409 with its game)."""
    with transaction.atomic():
        seek = Seek.objects.select_for_update().filter(pk=seek_id, user_id=user.pk).first()
        if seek is None:
            raise NotFound(_("There is no seek %(id)s of yours.") % {"id": seek_id})
        if seek.status == Seek.Status.MATCHED:
            raise Conflict(
                _("This seek was already matched: your game is %(game)s.") % {"game": seek.game_id}
            )
        if seek.status == Seek.Status.WAITING:
            seek.status = Seek.Status.CANCELLED
            seek.closed_at = timezone.now()
            seek.save(update_fields=["status", "closed_at"])
            _push_seek_on_commit(seek)
    return seek


def _push_seek_on_commit(seek: Seek) -> None:
    frame: SeekFrame = {"type": "seek", "seek": seek_payload(seek)}
    transaction.on_commit(partial(realtime.to_user, seek.user_id, frame))


def effective_range(seek: Seek, now: datetime) -> float:
    """The rating difference the seek accepts now: its range, widened as it waits."""
    if seek.rating_range is None:
        return float("inf")
    waited = max(0.0, (now - seek.created_at).total_seconds())
    return seek.rating_range * (1 + waited / RANGE_DOUBLES_AFTER)


def seeks_compatible(a: Seek, b: Seek, now: datetime) -> bool:
    """Two seeks can share a table: same settings, each rating inside the other's range."""
    if a.user_id == b.user_id:
        return False
    if _settings_key(a) != _settings_key(b):
        return False
    difference = abs(a.rating - b.rating)
    return difference <= effective_range(a, now) and difference <= effective_range(b, now)


def _settings_key(seek: Seek) -> tuple[int, str, str, bool, int]:
    return (seek.players, seek.mode, seek.variant, seek.rated, seek.turn_seconds)


def seeks_match(*, now: datetime | None = None) -> list[int]:
    """One sweep of the matcher: expire old seeks, seat compatible ones together, give bots to
    seeks that allowed them and waited long enough. Returns the ids of the games created.

    Safe with several workers: the waiting seeks are locked with ``SKIP LOCKED``, so two sweeps
    at once see disjoint seeks and no seek is seated twice."""
    now = now or timezone.now()
    created: list[int] = []
    with transaction.atomic():
        seeks = list(
            Seek.objects.select_for_update(skip_locked=True)
            .select_related("user")
            .filter(status=Seek.Status.WAITING)
            .order_by("created_at", "id")
        )
        pools: dict[tuple[int, str, str, bool, int], list[Seek]] = defaultdict(list)
        for seek in seeks:
            if seek.expires_at <= now:
                _close_seek(seek, Seek.Status.EXPIRED, now)
            else:
                pools[_settings_key(seek)].append(seek)
        for pool in pools.values():
            created.extend(_match_pool(pool, now))
    return created


def _match_pool(pool: list[Seek], now: datetime) -> list[int]:
    """Tables for one settings pool, oldest seek first."""
    created = []
    waiting = list(pool)
    players = waiting[0].players if waiting else 0
    while waiting:
        first = waiting[0]
        table = [first]
        for other in waiting[1:]:
            if len(table) == players:
                break
            if all(seeks_compatible(seated, other, now) for seated in table):
                table.append(other)
        bots = 0
        if len(table) < players:
            waited = now - first.created_at >= BOT_FILL_AFTER
            if not (first.bot_fill and waited and _may_play_bots(first)):
                waiting.pop(0)  # it waits for people
                continue
            table = [s for s in table if s is first or (s.bot_fill and _may_play_bots(s))]
            bots = players - len(table)
        game_id = _seat_table(table, bots, now)
        if game_id is not None:
            created.append(game_id)
        waiting = [s for s in waiting if s not in table]
    return created


def _may_play_bots(seek: Seek) -> bool:
    """Whether the seek's person may start one more game with bots (the games' one rule)."""
    try:
        game_services.bot_games_limit_check(seek.user)
    except LimitReached:
        return False
    return True


def _seat_table(table: list[Seek], bots: int, now: datetime) -> int | None:
    takers: list[User | str] = [s.user for s in table]
    takers += [str(table[0].bot_level or BOT_FILL_LEVEL)] * bots
    random.SystemRandom().shuffle(takers)
    first = table[0]
    try:
        game = game_services.game_create_seated(
            users=takers,
            mode=first.mode,
            variant=first.variant,
            rated=first.rated,
            turn_seconds=first.turn_seconds,
        )
    except LimitReached:  # a person reached the bot limit since: they wait
        logger.info("seeks %s not seated: a bot games limit", [s.pk for s in table])
        return None
    except ServiceError:
        logger.exception("could not seat seeks %s", [s.pk for s in table])
        return None
    for seek in table:
        seek.game = game
        _close_seek(seek, Seek.Status.MATCHED, now)
    return game.pk


def _close_seek(seek: Seek, status: str, now: datetime) -> None:
    seek.status = status
    seek.closed_at = now
    seek.save(update_fields=["status", "closed_at", "game"])
    _push_seek_on_commit(seek)

"""Challenges: one person invites another to a two-player game; the challenged person accepts
(the game starts) or declines, the challenger withdraws, and a challenge left open expires."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from functools import partial
from typing import cast

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from core.errors import Conflict, InvalidInput, NotAllowed, NotFound
from games import services as game_services
from games.game_settings import GameSettings
from games.models import Game, Seat
from games.selectors import api_datetime
from games.state import GameVariant
from social import realtime
from social.models import Challenge, Notification
from social.services.notices import notify
from social.state import ChallengeFrame, ChallengePayload, ChallengeStatus

CHALLENGE_LIFETIME = timedelta(days=3)


def challenge_payload(challenge: Challenge) -> ChallengePayload:
    return {
        "id": challenge.pk,
        "from": challenge.challenger.get_username(),
        "to": challenge.challenged.get_username(),
        "variant": cast(GameVariant, challenge.variant),
        "rated": challenge.rated,
        "turn_seconds": challenge.turn_seconds,
        "status": cast(ChallengeStatus, challenge.status),
        "game": challenge.game_id,
        "created_at": api_datetime(challenge.created_at),
    }


def challenge_create(
    *,
    challenger: User,
    username: str,
    variant: str = Game.Variant.STANDARD,
    rated: bool = True,
    turn_seconds: int = Game.DEFAULT_TURN_SECONDS,
) -> Challenge:
    """Invite ``username`` to a two-player game. They see it live, and on their next visit."""
    GameSettings(2, Game.Mode.FFA, variant, turn_seconds).check()
    target = get_user_model().objects.filter(username=username, is_active=True).first()
    if target is None:
        raise NotFound(_("There is no player %(name)s.") % {"name": username})
    if target.pk == challenger.pk:
        raise InvalidInput(_("You cannot challenge yourself."))
    try:
        with transaction.atomic():
            challenge = Challenge.objects.create(
                challenger=challenger,
                challenged=target,
                variant=variant,
                rated=rated,
                turn_seconds=turn_seconds,
            )
            frame: ChallengeFrame = {"type": "challenge", "challenge": challenge_payload(challenge)}
            transaction.on_commit(partial(realtime.to_user, target.pk, frame))
            notify(
                user_id=target.pk,
                kind=Notification.Kind.CHALLENGE,
                params={"from": challenger.get_username(), "challenge": challenge.pk},
                url=f"/users/{challenger.get_username()}/",
                key=f"challenge:{challenge.pk}",
            )
    except IntegrityError:
        raise Conflict(_("You have already challenged %(name)s.") % {"name": username}) from None
    return challenge


def challenge_bot(
    *,
    challenger: User,
    level: str,
    variant: str = Game.Variant.STANDARD,
    turn_seconds: int = Game.DEFAULT_TURN_SECONDS,
) -> Game:
    """Challenge a bot to a two-player game: nobody has to answer (bots always accept), so the
    game starts at once, seats drawn at random as for any challenge. Casual: bots have no rating
    and change nobody's (RULES.md, "Hints, ratings"); the game counts towards the bot level's
    performance against people (``ratings.selectors.bot_performances``)."""
    GameSettings(2, Game.Mode.FFA, variant, turn_seconds).check()
    if level not in Seat.BotLevel.values:
        raise InvalidInput(_("Unknown bot level %(level)s.") % {"level": level})
    takers: list[User | str] = [challenger, level]
    random.SystemRandom().shuffle(takers)
    return game_services.game_create_seated(
        users=takers,
        variant=variant,
        rated=False,
        turn_seconds=turn_seconds,
        created_by=challenger,
    )


def _lock_challenge(challenge_id: int, user: User, *, side: str) -> Challenge:
    """The pending challenge, locked, if ``user`` is its ``challenger`` or ``challenged``."""
    challenge = (
        Challenge.objects.select_for_update()
        .filter(pk=challenge_id)
        .filter(_involving(user))
        .first()
    )
    if challenge is None:
        raise NotFound(_("There is no challenge %(id)s for you.") % {"id": challenge_id})
    if challenge.status != Challenge.Status.PENDING:
        raise Conflict(
            _("This challenge is no longer open (%(status)s).")
            % {"status": challenge.get_status_display()}
        )
    if getattr(challenge, f"{side}_id") != user.pk:
        raise NotAllowed(
            _("Only the challenger can withdraw a challenge.")
            if side == "challenger"
            else _("Only the challenged player can answer.")
        )
    return challenge


def _involving(user: User) -> Q:
    return Q(challenger_id=user.pk) | Q(challenged_id=user.pk)


def _answer(challenge: Challenge, status: str) -> None:
    challenge.status = status
    challenge.answered_at = timezone.now()
    challenge.save(update_fields=["status", "answered_at", "game"])
    frame: ChallengeFrame = {"type": "challenge", "challenge": challenge_payload(challenge)}
    for user_id in (challenge.challenger_id, challenge.challenged_id):
        transaction.on_commit(partial(realtime.to_user, user_id, frame))
    Notification.objects.filter(key=f"challenge:{challenge.pk}", read_at=None).update(
        read_at=timezone.now()
    )
    if status in (Challenge.Status.ACCEPTED, Challenge.Status.DECLINED):
        accepted = status == Challenge.Status.ACCEPTED
        by = challenge.challenged.get_username()
        notify(
            user_id=challenge.challenger_id,
            kind=Notification.Kind.CHALLENGE_ANSWER,
            params={"by": by, "accepted": accepted, "game": challenge.game_id},
            url=f"/games/{challenge.game_id}/" if accepted else f"/users/{by}/",
        )


def challenge_accept(*, challenge_id: int, user: User) -> Challenge:
    """The challenged person accepts: the game starts (seats at random) for both."""
    with transaction.atomic():
        challenge = _lock_challenge(challenge_id, user, side="challenged")
        takers: list[User | str] = [challenge.challenger, challenge.challenged]
        random.SystemRandom().shuffle(takers)
        challenge.game = game_services.game_create_seated(
            users=takers,
            variant=challenge.variant,
            rated=challenge.rated,
            turn_seconds=challenge.turn_seconds,
            created_by=challenge.challenger,
        )
        _answer(challenge, Challenge.Status.ACCEPTED)
    return challenge


def challenge_decline(*, challenge_id: int, user: User) -> Challenge:
    with transaction.atomic():
        challenge = _lock_challenge(challenge_id, user, side="challenged")
        _answer(challenge, Challenge.Status.DECLINED)
    return challenge


def challenge_cancel(*, challenge_id: int, user: User) -> Challenge:
    with transaction.atomic():
        challenge = _lock_challenge(challenge_id, user, side="challenger")
        _answer(challenge, Challenge.Status.CANCELLED)
    return challenge


def challenges_open(*, user: User) -> list[Challenge]:
    """Pending challenges the person sent or received, newest first."""
    return list(
        Challenge.objects.filter(_involving(user), status=Challenge.Status.PENDING).select_related(
            "challenger", "challenged"
        )
    )


def challenges_expire(*, now: datetime | None = None) -> int:
    now = now or timezone.now()
    with transaction.atomic():
        stale = list(
            Challenge.objects.select_for_update(skip_locked=True)
            .select_related("challenger", "challenged")
            .filter(status=Challenge.Status.PENDING, created_at__lt=now - CHALLENGE_LIFETIME)
        )
        for challenge in stale:
            _answer(challenge, Challenge.Status.EXPIRED)
    return len(stale)

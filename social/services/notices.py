"""Notices: a person's list of what happened (their turn in a slow game, a challenge and its
answer, a tournament round), pushed to their open pages and, if they asked for it, e-mailed;
and the ``tournament_game`` push of a round just paired."""

from __future__ import annotations

import logging
from functools import partial
from typing import Any, cast

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from games.selectors import api_datetime
from games.state import GameState
from social import addresses, realtime
from social.enqueue import enqueue_email
from social.models import Notification
from social.services.preferences import preferences_of
from social.state import (
    NotificationFrame,
    NotificationKind,
    NotificationPayload,
    TournamentGameFrame,
)
from tournaments import selectors as tournament_selectors
from tournaments.models import tournament_display_name

logger = logging.getLogger(__name__)


SLOW_TURN_SECONDS = 24 * 3600
"""Games with turns of a day or more are slow: a person gets a notice when it is their turn."""


def notification_text(kind: str, params: dict[str, Any]) -> str:
    """The words of a notice, in the active language."""
    if kind == Notification.Kind.YOUR_TURN:
        return _("Your turn in game %(game)s.") % {"game": params.get("game")}
    if kind == Notification.Kind.CHALLENGE:
        return _("Challenge from %(name)s.") % {"name": params.get("from")}
    if kind == Notification.Kind.CHALLENGE_ANSWER:
        if params.get("accepted"):
            return _("%(name)s accepted your challenge: game %(game)s.") % {
                "name": params.get("by"),
                "game": params.get("game"),
            }
        return _("%(name)s declined your challenge.") % {"name": params.get("by")}
    if kind == Notification.Kind.TOURNAMENT_ROUND and params.get("arena"):
        return _("%(tournament)s: your next game starts.") % {
            "tournament": tournament_display_name(
                str(params.get("tournament") or ""), str(params.get("tournament_key") or "")
            )
        }
    if kind == Notification.Kind.TOURNAMENT_ROUND:
        return _("%(tournament)s: round %(round)s starts.") % {
            "tournament": tournament_display_name(
                str(params.get("tournament") or ""), str(params.get("tournament_key") or "")
            ),
            "round": params.get("round"),
        }
    if kind == Notification.Kind.TOURNAMENT_WITHDRAWN:
        text = _("%(tournament)s: you were withdrawn for missing two games in a row.") % {
            "tournament": params.get("tournament")
        }
        if params.get("rejoin"):
            text += " " + _("You can rejoin on the tournament's page.")
        return text
    return str(kind)


def tournament_round_notices(
    *,
    tournament_id: int,
    name: str,
    round_number: int,
    seats: list[tuple[int, int | None]],
    name_key: str = "",
    arena: bool = False,
) -> None:
    """ "<tournament>: round n starts." for every player of a round just paired (once each); in
    an arena, where a round is a pairing wave, "<tournament>: your next game starts." The notice
    keeps the stored name and the translated name's key: its text, on the site and in its e-mail,
    names the tournament in the reader's language."""
    for user_id, game_id in seats:
        url = (
            reverse("game", args=[game_id])
            if game_id
            else reverse("tournament", args=[tournament_id])
        )
        notify(
            user_id=user_id,
            kind=Notification.Kind.TOURNAMENT_ROUND,
            params={
                "tournament": name,
                "tournament_key": name_key,
                "round": round_number,
                "game": game_id,
                "arena": arena,
            },
            url=url,
            key=f"tournament:{tournament_id}:round:{round_number}:user:{user_id}",
        )


def tournament_withdrawn_notice(
    *, tournament_id: int, name: str, user_id: int, round_number: int, can_rejoin: bool
) -> None:
    """ "<tournament>: you were withdrawn for missing two games in a row." (once per round),
    linking to the tournament's page, where the player can rejoin if the tournament allows it."""
    notify(
        user_id=user_id,
        kind=Notification.Kind.TOURNAMENT_WITHDRAWN,
        params={"tournament": name, "round": round_number, "rejoin": can_rejoin},
        url=reverse("tournament", args=[tournament_id]),
        key=f"tournament:{tournament_id}:withdrawn:{round_number}:user:{user_id}",
    )


def tournament_games_push(*, tournament_id: int, seats: list[tuple[int, int | None]]) -> int:
    """A ``tournament_game`` frame to every open page of each player of a round just paired:
    their game, opponents and the first turn's clock. Returns how many were pushed."""
    pushed = 0
    for user_id, game_id in seats:
        if game_id is None:
            continue  # a bye: the notice links to the tournament
        state = tournament_selectors.tournament_game_of(user_id, tournament_id=tournament_id)
        if state is None or state["game"] != game_id:
            continue  # that game is over already
        frame: TournamentGameFrame = {"type": "tournament_game", **state}
        realtime.to_user(user_id, frame)
        pushed += 1
    return pushed


def notification_payload(notification: Notification) -> NotificationPayload:
    return {
        "id": notification.pk,
        "kind": cast(NotificationKind, notification.kind),
        "params": notification.params,
        "text": notification_text(notification.kind, notification.params),
        "url": notification.url,
        "read": notification.read_at is not None,
        "at": api_datetime(notification.created_at),
    }


EMAIL_KINDS: dict[str, str] = {
    Notification.Kind.YOUR_TURN: "email_turns",
    Notification.Kind.CHALLENGE: "email_challenges",
}
"""Notices that may also go out by e-mail, with the preference that turns them on."""


def notify(
    *, user_id: int, kind: str, params: dict[str, Any], url: str = "", key: str = ""
) -> Notification | None:
    """Add a notice to a person's list (once per ``key``), push it to their open pages and, if
    they asked for it, e-mail it, after the commit. Returns None for a repeated key."""
    try:
        with transaction.atomic():
            notification = Notification.objects.create(
                user_id=user_id, kind=kind, params=params, url=url, key=key
            )
    except IntegrityError:
        return None
    transaction.on_commit(partial(_push_notification, notification.pk))
    preference = EMAIL_KINDS.get(kind)
    preferences = preferences_of(user_id)
    if preference and getattr(preferences, preference):
        address = get_user_model().objects.filter(pk=user_id).values_list("email", flat=True)
        if addresses.address_confirmed(address.first() or "", preferences.email_confirmed):
            transaction.on_commit(partial(_enqueue_email, notification.pk))
    return notification


def _push_notification(notification_id: int) -> None:
    notification = Notification.objects.filter(pk=notification_id).first()
    if notification is None:
        return
    frame: NotificationFrame = {
        "type": "notification",
        "notification": notification_payload(notification),
        "unread": unread_count(notification.user_id),
    }
    realtime.to_user(notification.user_id, frame)


def _enqueue_email(notification_id: int) -> None:
    try:
        enqueue_email(notification_id)
    except Exception:
        logger.exception("could not enqueue the e-mail of notification %s", notification_id)


def unread_count(user_id: int) -> int:
    return Notification.objects.filter(user_id=user_id, read_at=None).count()


def notifications_mark_read(*, user: User, ids: list[int] | None = None) -> int:
    unread = Notification.objects.filter(user_id=user.pk, read_at=None)
    if ids is not None:
        unread = unread.filter(pk__in=ids)
    return unread.update(read_at=timezone.now())


def turn_notices_update(state: GameState) -> Notification | None:
    """After a change to a slow game: a notice for the person whose turn it now is; earlier turn
    notices of that game are read (the turn has passed)."""
    if state["turn_seconds"] < SLOW_TURN_SECONDS:
        return None
    game_id = state["id"]
    current = ""
    seat = None
    if state["status"] == "active" and state["to_move"]:
        seat = state["seats"][state["to_move"] - 1]
        current = f"turn:{game_id}:{state['ply']}"
    stale = Notification.objects.filter(
        kind=Notification.Kind.YOUR_TURN, read_at=None, key__startswith=f"turn:{game_id}:"
    )
    stale.exclude(key=current).update(read_at=timezone.now())
    if seat is None or not seat["username"] or seat["bot"] or seat["resigned"]:
        return None
    user = get_user_model().objects.filter(username=seat["username"]).first()
    if user is None:
        return None
    with transaction.atomic():
        return notify(
            user_id=user.pk,
            kind=Notification.Kind.YOUR_TURN,
            params={"game": game_id},
            url=f"/games/{game_id}/",
            key=current,
        )


def notifications_latest(*, user: User, limit: int = 30) -> list[Notification]:
    return list(Notification.objects.filter(user_id=user.pk)[:limit])

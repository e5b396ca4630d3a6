"""Every write of the social app: seeks and the matcher, rematches, chat, challenges,
notifications and preferences.

Each service is one transaction; pushes (to a person's pages or a game's watchers) and e-mails go
out on commit. Refusals raise the shared domain errors (``InvalidInput``, ``NotAllowed``,
``NotFound``, ``Conflict``: ``siesta_site.errors``), so the API and the sockets answer them as
they answer game errors.
"""

from __future__ import annotations

import logging
import random
from collections import defaultdict
from datetime import datetime, timedelta
from functools import partial
from typing import Any, cast

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games import services as game_services
from games.game_settings import GameSettings
from games.models import Game, Seat
from games.selectors import api_datetime, game_or_not_found
from games.state import BotLevel, GameMode, GameState, GameVariant
from ratings.elo import START_RATING
from siesta_site import throttling
from siesta_site.errors import (
    Conflict,
    InvalidInput,
    LimitReached,
    NotAllowed,
    NotFound,
    ServiceError,
)
from social import addresses, realtime
from social.enqueue import enqueue_confirmation, enqueue_email, enqueue_matcher
from social.models import (
    Challenge,
    ChatMessage,
    Notification,
    Preferences,
    Rematch,
    RematchRequest,
    Seek,
)
from social.state import (
    ChallengeFrame,
    ChallengePayload,
    ChallengeStatus,
    ChatLine,
    ChatMessageEvent,
    ChatRemovedEvent,
    ChatRoom,
    GameRematchEvent,
    NotificationFrame,
    NotificationKind,
    NotificationPayload,
    RematchOfferEvent,
    RematchStatus,
    SeekFrame,
    SeekPayload,
    SeekStatus,
    TournamentGameFrame,
)
from tournaments import selectors as tournament_selectors
from tournaments.models import Tournament

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

CHAT_RATE = (5, timedelta(seconds=10))
"""At most this many chat lines per person and game in this window."""

CHALLENGE_LIFETIME = timedelta(days=3)

SLOW_TURN_SECONDS = 24 * 3600
"""Games with turns of a day or more are slow: a person gets a notice when it is their turn."""


CHAT_PRESETS: dict[str, Any] = {
    "hello": gettext_lazy("Hello!"),
    "good_luck": gettext_lazy("Good luck!"),
    "gg": gettext_lazy("Good game"),
    "wp": gettext_lazy("Well played"),
    "thanks": gettext_lazy("Thanks"),
}
"""Quick messages: stored by key and shown in each reader's language."""


def _now() -> datetime:
    return timezone.now()


# -- seeks ---------------------------------------------------------------------------------------


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
    now = _now()
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
            seek.closed_at = _now()
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
    now = now or _now()
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


# -- rematch -------------------------------------------------------------------------------------


def _persons(seats: list[Seat]) -> list[Seat]:
    return [s for s in seats if s.user_id is not None and not s.bot_level]


def rematch_status(*, game_id: int) -> RematchStatus:
    """``{"game": the rematch's id or null, "asked": [usernames], "waiting_for": [usernames]}``."""
    seats = list(Seat.objects.select_related("user").filter(game_id=game_id).order_by("seat"))
    rematch = Rematch.objects.filter(game_id=game_id).first()
    asked = set(RematchRequest.objects.filter(game_id=game_id).values_list("user_id", flat=True))
    persons = _persons(seats)
    return {
        "game": rematch.new_game_id if rematch else None,
        "asked": [s.user.get_username() for s in persons if s.user_id in asked and s.user],
        "waiting_for": (
            []
            if rematch
            else [s.user.get_username() for s in persons if s.user_id not in asked and s.user]
        ),
    }


def rematch_ask(*, game_id: int, user: User) -> RematchStatus:
    """A person of a finished game asks to play again. When every person has asked (bots always
    accept), the new game starts with the same players, bots and settings, seats rotated by
    one, and the old game's watchers get ``{"type": "rematch", "game": id}``."""
    with transaction.atomic():
        game = game_or_not_found(game_id, games=Game.objects.select_for_update())
        seats = list(Seat.objects.select_related("user").filter(game=game).order_by("seat"))
        if not any(s.user_id == user.pk for s in _persons(seats)):
            raise NotAllowed(_("Only the players of a game can ask for a rematch."))
        if game.status != Game.Status.FINISHED:
            raise Conflict(_("A rematch can be asked for once the game is over."))
        RematchRequest.objects.get_or_create(game=game, user=user)
        status = rematch_status(game_id=game_id)
        if status["game"] is None and not status["waiting_for"]:
            # Seat n goes to seat n + 1, the last seat to seat 1.
            takers: list[User | str] = [s.user if s.user else s.bot_level for s in seats]
            takers = takers[-1:] + takers[:-1]
            new_game = game_services.game_create_seated(
                users=takers,
                mode=game.mode,
                variant=game.variant,
                rated=game.rated,
                turn_seconds=game.turn_seconds,
                created_by=user,
            )
            Rematch.objects.create(game=game, new_game=new_game)
            status = rematch_status(game_id=game_id)
            rematch: GameRematchEvent = {"type": "game.rematch", "game": new_game.pk}
            transaction.on_commit(partial(realtime.to_game, game_id, rematch))
        else:
            offer: RematchOfferEvent = {
                "type": "rematch.offer",
                "asked": status["asked"],
                "waiting_for": status["waiting_for"],
            }
            transaction.on_commit(partial(realtime.to_game, game_id, offer))
    return status


# -- chat ----------------------------------------------------------------------------------------


def chat_payload(message: ChatMessage) -> ChatLine:
    """A chat line as the socket sends it (``text`` of a preset is replaced per reader)."""
    return {
        "type": "chat",
        "id": message.pk,
        "username": message.user.get_username(),
        "text": message.text,
        "preset": message.preset or None,
        "room": cast(ChatRoom, message.room),
        "at": api_datetime(message.created_at),
    }


def chat_room_of(status: str, usernames: list[str | None], username: str | None) -> ChatRoom:
    """The room a person writes to and reads: players and spectators apart during play."""
    if status == Game.Status.FINISHED:
        room = ChatMessage.Room.AFTER
    elif username is not None and username in usernames:
        room = ChatMessage.Room.PLAYERS
    else:
        room = ChatMessage.Room.SPECTATORS
    return cast(ChatRoom, room)


def chat_visible(room: str, reader_room: str) -> bool:
    """Whether a reader in ``reader_room`` sees a line written to ``room``. After the end
    (reader room ``after``) every line shows; lines written after the end show to everyone."""
    return reader_room == ChatMessage.Room.AFTER or room in (reader_room, ChatMessage.Room.AFTER)


def _chat_text(user: User | None, text: str | None, preset: str) -> str:
    """The rules of every chat: signed in, a known preset or 1-300 characters."""
    if user is None or not user.is_authenticated:
        raise NotAllowed(_("Sign in to chat."))
    if preset:
        if preset not in CHAT_PRESETS:
            raise InvalidInput(_("Unknown quick message %(preset)s.") % {"preset": preset})
        text = str(CHAT_PRESETS[preset])
    text = (text or "").strip()
    if not 1 <= len(text) <= ChatMessage.MAX_LENGTH:
        raise InvalidInput(
            _("A chat message has 1 to %(limit)s characters.") % {"limit": ChatMessage.MAX_LENGTH}
        )
    if "\x00" in text:  # PostgreSQL text cannot hold it
        raise InvalidInput(_("A chat message cannot hold a NUL character."))
    return text


def _chat_write(
    *,
    user: User,
    text: str,
    preset: str,
    room: str,
    game: Game | None = None,
    tournament_id: int | None = None,
) -> ChatMessage:
    """Store a line under the rate limit (per person and chat) and push it after the commit."""
    limit, window = CHAT_RATE
    where: dict[str, Any] = {"game": game} if game is not None else {"tournament_id": tournament_id}
    with transaction.atomic():
        recent = ChatMessage.objects.filter(
            **where, user_id=user.pk, created_at__gte=_now() - window
        ).count()
        if recent >= limit:
            raise Conflict(_("You are sending messages too fast: wait a few seconds."))
        message = ChatMessage.objects.create(
            **where, user=user, room=room, text=text, preset=preset
        )
        event: ChatMessageEvent = {"type": "chat.message", "message": chat_payload(message)}
        transaction.on_commit(partial(_chat_push, message.game_id, message.tournament_id, event))
    return message


def _chat_push(
    game_id: int | None, tournament_id: int | None, event: ChatMessageEvent | ChatRemovedEvent
) -> None:
    if game_id is not None:
        realtime.to_game(game_id, event)
    elif tournament_id is not None:
        realtime.to_tournament(tournament_id, event)


def chat_post(
    *, game_id: int, user: User | None, text: str | None = None, preset: str = ""
) -> ChatMessage:
    """Write a chat line (1-300 characters, or a preset) to the writer's room."""
    text = _chat_text(user, text, preset)
    assert user is not None
    game = game_or_not_found(game_id, games=Game.objects.all())
    usernames: list[str | None] = list(
        Seat.objects.filter(game=game, user__isnull=False).values_list("user__username", flat=True)
    )
    room = chat_room_of(game.status, usernames, user.get_username())
    return _chat_write(user=user, text=text, preset=preset, room=room, game=game)


def tournament_chat_post(
    *, tournament_id: int, user: User | None, text: str | None = None, preset: str = ""
) -> ChatMessage:
    """Write a line to a tournament's chat: one room, the rules of the games' chat."""
    text = _chat_text(user, text, preset)
    assert user is not None
    if not Tournament.objects.filter(pk=tournament_id).exists():
        raise NotFound(_("There is no tournament %(id)s.") % {"id": tournament_id})
    return _chat_write(
        user=user,
        text=text,
        preset=preset,
        room=ChatMessage.Room.TOURNAMENT,
        tournament_id=tournament_id,
    )


def chat_history(*, game_id: int, reader_room: str) -> list[ChatLine]:
    messages = ChatMessage.objects.filter(game_id=game_id, removed=False).select_related("user")
    return [chat_payload(m) for m in messages if chat_visible(m.room, reader_room)]


TOURNAMENT_CHAT_HISTORY = 100
"""Lines of a tournament's chat a page gets when it opens (the latest)."""


def tournament_chat_history(*, tournament_id: int) -> list[ChatLine]:
    messages = ChatMessage.objects.filter(tournament_id=tournament_id, removed=False)
    latest = messages.select_related("user").order_by("-created_at", "-id")
    return [chat_payload(m) for m in reversed(latest[:TOURNAMENT_CHAT_HISTORY])]


def chat_remove(*, message_ids: list[int]) -> int:
    """Staff remove chat lines (the admin action): hidden from everyone, gone from open pages."""
    with transaction.atomic():
        messages = list(ChatMessage.objects.filter(pk__in=message_ids, removed=False))
        for message in messages:
            message.removed = True
            message.save(update_fields=["removed"])
            removed: ChatRemovedEvent = {"type": "chat.removed", "id": message.pk}
            push = partial(_chat_push, message.game_id, message.tournament_id, removed)
            transaction.on_commit(push)
    return len(messages)


def preferences_of(user_id: int) -> Preferences:
    return Preferences.objects.filter(user_id=user_id).first() or Preferences(user_id=user_id)


def preferences_update(*, user: User, **changes: Any) -> Preferences:
    with transaction.atomic():
        preferences, _created = Preferences.objects.select_for_update().get_or_create(user=user)
        for name, value in changes.items():
            setattr(preferences, name, value)
        preferences.save()
    return preferences


# -- the e-mail address ----------------------------------------------------------------------------


def email_is_confirmed(user: User) -> bool:
    """Whether notices may be mailed to the user's address: it is the one they confirmed."""
    return addresses.address_confirmed(user.email, preferences_of(user.pk).email_confirmed)


def email_address_set(*, user: User, email: str) -> tuple[bool, float | None]:
    """Set the user's address. A new one is unconfirmed until the link mailed to it is followed
    (sent after the commit). Returns whether the link was sent, and the seconds to wait when it
    could not be sent now (too many asked for)."""
    if email == user.email:
        return False, None
    with transaction.atomic():
        user.email = email
        user.save(update_fields=["email"])
    return email_confirmation_send(user=user)


def email_confirmation_send(*, user: User) -> tuple[bool, float | None]:
    """Mail the link that confirms the user's address (again), throttled per person and per
    address. Returns whether it is sent, and the seconds to wait when refused."""
    if not user.email or email_is_confirmed(user):
        return False, None
    wait = throttling.EMAIL_CONFIRM.hit(str(user.pk)) or throttling.MAIL_ADDRESS.hit(
        throttling.email_ident(user.email)
    )
    if wait is not None:
        return False, wait
    transaction.on_commit(partial(_enqueue_confirmation, user.pk, user.email))
    return True, None


def _enqueue_confirmation(user_id: int, address: str) -> None:
    try:
        enqueue_confirmation(user_id, address)
    except Exception:
        logger.exception("could not enqueue the confirmation e-mail of user %s", user_id)


def email_confirmation_mail(*, user_id: int, address: str) -> bool:
    """The task's work: mail the link, if ``address`` is still the user's, unconfirmed."""
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None or user.email != address or email_is_confirmed(user):
        return False
    return addresses.confirmation_email_send(user, preferences_of(user.pk).language)


def email_confirmation_user(*, token: str) -> User:
    """The person a confirmation link is for, while the address it names is still theirs
    (404 for a bad, expired or outdated link)."""
    found = addresses.confirm_token_read(token)
    user = None
    if found is not None:
        user_id, address = found
        user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
        if user is not None and throttling.email_ident(user.email) != address:
            user = None
    if user is None:
        raise NotFound(_("This confirmation link is not valid or has expired."))
    return user


def email_address_confirm(*, token: str) -> User:
    """Follow a confirmation link: the address it names becomes the user's confirmed one."""
    user = email_confirmation_user(token=token)
    preferences_update(user=user, email_confirmed=user.email)
    return user


# -- challenges ----------------------------------------------------------------------------------


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
    challenge.answered_at = _now()
    challenge.save(update_fields=["status", "answered_at", "game"])
    frame: ChallengeFrame = {"type": "challenge", "challenge": challenge_payload(challenge)}
    for user_id in (challenge.challenger_id, challenge.challenged_id):
        transaction.on_commit(partial(realtime.to_user, user_id, frame))
    Notification.objects.filter(key=f"challenge:{challenge.pk}", read_at=None).update(
        read_at=_now()
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
    now = now or _now()
    with transaction.atomic():
        stale = list(
            Challenge.objects.select_for_update(skip_locked=True)
            .select_related("challenger", "challenged")
            .filter(status=Challenge.Status.PENDING, created_at__lt=now - CHALLENGE_LIFETIME)
        )
        for challenge in stale:
            _answer(challenge, Challenge.Status.EXPIRED)
    return len(stale)


# -- notifications -------------------------------------------------------------------------------


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
    if kind == Notification.Kind.TOURNAMENT_ROUND:
        return _("%(tournament)s: round %(round)s starts.") % {
            "tournament": params.get("tournament"),
            "round": params.get("round"),
        }
    return str(kind)


def tournament_round_notices(
    *, tournament_id: int, name: str, round_number: int, seats: list[tuple[int, int | None]]
) -> None:
    """ "<tournament>: round n starts." for every player of a round just paired (once each)."""
    for user_id, game_id in seats:
        url = (
            reverse("game", args=[game_id])
            if game_id
            else reverse("tournament", args=[tournament_id])
        )
        notify(
            user_id=user_id,
            kind=Notification.Kind.TOURNAMENT_ROUND,
            params={"tournament": name, "round": round_number, "game": game_id},
            url=url,
            key=f"tournament:{tournament_id}:round:{round_number}:user:{user_id}",
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
    return unread.update(read_at=_now())


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
    stale.exclude(key=current).update(read_at=_now())
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

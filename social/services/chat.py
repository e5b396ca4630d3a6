"""The chats: a game's (players and spectators apart during play, one room after it) and a
tournament's; lines by text or quick message, rate-limited, pushed after the commit, removed by
staff."""

from __future__ import annotations

from datetime import timedelta
from functools import partial
from typing import Any, cast

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.errors import Conflict, InvalidInput, NotAllowed, NotFound
from games.models import Game, Seat
from games.selectors import api_datetime, game_or_not_found
from social import realtime
from social.models import ChatMessage
from social.state import ChatLine, ChatMessageEvent, ChatRemovedEvent, ChatRoom
from tournaments.models import Tournament

CHAT_RATE = (5, timedelta(seconds=10))
"""At most this many chat lines per person and game in this window."""


CHAT_PRESETS: dict[str, Any] = {
    "hello": gettext_lazy("Hello!"),
    "good_luck": gettext_lazy("Good luck!"),
    "gg": gettext_lazy("Good game"),
    "wp": gettext_lazy("Well played"),
    "thanks": gettext_lazy("Thanks"),
}
"""Quick messages: stored by key and shown in each reader's language."""


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
            **where, user_id=user.pk, created_at__gte=timezone.now() - window
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

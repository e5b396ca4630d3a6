"""Sockets of the social app.

- ``GameChatConsumer`` serves ``/ws/games/{id}/``: the games consumer plus chat (``chat``,
  ``chat_mute``) and the rematch frames. It only adds handlers; play is untouched.
- ``TournamentChatConsumer`` serves ``/ws/tournaments/{id}/``: the tournaments consumer plus the
  tournament's chat (``chat``, ``chat_history``, ``chat_mute``), under the games' chat rules.
- ``LobbyConsumer`` serves ``/ws/lobby/``, open on every page of a signed-in person: the seek's
  match (the page jumps into the game), challenges, notices, and the presence heartbeat.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from django.contrib.auth.models import User
from django.utils import translation
from django.utils.translation import gettext as _

from core.errors import ServiceError
from core.sockets import GuardedJsonConsumer
from games.consumers import (
    GameConsumer,
    Message,
    MessageError,
    _grant_for_token,
    _string_field,
)
from games.state import GameState
from social import presence, realtime
from social.services.challenges import challenge_payload, challenges_open
from social.services.chat import (
    CHAT_PRESETS,
    chat_history,
    chat_post,
    chat_room_of,
    chat_visible,
    tournament_chat_history,
    tournament_chat_post,
)
from social.services.notices import notification_text, unread_count
from social.services.preferences import preferences_of, preferences_update
from social.services.seeks import seek_current, seek_payload
from social.state import (
    ChatHistoryFrame,
    ChatLine,
    ChatMessageEvent,
    ChatMuteFrame,
    ChatRemovedEvent,
    ChatRemovedFrame,
    ChatRoom,
    GameRematchEvent,
    NotificationFrame,
    PongFrame,
    RematchFrame,
    RematchOfferEvent,
    RematchOfferFrame,
    SocialMessageEvent,
    TournamentGameFrame,
    WelcomeFrame,
)
from tournaments.consumers import TournamentConsumer
from tournaments.selectors import tournament_game_of

# -- the game socket's chat ----------------------------------------------------------------------


def _chat_start(game_id: int, user_id: int | None, reader_room: str) -> tuple[bool, list[ChatLine]]:
    muted = user_id is not None and preferences_of(user_id).chat_muted
    if muted:
        return True, []
    return False, chat_history(game_id=game_id, reader_room=reader_room)


def _localised(line: ChatLine, language: str) -> ChatLine:
    """A quick message in the reader's language."""
    preset = line.get("preset")
    if preset in CHAT_PRESETS:
        with translation.override(language):
            return {**line, "text": str(CHAT_PRESETS[preset])}
    return line


def _mute_set(user: User, muted: bool) -> None:
    preferences_update(user=user, chat_muted=muted)


class ChatMute(GuardedJsonConsumer):
    """``chat_mute`` of the game and tournament sockets: the person's preference, kept for every
    chat; unmuting sends the history again."""

    chat_muted = False

    def _mute_user(self) -> User:
        raise NotImplementedError

    async def _send_chat_history(self) -> None:
        raise NotImplementedError

    async def _on_chat_mute(self, content: Message) -> None:
        muted = content.get("muted")
        if not isinstance(muted, bool):
            raise MessageError(_("The field %(field)s must be true or false.") % {"field": "muted"})
        await database_sync_to_async(_mute_set)(self._mute_user(), muted)
        self.chat_muted = muted
        frame: ChatMuteFrame = {"type": "chat_mute", "muted": muted}
        await self.send_json(frame)
        if not muted:
            await self._send_chat_history()


class GameChatConsumer(ChatMute, GameConsumer):
    """The game socket with chat: players' and spectators' rooms apart during play, one room
    after the end. Each reader gets quick messages in their own language."""

    game_status: str = ""
    player_names: list[str | None]

    async def connect(self) -> None:
        self.player_names = []
        self.chat_open = False
        await super().connect()

    async def _send_chat_history(self) -> None:
        user_id = self.user.pk if self.user is not None else None
        self.chat_muted, lines = await database_sync_to_async(_chat_start)(
            self._game_id, user_id, self._reader_room
        )
        frame: ChatHistoryFrame = {
            "type": "chat_history",
            "room": self._reader_room,
            "muted": self.chat_muted,
            "messages": [self._localised(line) for line in lines],
        }
        await self.send_json(frame)

    @property
    def _username(self) -> str | None:
        return self.user.get_username() if self.user is not None else None

    @property
    def _reader_room(self) -> ChatRoom:
        return chat_room_of(self.game_status, self.player_names, self._username)

    def _localised(self, line: ChatLine) -> ChatLine:
        return _localised(line, self.language)

    def _follow(self, game: GameState) -> None:
        self.game_status = game["status"]
        self.player_names = [seat["username"] for seat in game["seats"]]

    async def opening(self) -> None:
        if self.held_state is not None:
            self._follow(self.held_state[0])
        await super().opening()

    async def _send_state(self, game: GameState, version: int, *, force: bool = False) -> None:
        # Remember who plays and whether the game is over: chat lines are filtered by it.
        if version <= self.version and not force:
            return
        finished_now = game["status"] == "finished" and self.game_status not in ("", "finished")
        self._follow(game)
        await super()._send_state(game, version, force=force)
        if finished_now and self.chat_open and not self.chat_muted:
            await self._send_chat_history()  # the rooms merge: show everything said

    # -- client messages --------------------------------------------------------------------------

    async def _on_chat(self, content: Message) -> None:
        preset = content.get("preset")
        if preset is not None:
            if not isinstance(preset, str):
                raise MessageError(_("The field %(field)s must be a string.") % {"field": "preset"})
            text = None
        else:
            text = _string_field(content, "text")
        await database_sync_to_async(chat_post)(
            game_id=self._game_id, user=self.user, text=text, preset=preset or ""
        )

    async def _on_chat_history(self, content: Message) -> None:
        """A page opening its chat asks for the lines it may see (and later the merged ones)."""
        self.chat_open = True
        await self._send_chat_history()

    def _mute_user(self) -> User:
        return self._player

    play_frames = GameConsumer.play_frames | {"chat", "chat_mute"}

    _handlers: dict[str, Any] = {
        **GameConsumer._handlers,
        "chat": _on_chat,
        "chat_history": _on_chat_history,
        "chat_mute": ChatMute._on_chat_mute,
    }

    # -- group events -----------------------------------------------------------------------------

    async def chat_message(self, event: ChatMessageEvent) -> None:
        line = event["message"]
        if self.opening_held:
            return  # a script's socket before its first state reads the history when it wants
        if self.chat_muted or not chat_visible(line["room"], self._reader_room):
            return
        await self.send_json(self._localised(line))

    async def chat_removed(self, event: ChatRemovedEvent) -> None:
        if not self.watch_allowed:
            return  # a script's socket on a private game, before its auth tells who watches
        frame: ChatRemovedFrame = {"type": "chat_removed", "id": event["id"]}
        await self.send_json(frame)

    async def rematch_offer(self, event: RematchOfferEvent) -> None:
        if not self.watch_allowed:
            return  # a script's socket on a private game, before its auth tells who watches
        frame: RematchOfferFrame = {
            "type": "rematch_offer",
            "asked": event["asked"],
            "waiting_for": event["waiting_for"],
        }
        await self.send_json(frame)

    async def game_rematch(self, event: GameRematchEvent) -> None:
        if not self.watch_allowed:
            return  # a script's socket on a private game, before its auth tells who watches
        frame: RematchFrame = {"type": "rematch", "game": event["game"]}
        await self.send_json(frame)


# -- the tournament socket's chat ----------------------------------------------------------------


def _tournament_chat_start(tournament_id: int, user_id: int | None) -> tuple[bool, list[ChatLine]]:
    if user_id is not None and preferences_of(user_id).chat_muted:
        return True, []
    return False, tournament_chat_history(tournament_id=tournament_id)


class TournamentChatConsumer(ChatMute, TournamentConsumer):
    """The tournament socket with the tournament's chat: one room for everyone watching; the
    games' limits (length, presets, rate), the person's mute and staff removal apply."""

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        kind = content.get("type") if isinstance(content, dict) else None
        handler = self._chat_handlers.get(kind) if isinstance(kind, str) else None
        if handler is None:
            await super().receive_json(content, **kwargs)
            return
        message_id = content.get("id")
        try:
            await handler(self, content)
        except MessageError as exc:
            await self.send_error(exc.message, id=message_id)
        except ServiceError as exc:
            await self.send_error(exc.message, code=exc.code, id=message_id)

    async def _send_chat_history(self) -> None:
        assert self.tournament_id is not None
        user_id = self.user.pk if self.user is not None else None
        self.chat_muted, lines = await database_sync_to_async(_tournament_chat_start)(
            self.tournament_id, user_id
        )
        frame: ChatHistoryFrame = {
            "type": "chat_history",
            "room": "tournament",
            "muted": self.chat_muted,
            "messages": [_localised(line, self.language) for line in lines],
        }
        await self.send_json(frame)

    async def _on_chat(self, content: Message) -> None:
        preset = content.get("preset")
        if preset is not None and not isinstance(preset, str):
            raise MessageError(_("The field %(field)s must be a string.") % {"field": "preset"})
        text = None if preset is not None else _string_field(content, "text")
        assert self.tournament_id is not None  # frames are read once the socket has joined
        await database_sync_to_async(tournament_chat_post)(
            tournament_id=self.tournament_id, user=self.user, text=text, preset=preset or ""
        )

    async def _on_chat_history(self, content: Message) -> None:
        await self._send_chat_history()

    def _mute_user(self) -> User:
        if self.user is None:
            raise MessageError(_("Sign in to chat."))
        user: User = self.user
        return user

    _chat_handlers: dict[str, Any] = {
        "chat": _on_chat,
        "chat_history": _on_chat_history,
        "chat_mute": ChatMute._on_chat_mute,
    }

    async def chat_message(self, event: ChatMessageEvent) -> None:
        if not self.chat_muted:
            await self.send_json(_localised(event["message"], self.language))

    async def chat_removed(self, event: ChatRemovedEvent) -> None:
        frame: ChatRemovedFrame = {"type": "chat_removed", "id": event["id"]}
        await self.send_json(frame)


# -- the lobby socket ----------------------------------------------------------------------------


def _welcome(user: User | None) -> WelcomeFrame:
    welcome: WelcomeFrame = {"type": "welcome", "username": None, "online": presence.online_count()}
    if user is None:
        return welcome
    seek = seek_current(user=user)
    received = [c for c in challenges_open(user=user) if c.challenged_id == user.pk]
    welcome.update(
        {
            "username": user.get_username(),
            "seek": seek_payload(seek) if seek else None,
            "challenges": [challenge_payload(c) for c in received],
            "unread": unread_count(user.pk),
            # A page opened after its round was paired missed the push: it leads them still.
            "tournament_game": tournament_game_of(user.pk),
        }
    )
    return welcome


def _tournament_game(user: User) -> TournamentGameFrame | None:
    """The answer to the lobby's ``sync``: the player's current tournament game, if any."""
    state = tournament_game_of(user.pk)
    return {"type": "tournament_game", **state} if state is not None else None


class LobbyConsumer(GuardedJsonConsumer):
    """One open page of a person (or an anonymous visitor, who only gets the online count).
    Frames pass the gate's limits (``core.sockets``) first."""

    kind = "lobby"
    user: User | None

    async def connect(self) -> None:
        await self.accept()
        if await self._join():
            await self.open_socket()  # the welcome now, or after a script's auth

    async def _join(self) -> bool:
        """A signed-in person's socket joins their group; False when it was closed instead."""
        if self.user is not None:
            if not await self.join_group(realtime.user_group(self.user.pk)):
                return False  # the layer is down: closed, to come back later
            await database_sync_to_async(presence.touch)(self.user.pk)
        return True

    async def opening(self) -> None:
        """The one ``welcome``: signed in (by session, or by an ``auth`` sent first) or not."""
        with translation.override(self.language):
            await self.send_json(await database_sync_to_async(_welcome)(self.user))

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        kind = content.get("type") if isinstance(content, dict) else None
        if kind == "ping":
            if self.user is not None:
                await database_sync_to_async(presence.touch)(self.user.pk)
            online = await database_sync_to_async(presence.online_count)()
            pong: PongFrame = {"type": "pong", "online": online}
            await self.send_json(pong)
        elif kind == "auth":
            await self._on_auth(content)
        elif kind == "sync":
            # A page back in view checks what it may have missed: its tournament game.
            frame = (
                await database_sync_to_async(_tournament_game)(self.user)
                if self.user is not None
                else None
            )
            if frame is not None:
                await self.send_json(frame)
        else:
            await self.send_error(_("Unknown message type %(type)s.") % {"type": kind})

    async def _on_auth(self, content: Message) -> None:
        """A script signs in by token before its ``welcome``, which then is the signed-in one."""
        if self.user is not None:
            await self.send_error(_("This connection is already signed in."))
            return
        if not self.opening_held:
            await self.send_error(_("Send auth as the first message."))
            return
        key = content.get("token")
        if not isinstance(key, str):
            await self.send_error(_("The field %(field)s must be a string.") % {"field": "token"})
            return
        grant = await database_sync_to_async(_grant_for_token)(key)
        if grant is None:  # the client may try again with another token
            await self.send_error(_("Invalid token."))
            return
        if await self.signed_in(grant.user, token=key, scopes=grant.scopes):
            await self._join()

    async def social_message(self, event: SocialMessageEvent) -> None:
        """A ``social.message`` pushed by ``social.realtime.to_user``."""
        message = event["message"]
        if message["type"] == "notification":
            # The words of a notice in this page's language.
            notice = message["notification"]
            with translation.override(self.language):
                text = notification_text(notice["kind"], notice["params"])
            localised: NotificationFrame = {**message, "notification": {**notice, "text": text}}
            await self.send_json(localised)
            return
        await self.send_json(message)

    @classmethod
    async def encode_json(cls, content: Any) -> str:
        return await GameConsumer.encode_json(content)

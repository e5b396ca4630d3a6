"""Live play over a WebSocket: ``/ws/games/{id}/`` of API.md.

The consumer is an interface, like a view: it reads a message, calls a service or a selector in a
worker thread (``db_call``) and shapes the answer. Writes go through
``games.services``, which push each new state to the game's group on commit; the ``game.state``
events carry the whole state, so their handler never queries.

Every refusal, from a malformed frame to an illegal move, is an ``error`` message to the sender
alone; the connection stays open.

Abuse (README, Reliability): each connection may send ``SIESTA_WS_MESSAGE_RATE`` messages a
second (bursts of ``SIESTA_WS_MESSAGE_BURST``); a message over the limit is dropped with an
``error``, and a connection that goes on sending (``SIESTA_WS_MAX_DROPPED`` dropped in a row) is
closed with 4429. One client address may hold ``SIESTA_WS_CONNECTIONS_PER_ADDRESS`` connections to
this process; more are closed with 4429 after an ``error``. A ``sync`` is answered with the whole
state at most once per version; a repeat at the same version gets
``{"type": "sync", "version": v}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar, cast

import orjson
from asgiref.sync import SyncToAsync
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connections
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext as _

from games import realtime, rows, services
from games.models import Game
from games.selectors import game_state_current
from games.state import (
    AckFrame,
    AuthFrame,
    CheckFrame,
    ErrorFrame,
    GameState,
    GameStateEvent,
    HintFrame,
    HintResult,
    StateFrame,
    SyncFrame,
    TurnPreview,
)
from siesta_site import safejson
from siesta_site.engine_budget import EngineBudgetSpent, EngineUnavailable

logger = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 4096
"""Frames larger than this are refused: a move message is well under 200 bytes."""

CLOSE_UNKNOWN_GAME = 4404
CLOSE_TRY_AGAIN = 1013
"""The channel layer is down (Redis): reconnect a little later."""
CLOSE_TOO_MANY = 4429
"""Too many messages on this connection, or too many connections from this address."""

Message = dict[str, Any]

P = ParamSpec("P")
R = TypeVar("R")

_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def _db_executor() -> ThreadPoolExecutor:
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(
                max_workers=settings.SIESTA_DB_THREADS, thread_name_prefix="siesta-db"
            )
        return _executor


HOLD_SECONDS = 60.0
"""How long a database thread keeps one connection before handing it back to the pool, which
then recycles connections past their lifetime as it does for every other thread."""

_TAKEN_AT = "_siesta_taken_at"


def db_call(func: Callable[P, R]) -> Callable[P, Any]:
    """``func`` as a coroutine run in the consumers' bounded thread pool.

    Channels' ``database_sync_to_async`` is thread-sensitive: every consumer of the process would
    queue its database work on asgiref's one shared thread. Here many run at once (games are
    independent; a consumer still handles its own messages one at a time), up to
    ``SIESTA_DB_THREADS``. A thread keeps its connection from one call to the next unless the call
    left it unfit (``_hand_back_if_unfit``): taking one from the pool and handing it back around
    every call (Channels' wrapper closes connections before and after each) cost about 5% of the
    thread's CPU per move.

    With ``SIESTA_DB_THREADS`` at 1 (SQLite, whose shared in-memory test database locks tables
    between connections of different threads) it is ``database_sync_to_async`` unchanged."""
    if settings.SIESTA_DB_THREADS <= 1:
        return database_sync_to_async(func)

    @functools.wraps(func)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        finally:
            _hand_back_if_unfit()

    return SyncToAsync(call, thread_sensitive=False, executor=_db_executor())


def release_db_connections(timeout: float = 10.0) -> None:
    """Hand back every database thread's connection now, e.g. before a test database is dropped:
    one call runs on each thread of the pool (each waits for the others, so no thread takes two)."""
    executor = _executor
    if executor is None:
        return
    workers = executor._max_workers
    arrived = threading.Barrier(workers)

    def release() -> None:
        connections.close_all()
        arrived.wait(timeout)

    for future in [executor.submit(release) for _thread in range(workers)]:
        future.result(timeout)


def _hand_back_if_unfit() -> None:
    """Close (with PostgreSQL's pool: hand back) this thread's connections that the next call
    must not inherit: one that saw a database error, one left inside a transaction, and one
    held for ``HOLD_SECONDS``. Every service runs in ``transaction.atomic``, so a fit connection
    is idle in autocommit between calls, holding no lock and no snapshot."""
    now = time.monotonic()
    for conn in connections.all(initialized_only=True):
        if conn.connection is None:
            conn.__dict__.pop(_TAKEN_AT, None)
            continue
        taken_at = conn.__dict__.setdefault(_TAKEN_AT, now)
        unfit = (
            conn.errors_occurred
            or conn.needs_rollback
            or conn.in_atomic_block
            or not conn.get_autocommit()
            or now - taken_at >= HOLD_SECONDS
        )
        if unfit:
            conn.close()
            conn.__dict__.pop(_TAKEN_AT, None)


logger = logging.getLogger(__name__)


class MessageError(Exception):
    """A message the consumer refuses before it reaches a service."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up; each message takes one."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


_connections_per_address: Counter[str] = Counter()
"""Open connections of this process by client address (one event loop: no lock needed)."""


def _dumps(content: Any) -> str:
    """Compact JSON text (orjson: a tenth of ``json.dumps``'s time on a state frame)."""
    return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS).decode()


_STATE_TEXTS: OrderedDict[int, tuple[GameState, int, str]] = OrderedDict()
_STATE_TEXTS_KEPT = 64


def _state_text(game: GameState, version: int) -> str:
    """The ``state`` frame's text, encoded once per process for all its watchers.

    A group event reaches every socket of a process in the same object (the layer's reader hands
    one message to all its channels), so the text is kept by the state's identity; the entry holds
    the state, so the identity cannot be reused while it is kept."""
    key = id(game)
    kept = _STATE_TEXTS.get(key)
    if kept is not None and kept[0] is game and kept[1] == version:
        return kept[2]
    frame: StateFrame = {"type": "state", "game": game, "version": version}
    text = _dumps(frame)
    _STATE_TEXTS[key] = (game, version, text)
    if len(_STATE_TEXTS) > _STATE_TEXTS_KEPT:
        _STATE_TEXTS.popitem(last=False)
    return text


# -- reads and checks run in a worker thread ----------------------------------------------------


def _current_version(game_id: int) -> int | None:
    version: int | None = Game.objects.filter(pk=game_id).values_list("version", flat=True).first()
    return version


def _user_for_token(key: str) -> User | None:
    user: User | None = rows.user_for_token(key)
    if user is None or not user.is_active:
        return None
    return user


def _language_of(scope: Any) -> str:
    """The language the page uses: the language cookie, else the browser's Accept-Language."""
    request = HttpRequest()
    request.COOKIES = dict(scope.get("cookies", {}))
    for name, value in scope.get("headers", []):
        if name == b"accept-language":
            request.META["HTTP_ACCEPT_LANGUAGE"] = value.decode("latin1")
    return translation.get_language_from_request(request)


def _game_id_of(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


# -- the consumer -------------------------------------------------------------------------------


class GameConsumer(AsyncJsonWebsocketConsumer):
    """One watcher (player or spectator) of one game."""

    game_id: int | None
    user: User | None
    """The signed-in user (by session cookie or ``auth`` message); None for anonymous watchers."""
    version: int
    """The version of the last state sent; older or repeated broadcasts are not sent again."""

    async def dispatch(self, message: Message) -> None:
        """Channels' dispatch without its ``aclose_old_connections()`` before every message and
        group event: a hop to asgiref's shared thread each time (about a third of a move's CPU on
        the event loop). This consumer holds no connection on that thread between messages:
        ``db_call`` and ``database_sync_to_async`` close theirs around each call."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self) -> None:
        self.game_id = _game_id_of(str(self.scope["url_route"]["kwargs"]["game_id"]))
        user = self.scope.get("user")
        # The session's user, lazily loaded: a User once signed in.
        self.user = cast(User, user) if user is not None and user.is_authenticated else None
        self.language = _language_of(self.scope)
        self.version = -1
        self.synced_version = -1
        self.joined = False
        self.auth_allowed = True
        self.bucket = TokenBucket(settings.SIESTA_WS_MESSAGE_RATE, settings.SIESTA_WS_MESSAGE_BURST)
        self.dropped = 0
        self.address: str | None = None
        await self.accept()
        if not self._count_connection():
            with translation.override(self.language):
                await self._send_error(
                    _("Too many connections from your address: close some and try again.")
                )
            await self.close(code=CLOSE_TOO_MANY)
            return
        if self.game_id is not None:
            # Join before reading, so that no change between the read and the join is missed.
            try:
                await self.channel_layer.group_add(
                    realtime.game_group(self.game_id), self.channel_name
                )
            except Exception:  # the layer's server (Redis) is down: the client retries
                logger.warning("could not join game %s's group", self.game_id, exc_info=True)
                with translation.override(self.language):
                    await self._send_error(_("Live updates are unavailable: try again shortly."))
                await self.close(code=CLOSE_TRY_AGAIN)
                return
            self.joined = True
            state = await db_call(game_state_current)(self.game_id)
            if state is not None:
                self._membership = asyncio.create_task(self._keep_membership(self.game_id))
                await self._send_state(state, state["version"])
                return
            await self.channel_layer.group_discard(
                realtime.game_group(self.game_id), self.channel_name
            )
            self.joined = False
        with translation.override(self.language):
            await self._send_error(
                services.GameNotFound(self.scope["url_route"]["kwargs"]["game_id"]).message
            )
        await self.close(code=CLOSE_UNKNOWN_GAME)

    async def disconnect(self, code: int) -> None:
        membership = getattr(self, "_membership", None)
        if membership is not None:
            membership.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await membership
        if self.address is not None:
            _connections_per_address[self.address] -= 1
            if _connections_per_address[self.address] <= 0:
                del _connections_per_address[self.address]
            self.address = None
        if self.joined and self.game_id is not None:
            await self.channel_layer.group_discard(
                realtime.game_group(self.game_id), self.channel_name
            )
            self.joined = False

    async def receive(
        self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any
    ) -> None:
        if not self.joined:
            return  # a frame that raced the 4404 close of an unknown game
        with translation.override(self.language):
            if not self.bucket.take():
                await self._drop_message()
                return
            self.dropped = 0
            size = len(text_data.encode()) if text_data is not None else len(bytes_data or b"")
            if size > MAX_MESSAGE_BYTES:
                await self._send_error(
                    _("Message too large: the limit is %(limit)s bytes.")
                    % {"limit": MAX_MESSAGE_BYTES}
                )
                return
            if text_data is None:
                await self._send_error(_("Send JSON text frames, not binary ones."))
                return
            try:
                content = await self.decode_json(text_data)
            except safejson.TooDeep as exc:
                await self._send_error(str(exc))
                return
            except ValueError:
                await self._send_error(_("The message is not valid JSON."))
                return
            await self.receive_json(content)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        message_id = content.get("id") if isinstance(content, dict) else None
        try:
            if not isinstance(content, dict) or not isinstance(content.get("type"), str):
                raise MessageError(_('Send a JSON object with a "type".'))
            handler = self._handlers.get(content["type"])
            if handler is None:
                raise MessageError(_("Unknown message type %(type)s.") % {"type": content["type"]})
            if content["type"] != "auth":
                self.auth_allowed = False
            await handler(self, content)
        except MessageError as exc:
            await self._send_error(exc.message, message_id=message_id)
        except services.GameServiceError as exc:
            await self._send_error(
                exc.message, cell=exc.cell, ply=exc.ply, code=exc.code, message_id=message_id
            )
        except (EngineBudgetSpent, EngineUnavailable) as exc:  # a hint over the engine budget
            await self._send_error(
                exc.message, code=exc.code, retry_after=exc.retry_after, message_id=message_id
            )

    # -- client messages --------------------------------------------------------------------------

    async def _on_auth(self, content: Message) -> None:
        """Scripts sign in with their API token as their first message (never in the URL)."""
        if self.user is not None:
            raise MessageError(_("This connection is already signed in."))
        if not self.auth_allowed:
            raise MessageError(_("Send auth as the first message."))
        key = _string_field(content, "token")
        user = await db_call(_user_for_token)(key)
        if user is None:  # the client may try again with another token
            raise MessageError(_("Invalid token."))
        self.user = user
        frame: AuthFrame = {"type": "auth", "username": user.get_username()}
        await self.send_json(frame)

    async def _on_sync(self, content: Message) -> None:
        """The whole state, once per version: a repeat at a version already sent in answer to a
        ``sync`` costs one small query and gets a short reply (a flood of syncs is cheap)."""
        version = await db_call(_current_version)(self._game_id)
        if version is not None and version == self.synced_version:
            frame: SyncFrame = {"type": "sync", "version": version}
            await self.send_json(frame)
            return
        state = await db_call(game_state_current)(self._game_id)
        if state is None:
            raise services.GameNotFound(self._game_id)
        self.synced_version = state["version"]
        await self._send_state(state, state["version"], force=True)

    async def _on_move(self, content: Message) -> None:
        move = _string_field(content, "move")
        ply = _int_field(content, "ply")
        result = await db_call(services.game_move_make)(
            game_id=self._game_id, user=self.user, move=move, ply=ply
        )
        # The new state reaches everyone, this sender too, through the group.
        frame: AckFrame = {
            "type": "ack",
            "id": content.get("id"),
            "ply": result.ply,
            "points": result.points,
        }
        await self.send_json(frame)

    async def _on_hint(self, content: Message) -> None:
        hint: HintResult = await db_call(services.game_hint)(
            game_id=self._game_id, user=self._player
        )
        frame: HintFrame = {
            "type": "hint",
            "id": content.get("id"),
            "move": hint["move"],
            "points": hint["points"],
        }
        await self.send_json(frame)

    async def _on_resign(self, content: Message) -> None:
        await db_call(services.game_resign)(game_id=self._game_id, user=self._player)

    async def _on_check(self, content: Message) -> None:
        move = _string_field(content, "move")
        ply = _int_field(content, "ply") if "ply" in content else None
        preview: TurnPreview = await db_call(services.game_turn_preview)(
            game_id=self._game_id, user=self.user, move=move, ply=ply
        )
        frame: CheckFrame = {"type": "check", "id": content.get("id"), "ok": True, **preview}
        await self.send_json(frame)

    # Named _on_<type>: a bare ``_sync`` would shadow ``AsyncConsumer._sync`` and make the consumer
    # wrap its sends for a synchronous one.
    _handlers = {
        "auth": _on_auth,
        "sync": _on_sync,
        "move": _on_move,
        "hint": _on_hint,
        "resign": _on_resign,
        "check": _on_check,
    }

    async def _keep_membership(self, game_id: int) -> None:
        """Renew this socket's place in the game's group well within the layer's ``group_expiry``.

        The expiry is what removes the channels of a server that was killed (they never
        ``group_discard``); a live socket renews itself, so it is never dropped."""
        interval = max(1.0, float(getattr(self.channel_layer, "group_expiry", 86400)) / 3)
        group = realtime.game_group(game_id)
        while True:
            await asyncio.sleep(interval)
            try:
                await self.channel_layer.group_add(group, self.channel_name)
            except Exception:  # the layer is down: try again next time
                logger.warning("could not renew %s in %s", self.channel_name, group, exc_info=True)

    # -- group events -----------------------------------------------------------------------------

    async def game_state(self, event: GameStateEvent) -> None:
        """A ``game.state`` event from ``games.realtime.broadcast_game_state``."""
        await self._send_state(event["game"], event["version"])

    # -- helpers ----------------------------------------------------------------------------------

    def _count_connection(self) -> bool:
        """Count this connection against its address; False when the address has too many."""
        client = self.scope.get("client")
        address = str(client[0]) if client else ""
        if _connections_per_address[address] >= settings.SIESTA_WS_CONNECTIONS_PER_ADDRESS:
            return False
        _connections_per_address[address] += 1
        self.address = address
        return True

    async def _drop_message(self) -> None:
        """A message over the rate limit: refused with an error; closed if the client goes on."""
        self.dropped += 1
        if self.dropped >= settings.SIESTA_WS_MAX_DROPPED:
            await self._send_error(_("Too many messages: this connection is closed."))
            await self.close(code=CLOSE_TOO_MANY)
            return
        await self._send_error(
            _("Too many messages: at most %(rate)s a second. This one was ignored.")
            % {"rate": settings.SIESTA_WS_MESSAGE_RATE}
        )

    @property
    def _game_id(self) -> int:
        assert self.game_id is not None  # connect() closed the socket otherwise
        return self.game_id

    @property
    def _player(self) -> User:
        """The signed-in user; anonymous watchers get the services' refusal for non-players."""
        if self.user is None:
            raise services.NotAllowed(_("You are not playing in this game."))
        return self.user

    async def _send_state(self, game: GameState, version: int, *, force: bool = False) -> None:
        if version <= self.version and not force:
            return
        self.version = max(self.version, version)
        await self.send(text_data=_state_text(game, version))

    async def _send_error(
        self,
        text: str,
        *,
        cell: str | None = None,
        ply: int | None = None,
        code: str | None = None,
        retry_after: int | None = None,
        message_id: Any = None,
    ) -> None:
        error: ErrorFrame = {"type": "error", "error": text, "cell": cell, "id": message_id}
        if ply is not None:
            error["ply"] = ply
        if code is not None:
            error["code"] = code
        if retry_after is not None:
            error["retry_after"] = retry_after
        await self.send_json(error)

    @classmethod
    async def decode_json(cls, text_data: str) -> Any:
        return safejson.loads(text_data)

    @classmethod
    async def encode_json(cls, content: Any) -> str:
        return _dumps(content)


def _string_field(content: Message, name: str) -> str:
    value = content.get(name)
    if name not in content:
        raise MessageError(_("The field %(field)s is missing.") % {"field": name})
    if not isinstance(value, str):
        raise MessageError(_("The field %(field)s must be a string.") % {"field": name})
    return value


def _int_field(content: Message, name: str) -> int:
    value = content.get(name)
    if name not in content:
        raise MessageError(_("The field %(field)s is missing.") % {"field": name})
    if not isinstance(value, int) or isinstance(value, bool):
        raise MessageError(_("The field %(field)s must be a whole number.") % {"field": name})
    return value

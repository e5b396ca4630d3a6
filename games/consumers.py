"""Live play over a WebSocket: ``/ws/games/{id}/`` of API.md.

The consumer is an interface, like a view: it reads a message, calls a service or a selector in a
worker thread (``db_call``) and shapes the answer. Writes go through
``games.services``, which push each new state to the game's group on commit; the ``game.state``
events carry the whole state, so their handler never queries.

Every refusal, from a malformed frame to an illegal move, is an ``error`` message to the sender
alone; the connection stays open.

Abuse (docs/reliability.md): the limits of every socket of the site (message rate, frame size and
depth, connections per address, the sign-in ending) are those of its base,
``core.sockets.GuardedJsonConsumer``. A ``sync`` is answered with the whole state at most
once per version; a repeat at the same version gets ``{"type": "sync", "version": v}``.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

import orjson
from asgiref.sync import SyncToAsync
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connections
from django.utils import translation
from django.utils.translation import gettext as _

from core.converters import id_of
from core.credentials import (
    PLAY,
    TokenGrant,
    TokenRefused,
    is_personal_key,
    personal_token_grant,
)
from core.metrics import MOVE_SECONDS
from core.sockets import (
    CLOSE_TOO_MANY,
    CLOSE_TRY_AGAIN,
    MAX_MESSAGE_BYTES,
    GuardedJsonConsumer,
)
from games import realtime, rows, services
from games.engine_budget import EngineBudgetSpent, EngineUnavailable, socket_address
from games.models import Game
from games.selectors import game_state_current, game_visible_check
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

logger = logging.getLogger(__name__)

__all__ = ["CLOSE_TOO_MANY", "CLOSE_TRY_AGAIN", "MAX_MESSAGE_BYTES", "GameConsumer"]

CLOSE_UNKNOWN_GAME = 4404

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

    With ``SIESTA_DB_THREADS`` at 1 (SQLite, which writes one transaction at a time: more threads
    would only queue for its lock) it is ``database_sync_to_async`` unchanged."""
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


def _may_watch(game_id: int, user: User | None) -> bool:
    """Whether ``user`` (None: anonymous) may watch the game: a private game is "not found"
    to anyone it is not for (``games.selectors.game_visible_check``)."""
    try:
        game_visible_check(game_id, user)
    except services.GameNotFound:
        return False
    return True


def _grant_for_token(key: str) -> TokenGrant | None:
    """Who ``key`` signs in, with its scopes: a personal access token (``core.credentials``)
    or the account's API token (every scope; one plain query, ``rows.user_for_token``)."""
    if is_personal_key(key):
        try:
            return personal_token_grant(key)
        except TokenRefused:
            return None
    user: User | None = rows.user_for_token(key)
    if user is None or not user.is_active:
        return None
    return TokenGrant(user=user, scopes=None)


# -- the consumer -------------------------------------------------------------------------------


class GameConsumer(GuardedJsonConsumer):
    """One watcher (player or spectator) of one game."""

    error_fields = {"cell": None, "id": None}
    run_in_thread = staticmethod(db_call)
    kind = "game"

    game_id: int | None
    user: User | None
    """The signed-in user (by session cookie or ``auth`` message); None for anonymous watchers."""
    version: int
    """The version of the last state sent; older or repeated broadcasts are not sent again."""
    play_frames = frozenset({"move", "hint", "resign", "check"})
    """Frames a personal access token needs the ``play`` scope for (watching needs none)."""

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
        self.game_id = id_of(str(self.scope["url_route"]["kwargs"]["game_id"]))
        self.version = -1
        self.synced_version = -1
        self.joined = False
        self.auth_allowed = True
        self.held_state: tuple[GameState, int] | None = None
        self.watch_allowed = False
        await self.accept()
        if self.game_id is not None:
            # Join before reading, so that no change between the read and the join is missed.
            # With the layer down the gate has told the client to come back later (4013).
            if not await self.join_group(realtime.game_group(self.game_id)):
                return
            self.joined = True
            state = await db_call(game_state_current)(self.game_id)
            if state is not None:
                # A private game: known now for a session's user, at the opening for a script.
                self.watch_allowed = await db_call(_may_watch)(self.game_id, self.user)
                self.held_state = (state, state["version"])
                self.version = state["version"]
                await self.open_socket()  # the state now, or after a script's auth
                return
        await self._close_unknown()

    async def _close_unknown(self) -> None:
        """As for a game that does not exist: the error frame, then the 4404 close."""
        if self.joined and self.game_id is not None:
            await self.leave_group(realtime.game_group(self.game_id))
        self.joined = False
        self.held_state = None
        with translation.override(self.language):
            await self._send_error(
                services.GameNotFound(self.scope["url_route"]["kwargs"]["game_id"]).message
            )
        await self.close(code=CLOSE_UNKNOWN_GAME)

    async def disconnect(self, code: int) -> None:
        self.joined = False  # the gate leaves the game's group

    def accepts_frames(self) -> bool:
        return self.joined  # not a frame that raced the 4404 close of an unknown game

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if not self.joined:
            return  # closed as unknown by the opening this frame caused
        message_id = content.get("id") if isinstance(content, dict) else None
        try:
            if not isinstance(content, dict) or not isinstance(content.get("type"), str):
                raise MessageError(_('Send a JSON object with a "type".'))
            handler = self._handlers.get(content["type"])
            if handler is None:
                raise MessageError(_("Unknown message type %(type)s.") % {"type": content["type"]})
            if content["type"] != "auth":
                self.auth_allowed = False
            if content["type"] in self.play_frames and not self.has_scope(PLAY):
                await self._send_error(
                    _("This token does not have the %(scope)s scope.") % {"scope": PLAY},
                    code=f"missing_scope_{PLAY}",
                    message_id=message_id,
                )
                return
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
        grant = await db_call(_grant_for_token)(key)
        if grant is None:  # the client may try again with another token
            raise MessageError(_("Invalid token."))
        if not await self.signed_in(grant.user, token=key, scopes=grant.scopes):
            return  # closed: the layer is down
        frame: AuthFrame = {"type": "auth", "username": grant.user.get_username()}
        await self.send_json(frame)

    async def _on_sync(self, content: Message) -> None:
        """The whole state, once per version: a repeat at a version already sent in answer to a
        ``sync`` costs one small query and gets a short reply (a flood of syncs is cheap).

        A page may say which ``version`` it holds (the check it makes on focus and while the
        socket is silent): the same as the server's gets the short reply, any other the state."""
        held = _int_field(content, "version") if content.get("version") is not None else None
        version = await db_call(_current_version)(self._game_id)
        up_to_date = version == held if held is not None else version == self.synced_version
        if version is not None and up_to_date:
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
        # A move made: its state was broadcast (after the commit, in the service's thread) before
        # the ack. Refused moves are not observed.
        MOVE_SECONDS.observe(time.perf_counter() - self.frame_received_at)

    async def _on_hint(self, content: Message) -> None:
        hint: HintResult = await db_call(services.game_hint)(
            game_id=self._game_id, user=self._player, address=socket_address(self.scope)
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

    # -- group events -----------------------------------------------------------------------------

    async def game_state(self, event: GameStateEvent) -> None:
        """A ``game.state`` event from ``games.realtime.broadcast_game_state``."""
        await self._send_state(event["game"], event["version"])

    # -- helpers ----------------------------------------------------------------------------------

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

    async def opening(self) -> None:
        """The first ``state``: the one read on connect, or a newer one broadcast since. Once
        the watcher is known (a script's ``auth`` is answered first), a private game they may
        not see closes the socket as an unknown game would."""
        if not self.watch_allowed:
            if not await db_call(_may_watch)(self._game_id, self.user):
                await self._close_unknown()
                return
            self.watch_allowed = True
        if self.held_state is not None:
            game, version = self.held_state
            self.held_state = None
            await self.send(text_data=_state_text(game, version))

    async def _send_state(self, game: GameState, version: int, *, force: bool = False) -> None:
        if version <= self.version and not force:
            return
        self.version = max(self.version, version)
        if self.opening_held:  # a script's socket before its auth: the opening sends the newest
            self.held_state = (game, version)
            return
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

"""One gate for every WebSocket of the site: ``GuardedJsonConsumer`` (docs/reliability.md).

Every socket consumer (game, chat, lobby, tournament) subclasses it and gets the same limits
before any of its own code runs:

- ``SIESTA_WS_CONNECTIONS_PER_ADDRESS`` open sockets per client address in this process, counted
  across every kind of socket; one more gets an ``error`` and is closed with 4429;
- ``SIESTA_WS_MESSAGE_RATE`` messages a second per socket (bursts of ``SIESTA_WS_MESSAGE_BURST``);
  one over is dropped with an ``error``, and ``SIESTA_WS_MAX_DROPPED`` in a row close it (4429);
- frames of at most ``MAX_MESSAGE_BYTES``, JSON text only, nested at most ``safejson.MAX_DEPTH``
  levels (``safejson``): refused with an ``error``, never a crash (no RecursionError);
- a signed-in socket (session cookie or ``auth`` token) joins ``user_sockets_group(user id)``, so
  that a logout, a password change or a token revocation closes it (``close_user_sockets``, a
  ``gate.close`` event) with 4401; its credential is also checked again at most every
  ``SIESTA_WS_AUTH_RECHECK_SECONDS`` when it sends, and on each renewal of its groups, so a socket
  that missed the event stops too (a personal access token that expired, too). A socket signed in
  with a personal access token keeps its scopes (``has_scope``): the consumers refuse the frames
  outside them;
- the channel layer failing (Redis down), at connect or later, closes the socket with 4013 (try
  again later) and a warning, not 1011 with a traceback;
- the handshake's order (``open_socket``): a script's socket (no ``Origin``, no session) holds its
  opening frame (the game's ``state``, the lobby's ``welcome``) until its first message, at most
  ``SIESTA_WS_AUTH_WAIT_SECONDS``, so that an ``auth`` sent first is answered before it.

Close codes: the IANA's 1013 "Try Again Later" cannot be sent: autobahn (under Daphne) only sends
1000 or 3000-4999 (``sendClose`` raises otherwise), so the site uses 4013 for it, as it uses 4401,
4404 and 4429 after the HTTP statuses.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections import Counter
from collections.abc import Callable
from importlib import import_module
from typing import Any

from asgiref.typing import WebSocketConnectEvent, WebSocketDisconnectEvent
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.http import HttpRequest
from django.utils import translation
from django.utils.crypto import constant_time_compare
from django.utils.translation import gettext as _
from rest_framework.authtoken.models import Token

from core import credentials, safejson
from core.broadcast import group_send
from core.metrics import SOCKET_MESSAGES, SOCKETS_OPEN

logger = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 4096
"""Frames larger than this are refused: the largest client message (a chat line) is well under."""

CLOSE_SIGNED_OUT = 4401
"""The socket's sign-in ended (logout, password change, token revoked): reconnect, signed out."""
CLOSE_TRY_AGAIN = 4013
"""The channel layer is down (Redis): reconnect a little later (1013 cannot be sent, see above)."""
CLOSE_TOO_MANY = 4429
"""Too many messages on this connection, or too many connections from this address."""

_connections_per_address: Counter[str] = Counter()
"""Open sockets of this process by client address (one event loop: no lock needed)."""


def is_closed_connection_error(exc: BaseException) -> bool:
    """Whether the server's ``send`` refused a frame because the connection is closed. The ASGI
    spec asks servers for a subclass of ``OSError`` (uvicorn's ``ClientDisconnected``); Daphne
    raises autobahn's ``Disconnected`` ("Attempt to send on a closed protocol"), a
    ``RuntimeError``, known here by its name: the site imports no server package."""
    return isinstance(exc, OSError) or (
        isinstance(exc, RuntimeError) and type(exc).__name__ == "Disconnected"
    )


def user_sockets_group(user_id: int) -> str:
    """The group of every open socket signed in as the user (any kind, any process)."""
    return f"sockets.user.{user_id}"


def _digest(secret: str) -> str:
    """What travels through the channel layer instead of a session key or a token's secret."""
    return credentials.secret_digest(secret)


def close_user_sockets(
    user_id: int,
    *,
    via: str | None = None,
    session_key: str | None = None,
    token_digest: str | None = None,
) -> bool:
    """Close the user's open sockets: all of them, those signed in by the account's token
    (``via="token"``), those of one session (``via="session"`` with its key), or those of one
    personal access token (``via="pat"`` with its stored digest). Call after the commit that
    ended the sign-in; False (logged) when the channel layer is down (the re-check closes them
    later)."""
    event: dict[str, Any] = {"type": "gate.close"}
    if via is not None:
        event["via"] = via
    if session_key:
        event["credential"] = _digest(session_key)
    if token_digest:
        event["credential"] = token_digest
    return group_send(user_sockets_group(user_id), event)


def language_of(scope: Any) -> str:
    """The language the page uses: the language cookie, else the browser's Accept-Language."""
    request = HttpRequest()
    request.COOKIES = dict(scope.get("cookies", {}))
    for name, value in scope.get("headers", []):
        if name == b"accept-language":
            request.META["HTTP_ACCEPT_LANGUAGE"] = value.decode("latin1")
    return translation.get_language_from_request(request)


def _has_origin(scope: Any) -> bool:
    """Whether the handshake came from a browser: browsers always send ``Origin``; scripts do not
    (docs/sockets.md)."""
    return any(name == b"origin" for name, _value in scope.get("headers", []))


def credential_valid(user_id: int, via: str, key: str) -> bool:
    """Whether the socket's sign-in still holds: its token still exists for an active user (a
    personal one unexpired), or its session still signs that user in with the current password
    (Django's session hash). One or two indexed queries."""
    if via == "token":
        return Token.objects.filter(key=key, user_id=user_id, user__is_active=True).exists()
    if via == "pat":
        try:
            return bool(credentials.personal_token_grant(key).user.pk == user_id)
        except credentials.TokenRefused:
            return False
    store = import_module(settings.SESSION_ENGINE).SessionStore(key)
    data = store.load()
    if str(data.get(SESSION_KEY, "")) != str(user_id):
        return False
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        return False
    stored = str(data.get(HASH_SESSION_KEY, ""))
    hashes = [user.get_session_auth_hash(), *user.get_session_auth_fallback_hash()]
    return any(constant_time_compare(stored, h) for h in hashes)


@functools.cache
def _socket_metrics(kind: str) -> tuple[Any, Any]:
    """The open sockets' gauge and the messages' counter of one kind, bound once."""
    return SOCKETS_OPEN.labels(kind), SOCKET_MESSAGES.labels(kind)


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


class GuardedJsonConsumer(AsyncJsonWebsocketConsumer):
    """The base of every socket consumer: the limits above, then ``connect`` and ``receive_json``
    of the subclass. Subclasses join their groups with ``join_group`` (renewed and left for
    them), sign a socket in with ``signed_in`` and refuse with ``send_error``."""

    user: Any
    """The signed-in user (session cookie or ``auth`` token); None for anonymous sockets."""
    language: str

    error_fields: dict[str, Any] = {}
    """Fields every ``error`` frame of this socket carries besides ``type`` and ``error``."""

    run_in_thread: Callable[[Callable[..., Any]], Callable[..., Any]] = staticmethod(
        database_sync_to_async
    )
    """How the gate runs its database check (the game socket uses its own thread pool)."""

    kind = "other"
    """The metrics' label of this kind of socket (``game``, ``tournament``, ``lobby``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = None
        self.language = settings.LANGUAGE_CODE
        self.address: str | None = None
        self.connecting = False
        self.accepted = False
        self.closed = False
        self.gone = False
        """The server refused a frame: the connection is closed (``_send_unless_gone``)."""
        self.layer_down = False
        self.gate_groups: set[str] = set()
        self.credential: tuple[str, str] | None = None
        self.token_scopes: frozenset[str] | None = None
        """The scopes of the personal access token the socket signed in with; None: every one."""
        self.checked_at = time.monotonic()
        self._keeper: asyncio.Task[None] | None = None
        self._layer_lost = False
        self.opening_held = False
        self._opener: asyncio.Task[None] | None = None
        self._opening_sent: asyncio.Event | None = None
        self._counted_open = False
        self.frame_received_at = 0.0
        """When the frame being handled arrived (``time.perf_counter``): the move's latency."""
        self._open_gauge, self._messages = _socket_metrics(self.kind)

    # -- the gate around Channels' handlers -------------------------------------------------------

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self._server_send = send
        await super().__call__(scope, receive, self._send_unless_gone)

    async def _send_unless_gone(self, message: Any) -> None:
        """The server's ``send``, for a socket that may be gone: a frame for a connection the
        server has already closed (a state that raced the client's close) is dropped, and so is
        every later one, where the server's error crashed the consumer (a traceback in the log,
        and ``websocket_disconnect`` never ran: the address's count and the groups leaked). The
        server's disconnect follows as usual."""
        if self.gone:
            return
        try:
            await self._server_send(message)
        except Exception as exc:
            if not is_closed_connection_error(exc):
                raise
            self.gone = True
            logger.debug("%s: a frame after the connection closed: %s", self.channel_name, exc)

    async def websocket_connect(self, message: WebSocketConnectEvent) -> None:
        self.connecting = True
        user = self.scope.get("user")
        # The session's user, resolved by AuthMiddleware: a User once signed in.
        self.user = user if user is not None and user.is_authenticated else None
        self.language = language_of(self.scope)
        self.bucket = TokenBucket(settings.SIESTA_WS_MESSAGE_RATE, settings.SIESTA_WS_MESSAGE_BURST)
        self.dropped = 0
        if self.layer_down:  # the layer failed before the handshake was read
            await self.gate_layer_lost({"type": "gate.layer_lost"})
            return
        if not self._count_connection():
            with translation.override(self.language):
                await self.refuse(
                    _("Too many connections from your address: close some and try again."),
                    CLOSE_TOO_MANY,
                )
            return
        if self.user is not None:
            session = self.scope.get("session")
            key = getattr(session, "session_key", None)
            if key and not await self.signed_in(self.user, session_key=key):
                return
        await super().websocket_connect(message)
        if not self.closed:
            self._keeper = asyncio.create_task(self._keep_groups())

    async def websocket_disconnect(self, message: WebSocketDisconnectEvent) -> None:
        try:
            await super().websocket_disconnect(message)
        finally:
            await self._release()

    async def receive(
        self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any
    ) -> None:
        self.frame_received_at = time.perf_counter()
        self._messages.inc()
        if self.closed or not self.accepts_frames():
            return  # a frame that raced a close
        if self._opening_sent is not None:
            await self._opening_sent.wait()  # the wait's end is sending it: answer after it
        if not self.opening_held:
            await self._receive(text_data, bytes_data)
            return
        # The first message decides when the opening frame goes: the wait ends now.
        self._stop_opener()
        signing_in = await self._receive(text_data, bytes_data)
        if self.closed or not self.opening_held:
            return
        if signing_in and self.user is None:
            self._start_opener()  # a refused token: the client may send another one
        else:
            await self._open()

    async def _receive(self, text_data: str | None, bytes_data: bytes | None) -> bool:
        """The gate's checks, then ``receive_json``; True when the message was an ``auth``."""
        with translation.override(self.language):
            if not self.bucket.take():
                await self._drop_message()
                return False
            self.dropped = 0
            size = len(text_data.encode()) if text_data is not None else len(bytes_data or b"")
            if size > MAX_MESSAGE_BYTES:
                await self.send_error(
                    _("Message too large: the limit is %(limit)s bytes.")
                    % {"limit": MAX_MESSAGE_BYTES}
                )
                return False
            if text_data is None:
                await self.send_error(_("Send JSON text frames, not binary ones."))
                return False
            try:
                content = await self.decode_json(text_data)
            except safejson.TooDeep as exc:
                await self.send_error(str(exc))
                return False
            except ValueError:
                await self.send_error(_("The message is not valid JSON."))
                return False
            if not await self._still_signed_in(force=False):
                return False
            signing_in = isinstance(content, dict) and content.get("type") == "auth"
            if self.opening_held and not signing_in:
                await self._open()  # anything but an auth is answered after the opening
            await self.receive_json(content)
            return signing_in

    def accepts_frames(self) -> bool:
        """Whether client frames are read now (a subclass may wait until it has joined)."""
        return True

    async def accept(self, subprotocol: str | None = None, headers: Any = None) -> None:
        self.accepted = True
        if not self._counted_open:
            self._counted_open = True
            self._open_gauge.inc()
        await super().accept(subprotocol, headers)

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        self.closed = True
        await super().close(code, reason)

    # -- for subclasses ---------------------------------------------------------------------------

    async def open_socket(self) -> None:
        """Send the opening frame (``opening``) now, or, on a script's socket (no ``Origin``,
        no session), once its first message is handled or ``SIESTA_WS_AUTH_WAIT_SECONDS``
        have passed without one: an ``auth`` sent first is answered before the opening, an
        anonymous watcher still gets it at once when it sends anything else, or after the wait.
        Call it at the end of ``connect``, once the socket is accepted and in its groups."""
        if self.user is not None or _has_origin(self.scope):
            await self.opening()
            return
        self.opening_held = True
        self._start_opener()

    async def opening(self) -> None:
        """The frame a socket opens with (the game's ``state``, the lobby's ``welcome``)."""

    async def send_error(self, text: str, **fields: Any) -> None:
        """The one ``error`` frame of the site's sockets, to this socket alone."""
        await self.send_json({"type": "error", "error": text, **self.error_fields, **fields})

    async def refuse(self, text: str, code: int) -> None:
        """An ``error`` frame, then the close (accepting the socket first if need be, so that the
        client reads why)."""
        if not self.accepted:
            await self.accept()
        await self.send_error(text)
        await self.close(code=code)

    async def join_group(self, group: str) -> bool:
        """Join ``group`` (renewed while the socket lives, left when it closes). With the layer
        down the socket is told to come back later and closed with 4013: False."""
        try:
            await self.channel_layer.group_add(group, self.channel_name)
        except Exception as exc:  # the layer's server (Redis) is down: the client retries
            logger.warning("could not join %s: %s", group, exc)
            with translation.override(self.language):
                await self.refuse(
                    _("Live updates are unavailable: try again shortly."), CLOSE_TRY_AGAIN
                )
            return False
        self.gate_groups.add(group)
        return True

    async def leave_group(self, group: str) -> None:
        self.gate_groups.discard(group)
        await self.channel_layer.group_discard(group, self.channel_name)

    async def signed_in(
        self,
        user: Any,
        *,
        token: str | None = None,
        session_key: str | None = None,
        scopes: frozenset[str] | None = None,
    ) -> bool:
        """The socket is ``user``'s from now on, by ``token`` (with its ``scopes`` when it is a
        personal access token) or by the session ``session_key``: it joins the user's group, so
        that the end of that sign-in closes it. False when it was closed instead (the layer is
        down)."""
        if not await self.join_group(user_sockets_group(user.pk)):
            return False
        self.user = user
        if token is None:
            self.credential = ("session", session_key or "")
        else:
            self.credential = ("pat" if credentials.is_personal_key(token) else "token", token)
        self.token_scopes = scopes
        self.checked_at = time.monotonic()
        return True

    def has_scope(self, scope: str) -> bool:
        """Whether this socket may do what ``scope`` covers (signed in by a personal access token
        without it: no)."""
        return self.token_scopes is None or scope in self.token_scopes

    # -- group events -----------------------------------------------------------------------------

    async def gate_close(self, event: dict[str, Any]) -> None:
        """A ``gate.close`` from ``close_user_sockets``: the sign-in it names ended."""
        if self.credential is None or self.closed:
            return
        via, key = self.credential
        if event.get("via") not in (None, via):
            return
        if "credential" in event and (via == "token" or event["credential"] != _digest(key)):
            return
        await self._sign_out()

    async def gate_layer_lost(self, event: dict[str, Any]) -> None:
        """The channel layer failed under this socket (see ``channel_receive``)."""
        self.layer_down = True
        if self.closed or not self.connecting:
            return  # closed already, or told as the handshake is read
        with translation.override(self.language):
            await self.refuse(
                _("Live updates are unavailable: try again shortly."), CLOSE_TRY_AGAIN
            )

    # -- internals --------------------------------------------------------------------------------

    @property
    def channel_receive(self) -> Callable[[], Any]:
        """Channels' reader of this socket's channel, guarded: when the layer fails (Redis down)
        the socket gets a ``gate.layer_lost`` event once, and the reader then waits for the close,
        where unguarded it raised into Channels' dispatch loop (1011 and a traceback)."""
        return self._guarded_channel_receive

    @channel_receive.setter
    def channel_receive(self, value: Callable[[], Any]) -> None:
        self._layer_receive = value

    async def _guarded_channel_receive(self) -> Any:
        if self._layer_lost:
            await asyncio.Event().wait()  # until the consumer stops (the task is cancelled)
        try:
            return await self._layer_receive()
        except Exception as exc:  # not CancelledError: that is the consumer stopping
            self._layer_lost = True
            logger.warning("the channel layer failed under %s: %s", self.channel_name, exc)
            return {"type": "gate.layer_lost"}

    def _start_opener(self) -> None:
        self._opener = asyncio.create_task(self._open_after_wait())

    def _stop_opener(self) -> None:
        if self._opener is not None and self._opener is not asyncio.current_task():
            self._opener.cancel()
        self._opener = None

    async def _open_after_wait(self) -> None:
        await asyncio.sleep(settings.SIESTA_WS_AUTH_WAIT_SECONDS)
        self._opener = None
        if not self.closed:
            with translation.override(self.language):
                await self._open()

    async def _open(self) -> None:
        """Send the held opening frame, once."""
        if not self.opening_held:
            return
        self.opening_held = False
        self._stop_opener()
        self._opening_sent = asyncio.Event()
        try:
            await self.opening()
        finally:
            self._opening_sent.set()
            self._opening_sent = None

    def _count_connection(self) -> bool:
        """Count this socket against its address; False when the address has too many."""
        client = self.scope.get("client")
        address = str(client[0]) if client else ""
        if _connections_per_address[address] >= settings.SIESTA_WS_CONNECTIONS_PER_ADDRESS:
            return False
        _connections_per_address[address] += 1
        self.address = address
        return True

    async def _release(self) -> None:
        if self._counted_open:
            self._counted_open = False
            self._open_gauge.dec()
        self.opening_held = False
        self._stop_opener()
        keeper = self._keeper
        if keeper is not None:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
            self._keeper = None
        address = self.address
        if address is not None:
            _connections_per_address[address] -= 1
            if _connections_per_address[address] <= 0:
                del _connections_per_address[address]
            self.address = None
        for group in list(self.gate_groups):
            try:
                await self.leave_group(group)
            except Exception as exc:  # the layer is down: the group's expiry drops this channel
                logger.warning("could not leave %s: %s", group, exc)

    async def _drop_message(self) -> None:
        """A message over the rate limit: refused with an error; closed if the client goes on."""
        self.dropped += 1
        if self.dropped >= settings.SIESTA_WS_MAX_DROPPED:
            await self.refuse(_("Too many messages: this connection is closed."), CLOSE_TOO_MANY)
            return
        await self.send_error(
            _("Too many messages: at most %(rate)s a second. This one was ignored.")
            % {"rate": settings.SIESTA_WS_MESSAGE_RATE}
        )

    async def _still_signed_in(self, *, force: bool) -> bool:
        """Check the socket's credential again (at most every SIESTA_WS_AUTH_RECHECK_SECONDS
        unless ``force``); a sign-in that ended closes the socket: False."""
        if self.credential is None or self.user is None:
            return True
        now = time.monotonic()
        if not force and now - self.checked_at < settings.SIESTA_WS_AUTH_RECHECK_SECONDS:
            return True
        self.checked_at = now
        via, key = self.credential
        if await self.run_in_thread(credential_valid)(self.user.pk, via, key):
            return True
        await self._sign_out()
        return False

    async def _sign_out(self) -> None:
        self.credential = None
        with translation.override(self.language):
            await self.refuse(
                _("You were signed out: this connection is closed."), CLOSE_SIGNED_OUT
            )

    async def _keep_groups(self) -> None:
        """Renew this socket's groups well within the layer's ``group_expiry``, and check its
        sign-in at the same time.

        The expiry is what removes the channels of a server that was killed (they never
        ``group_discard``); a live socket renews itself, so it is never dropped."""
        interval = max(1.0, float(getattr(self.channel_layer, "group_expiry", 86400)) / 3)
        while not self.closed:
            await asyncio.sleep(interval)
            for group in list(self.gate_groups):
                try:
                    await self.channel_layer.group_add(group, self.channel_name)
                except Exception:  # the layer is down: try again next time
                    logger.warning("could not renew %s in %s", self.channel_name, group)
            try:
                await self._still_signed_in(force=True)
            except Exception:  # the database is away: the next message checks again
                logger.warning("could not check the sign-in of %s", self.channel_name)

    @classmethod
    async def decode_json(cls, text_data: str) -> Any:
        return safejson.loads(text_data)

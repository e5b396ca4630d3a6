"""WebSocket routes, served by siesta_site.asgi under session auth and an Origin check."""

from typing import Any

from channels.auth import AuthMiddleware
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.security.websocket import WebsocketDenier
from channels.sessions import CookieMiddleware, InstanceSessionWrapper, SessionMiddleware
from django.http import HttpRequest
from django.middleware.csrf import CsrfViewMiddleware
from django.urls import URLPattern, path, re_path

from social.consumers import GameChatConsumer, LobbyConsumer, TournamentChatConsumer

websocket_urlpatterns: list[URLPattern] = [
    # Any id reaches the consumer, which closes with 4404 for a game that does not exist.
    # types-channels types ASGI apps apart from django's view callables.
    # The games consumer with chat and rematch frames added (social.consumers).
    path("ws/games/<str:game_id>/", GameChatConsumer.as_asgi()),  # type: ignore[arg-type]
    # The tournaments consumer with the tournament's chat added (social.consumers).
    path(
        "ws/tournaments/<str:tournament_id>/",
        TournamentChatConsumer.as_asgi(),  # type: ignore[arg-type]
    ),
    path("ws/lobby/", LobbyConsumer.as_asgi()),  # type: ignore[arg-type]
]
# The load benchmark's echo socket is not the site's: bench.asgi adds it (make up SIESTA_ECHO_WS=1).


class NoRouteConsumer(AsyncWebsocketConsumer):
    """Any other path (``/ws/games/1%2F..%2F2/`` arrives decoded as ``/ws/games/1/../2/``): the
    handshake is refused (403) instead of the router raising, which Daphne answers with a 500."""

    async def connect(self) -> None:
        await self.close()


def with_fallback(patterns: list[URLPattern]) -> list[URLPattern]:
    """The routes, then the refusal of every other path (which must come last)."""
    return [*patterns, re_path(r"", NoRouteConsumer.as_asgi())]  # type: ignore[arg-type]


class _Handshake(HttpRequest):
    """The WebSocket handshake seen as the HTTP request it is, for Django's CSRF origin check."""

    def __init__(self, scope: dict[str, Any]) -> None:
        super().__init__()
        self._scheme = "https" if scope.get("scheme") in ("wss", "https") else "http"
        server = scope.get("server") or ("", "")
        self.META["SERVER_NAME"] = str(server[0] or "")
        self.META["SERVER_PORT"] = str(server[1] or "")
        for name, value in scope.get("headers", []):
            key = name.decode("latin1").upper().replace("-", "_")
            self.META[f"HTTP_{key}"] = value.decode("latin1")

    def _get_scheme(self) -> str:
        return self._scheme


def origin_allowed(scope: dict[str, Any]) -> bool:
    """Whether the handshake's ``Origin`` is the site's own, compared as CSRF compares it: the
    full origin (scheme, host and port) must be this request's (``Host`` in ALLOWED_HOSTS, the
    scheme of the socket, ``wss`` meaning ``https``) or one of CSRF_TRUSTED_ORIGINS.

    Browsers always send ``Origin`` with a WebSocket handshake, so one naming another origin is a
    page of another site riding the visitor's session cookie: refused. Scripts and bots (Python
    ``websockets``, Node ``ws``) send none by default; they carry no cookie of ours and sign in
    with their token (API.md), so they are let in."""
    request = _Handshake(scope)
    if "HTTP_ORIGIN" not in request.META:
        return True
    # Django's own check, so the two can never disagree.
    check = CsrfViewMiddleware(lambda r: None)  # type: ignore[arg-type]
    return bool(check._origin_verified(request))  # type: ignore[attr-defined]


class SameOriginValidator:
    """ASGI middleware refusing WebSocket handshakes from a foreign origin (see origin_allowed)."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)


def same_origin_validator(application: Any) -> SameOriginValidator:
    return SameOriginValidator(application)


class SocketSessionMiddleware(SessionMiddleware):
    """Channels' ``SessionMiddleware`` for sockets, without its wrapper around every send.

    Channels saves a session only as an HTTP response starts, so on a socket its wrapper did
    nothing but read the session's state for every frame sent (2-3% of a web process's CPU at
    N=200). The session is read from the cookie into the scope as before, for ``AuthMiddleware``;
    a consumer that changed it would have to save it itself, as Channels' documentation says for
    sockets (none here does)."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        wrapper = InstanceSessionWrapper(scope, send)
        await wrapper.resolve_session()
        return await self.inner(wrapper.scope, receive, send)  # type: ignore[call-arg,misc]


def socket_auth_stack(inner: Any) -> CookieMiddleware:
    """Channels' ``AuthMiddlewareStack`` with ``SocketSessionMiddleware``."""
    return CookieMiddleware(SocketSessionMiddleware(AuthMiddleware(inner)))

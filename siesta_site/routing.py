"""WebSocket routes, served by siesta_site.asgi under session auth and an Origin check."""

from typing import Any
from urllib.parse import ParseResult

from channels.security.websocket import OriginValidator
from django.conf import settings
from django.urls import URLPattern, path

from social.consumers import GameChatConsumer, LobbyConsumer

websocket_urlpatterns: list[URLPattern] = [
    # Any id reaches the consumer, which closes with 4404 for a game that does not exist.
    # types-channels types ASGI apps apart from django's view callables.
    # The games consumer with chat and rematch frames added (social.consumers).
    path("ws/games/<str:game_id>/", GameChatConsumer.as_asgi()),  # type: ignore[arg-type]
    path("ws/lobby/", LobbyConsumer.as_asgi()),  # type: ignore[arg-type]
]


class SameOriginValidator(OriginValidator):
    """Refuse browsers on other sites; let scripts in.

    Browsers always send ``Origin`` with a WebSocket handshake, so one naming a host outside
    ALLOWED_HOSTS is a page of another site riding the visitor's session cookie: refused.
    Scripts and bots (Python ``websockets``, Node ``ws``) send no ``Origin`` by default; they carry
    no cookie of ours and sign in with their token (API.md), so they are let in."""

    def valid_origin(self, parsed_origin: ParseResult | None) -> bool:
        if parsed_origin is None:
            return True
        return bool(super().valid_origin(parsed_origin))


def same_origin_validator(application: Any) -> SameOriginValidator:
    """Like channels' ``AllowedHostsOriginValidator``, but without refusing a missing Origin."""
    allowed_hosts = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed_hosts:
        allowed_hosts = ["localhost", "127.0.0.1", "[::1]"]
    return SameOriginValidator(application, allowed_hosts)

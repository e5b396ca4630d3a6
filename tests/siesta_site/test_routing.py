"""The WebSocket routing in front of the consumers: the Origin check compares full origins
(scheme, host and port) as Django's CSRF check does, and a path no route matches is refused
instead of raising in the router (Daphne answered that with a 500)."""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator

from siesta_site.asgi import application
from tests.factories import UserFactory
from tests.games.factories import make_game

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10


async def handshake(path: str, headers: list[tuple[bytes, bytes]], scheme: str = "ws") -> bool:
    communicator = WebsocketCommunicator(application, path, headers)
    communicator.scope["scheme"] = scheme
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    await communicator.disconnect(timeout=TIMEOUT)
    return connected


@pytest.fixture
def game_path(transactional_db) -> str:
    return f"/ws/games/{make_game().pk}/"


@pytest.mark.parametrize(
    ("scheme", "host", "origin", "allowed"),
    [
        ("ws", "testserver", "http://testserver", True),
        ("wss", "testserver", "https://testserver", True),
        ("ws", "localhost:8000", "http://localhost:8000", True),
        # Same host name, another port or scheme: another origin (these were accepted).
        ("ws", "localhost:8000", "http://localhost:9999", False),
        ("ws", "testserver", "https://testserver", False),
        ("wss", "testserver", "http://testserver", False),
        ("ws", "localhost:8000", "http://localhost", False),
        # Another site, or a Host outside ALLOWED_HOSTS.
        ("ws", "testserver", "http://evil.example", False),
        ("ws", "evil.example", "http://evil.example", False),
        ("ws", "testserver", "null", False),
    ],
)
async def test_the_origin_must_be_the_sites_own_full_origin(
    game_path, scheme, host, origin, allowed
):
    headers = [(b"host", host.encode()), (b"origin", origin.encode())]
    assert await handshake(game_path, headers, scheme) is allowed


async def test_a_trusted_origin_is_accepted(settings, game_path):
    settings.CSRF_TRUSTED_ORIGINS = ["https://play.example"]
    headers = [(b"host", b"testserver"), (b"origin", b"https://play.example")]
    assert await handshake(game_path, headers)
    headers = [(b"host", b"testserver"), (b"origin", b"http://play.example")]
    assert not await handshake(game_path, headers)


async def test_scripts_without_an_origin_are_let_in(game_path):
    assert await handshake(game_path, [])


@pytest.mark.parametrize(
    "path",
    [
        "/ws/games/1/../2/",  # how Daphne hands on /ws/games/1%2F..%2F2/ (decoded)
        "/ws/games/1/2/",
        "/ws/games/",
        "/ws/nothing-here/",
        "/",
    ],
)
async def test_a_path_no_route_matches_is_refused_cleanly(transactional_db, path):
    """Before the fix the router raised ValueError ("No route found"), a 500 in Daphne."""
    assert not await handshake(path, [(b"host", b"testserver")])


async def test_behind_a_tls_proxy_the_forwarded_scheme_counts(settings, game_path):
    """nginx ends TLS and speaks plain ws to Daphne; with SECURE_PROXY_SSL_HEADER (production)
    the origin is compared with https, as CSRF does for forms."""
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    behind = [(b"host", b"testserver"), (b"x-forwarded-proto", b"https")]
    assert await handshake(game_path, [*behind, (b"origin", b"https://testserver")])
    assert not await handshake(game_path, [*behind, (b"origin", b"http://testserver")])


async def test_sockets_get_the_sessions_user_and_the_servers_own_send(transactional_db):
    """socket_auth_stack reads the session and its user as Channels' AuthMiddlewareStack does,
    and hands the consumer the server's send itself: no session wrapper around every frame."""
    from channels.db import database_sync_to_async
    from channels.generic.websocket import AsyncWebsocketConsumer

    from siesta_site.routing import socket_auth_stack
    from tests.games.test_consumers import session_headers

    class Recorder(AsyncWebsocketConsumer):
        async def connect(self) -> None:
            seen["user"] = await database_sync_to_async(lambda: self.scope["user"].username)()
            seen["session_key"] = self.scope["session"].session_key
            seen["send"] = self.base_send
            await self.accept()

    seen: dict[str, object] = {}
    user = await database_sync_to_async(UserFactory)()
    headers = await database_sync_to_async(session_headers)(user)
    communicator = WebsocketCommunicator(socket_auth_stack(Recorder.as_asgi()), "/ws/x/", headers)
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    await communicator.send_to(text_data="hello")
    await communicator.disconnect(timeout=TIMEOUT)

    assert connected
    assert seen["user"] == user.username
    assert seen["session_key"]
    assert seen["send"] == communicator.output_queue.put

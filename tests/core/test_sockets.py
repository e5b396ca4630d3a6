"""The gate of every socket (core/sockets.py): the game (with chat), lobby and tournament
sockets refuse oversize, too-deep and too-fast frames with an error frame, cap the connections of
an address, and close when the sign-in they were opened with ends (logout, password change,
token revocation), on the in-memory channel layer and on Redis. Driven through the whole ASGI
application (Origin check, session, routing)."""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.test import Client
from rest_framework.authtoken.models import Token

from core import sockets
from siesta_site.asgi import application
from tests.factories import PASSWORD, UserFactory
from tests.games.factories import make_game
from tests.games.test_consumers_abuse import closed_with, from_address
from tests.tournaments.factories import make_tournament

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10
HOST = (b"host", b"testserver")
SAME_ORIGIN = (b"origin", b"http://testserver")

KINDS = ["game", "lobby", "tournament"]
"""The routes: ``game`` is the game socket with its chat (social.consumers.GameChatConsumer)."""


@pytest.fixture(
    params=["memory", pytest.param("redis", marks=pytest.mark.requires_redis)], ids=lambda p: p
)
def layer(request, settings) -> str:
    """Each test on the in-memory layer and on the site's Redis layer (a key prefix of its own)."""
    if request.param == "memory":
        settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    else:
        settings.CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "core.channel_layer.RedisChannelLayer",
                "CONFIG": {
                    "hosts": [{"address": django_settings.REDIS_URL, "socket_timeout": None}],
                    "prefix": f"test-{uuid.uuid4().hex}:",
                },
            }
        }
    return str(request.param)


@pytest.fixture
def paths(transactional_db) -> dict[str, str]:
    game = make_game(users=[UserFactory(), UserFactory()])
    tournament = make_tournament(players=1, rounds=1)
    return {
        "game": f"/ws/games/{game.pk}/",
        "lobby": "/ws/lobby/",
        "tournament": f"/ws/tournaments/{tournament.pk}/",
    }


def signed_in_client(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def cookie_of(client: Client) -> tuple[bytes, bytes]:
    name = django_settings.SESSION_COOKIE_NAME
    return (b"cookie", f"{name}={client.cookies[name].value}".encode())


Open = Callable[..., Awaitable[WebsocketCommunicator]]


@pytest.fixture
async def open_socket(layer) -> AsyncIterator[Open]:
    """Opens sockets (from ``address``, signed in by ``client``'s session cookie if given), all
    disconnected at the end of the test."""
    opened: list[WebsocketCommunicator] = []

    async def _open(
        path: str, *, client: Client | None = None, address: str = "203.0.113.9", script=False
    ):
        cookie = [cookie_of(client)] if client is not None else []
        origin = [] if script else [SAME_ORIGIN]  # scripts send no Origin
        socket = WebsocketCommunicator(from_address(address), path, [HOST, *origin, *cookie])
        opened.append(socket)
        assert (await socket.connect(timeout=TIMEOUT))[0]
        return socket

    yield _open
    for socket in opened:
        await socket.disconnect(timeout=TIMEOUT)


async def first_frame(socket: WebsocketCommunicator) -> dict[str, Any]:
    """The frame every socket sends on connect (state, welcome or tournament)."""
    frame = await socket.receive_json_from(timeout=TIMEOUT)
    assert frame["type"] in ("state", "welcome", "tournament"), frame
    return frame


async def next_error(socket: WebsocketCommunicator) -> dict[str, Any]:
    while True:
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        if frame["type"] == "error":
            return frame


def no_errors_logged(caplog: pytest.LogCaptureFixture) -> None:
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


# -- frames ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
async def test_oversize_deep_and_binary_frames_get_an_error_and_the_socket_lives(
    kind, paths, open_socket, caplog
):
    caplog.set_level(logging.WARNING)
    socket = await open_socket(paths[kind])
    await first_frame(socket)

    await socket.send_to(text_data="[" * 4000 + "]" * 4000)  # the 4,000-deep frame
    error = await next_error(socket)
    assert error["error"] == "Message too large: the limit is 4096 bytes."
    assert error["code"] == "invalid"
    await socket.send_to(text_data="[" * 2000 + "]" * 2000)  # as deep as fits in a frame
    error = await next_error(socket)
    assert error["error"] == "The JSON is nested too deeply: at most 32 levels."
    assert error["code"] == "parse_error"
    await socket.send_to(text_data='{"type": "sync", "x": "' + "a" * 5000 + '"}')
    error = await next_error(socket)
    assert "too large" in error["error"]
    assert error["code"] == "invalid"
    await socket.send_to(bytes_data=b"{}")
    error = await next_error(socket)
    assert error["error"] == "Send JSON text frames, not binary ones."
    assert error["code"] == "unsupported_media_type"
    await socket.send_to(text_data="{not json")
    error = await next_error(socket)
    assert error["error"] == "The message is not valid JSON."
    assert error["code"] == "parse_error"

    # Still open and served.
    await socket.send_json_to({"type": "ping" if kind == "lobby" else "sync"})
    reply = await socket.receive_json_from(timeout=TIMEOUT)
    assert reply["type"] in ("pong", "state", "sync", "tournament"), reply
    no_errors_logged(caplog)


@pytest.mark.parametrize("kind", KINDS)
async def test_too_fast_frames_are_dropped_then_the_socket_is_closed(
    kind, paths, open_socket, settings, caplog
):
    settings.SIESTA_WS_MESSAGE_RATE = 0.5
    settings.SIESTA_WS_MESSAGE_BURST = 2
    settings.SIESTA_WS_MAX_DROPPED = 4
    socket = await open_socket(paths[kind])
    await first_frame(socket)
    for _ in range(3):
        await socket.send_json_to({"type": "nothing"})
    refusal = await next_error(socket)  # the burst's answers come first
    while refusal["error"] != "Too many messages: at most 0.5 a second. This one was ignored.":
        refusal = await next_error(socket)
    assert refusal["code"] == "too_many"
    for _ in range(5):
        await socket.send_json_to({"type": "nothing"})
    assert await closed_with(socket) == sockets.CLOSE_TOO_MANY
    no_errors_logged(caplog)


@pytest.mark.parametrize("kind", KINDS)
async def test_connections_per_address_are_capped_on_every_socket(
    kind, paths, open_socket, settings, caplog
):
    settings.SIESTA_WS_CONNECTIONS_PER_ADDRESS = 2
    for _ in range(2):
        await first_frame(await open_socket(paths[kind], address="198.51.100.20"))
    extra = await open_socket(paths[kind], address="198.51.100.20")
    refusal = await next_error(extra)
    assert refusal["error"] == "Too many connections from your address: close some and try again."
    assert refusal["code"] == "too_many"
    assert await closed_with(extra) == sockets.CLOSE_TOO_MANY
    await first_frame(await open_socket(paths[kind], address="198.51.100.21"))
    no_errors_logged(caplog)


async def test_the_cap_counts_every_kind_of_socket_of_an_address(paths, open_socket, settings):
    settings.SIESTA_WS_CONNECTIONS_PER_ADDRESS = 3
    for kind in KINDS:
        await first_frame(await open_socket(paths[kind], address="198.51.100.30"))
    extra = await open_socket(paths["lobby"], address="198.51.100.30")
    assert await closed_with(extra) == sockets.CLOSE_TOO_MANY


# -- sign-ins that end -----------------------------------------------------------------------------


@pytest.fixture
def ana(transactional_db) -> Any:
    return UserFactory()


async def test_logout_closes_the_sockets_of_that_session_only(paths, open_socket, ana, caplog):
    leaving = await database_sync_to_async(signed_in_client)(ana)
    staying = await database_sync_to_async(signed_in_client)(ana)
    closing = [await open_socket(paths[kind], client=leaving) for kind in KINDS]
    kept = await open_socket(paths["lobby"], client=staying)
    for socket in [*closing, kept]:
        await first_frame(socket)

    response = await database_sync_to_async(leaving.post)("/accounts/logout/")
    assert response.status_code == 302
    for socket in closing:
        error = await next_error(socket)
        assert error["error"] == "You were signed out: this connection is closed."
        assert error["code"] == "authentication_failed"
        assert await closed_with(socket) == sockets.CLOSE_SIGNED_OUT == 4401
    await kept.send_json_to({"type": "ping"})
    assert (await kept.receive_json_from(timeout=TIMEOUT))["type"] == "pong"
    no_errors_logged(caplog)


async def token_socket(open_socket: Open, path: str, key: str) -> WebsocketCommunicator:
    """A script's socket signing in as its first message: its answer (``auth`` on the game socket,
    the signed-in ``welcome`` on the lobby) comes before the opening frame."""
    socket = await open_socket(path, script=True)
    await socket.send_json_to({"type": "auth", "token": key})
    return socket


async def test_a_password_change_closes_every_socket_of_the_user(paths, open_socket, ana, caplog):
    new_password = "n3w-Pass-w0rd"
    key = (await database_sync_to_async(Token.objects.create)(user=ana)).key
    client = await database_sync_to_async(signed_in_client)(ana)
    by_session = [await open_socket(paths[kind], client=client) for kind in KINDS]
    for socket in by_session:
        await first_frame(socket)
    game_by_token = await token_socket(open_socket, paths["game"], key)
    assert (await game_by_token.receive_json_from(timeout=TIMEOUT))["type"] == "auth"
    lobby_by_token = await token_socket(open_socket, paths["lobby"], key)
    assert (await lobby_by_token.receive_json_from(timeout=TIMEOUT))["type"] == "welcome"
    other = await open_socket(paths["lobby"], client=await database_sync_to_async(
        signed_in_client)(await database_sync_to_async(UserFactory)()))  # fmt: skip
    await first_frame(other)

    response = await database_sync_to_async(client.post)(
        "/accounts/password_change/",
        {"old_password": PASSWORD, "new_password1": new_password, "new_password2": new_password},
    )
    assert response.status_code == 302, response.content
    for socket in [*by_session, game_by_token, lobby_by_token]:
        assert await closed_with(socket) == sockets.CLOSE_SIGNED_OUT
    assert await other.receive_nothing(timeout=0.3)
    no_errors_logged(caplog)


async def test_a_revoked_token_closes_its_sockets_not_the_sessions(paths, open_socket, ana):
    key = (await database_sync_to_async(Token.objects.create)(user=ana)).key
    client = await database_sync_to_async(signed_in_client)(ana)
    by_session = await open_socket(paths["game"], client=client)
    await first_frame(by_session)
    by_token = await token_socket(open_socket, paths["game"], key)
    assert (await by_token.receive_json_from(timeout=TIMEOUT))["type"] == "auth"

    response = await database_sync_to_async(Client().post)(
        "/api/auth/logout/", HTTP_AUTHORIZATION=f"Token {key}"
    )
    assert response.status_code == 204
    assert await closed_with(by_token) == sockets.CLOSE_SIGNED_OUT
    await by_session.send_json_to({"type": "sync"})
    assert (await by_session.receive_json_from(timeout=TIMEOUT))["type"] in ("state", "sync")


async def test_a_socket_that_missed_the_event_stops_at_its_next_check(
    paths, open_socket, ana, settings
):
    """The token goes without a close event (deleted behind the services' back): the socket is
    closed by the re-check at its next message after SIESTA_WS_AUTH_RECHECK_SECONDS."""
    settings.SIESTA_WS_AUTH_RECHECK_SECONDS = 0
    key = (await database_sync_to_async(Token.objects.create)(user=ana)).key
    socket = await token_socket(open_socket, paths["game"], key)
    assert (await socket.receive_json_from(timeout=TIMEOUT))["type"] == "auth"
    await socket.send_json_to({"type": "sync"})
    assert (await socket.receive_json_from(timeout=TIMEOUT))["type"] in ("state", "sync")

    await database_sync_to_async(lambda: Token.objects.filter(key=key).delete())()
    await socket.send_json_to({"type": "move", "move": "SA1 RB1 HC1", "ply": 0})
    error = await next_error(socket)
    assert error["error"] == "You were signed out: this connection is closed."
    assert error["code"] == "authentication_failed"
    assert await closed_with(socket) == sockets.CLOSE_SIGNED_OUT


async def test_a_session_that_ended_stops_its_socket_at_the_next_check(
    paths, open_socket, ana, settings
):
    settings.SIESTA_WS_AUTH_RECHECK_SECONDS = 0
    client = await database_sync_to_async(signed_in_client)(ana)
    socket = await open_socket(paths["lobby"], client=client)
    assert (await first_frame(socket))["username"] == ana.username
    await database_sync_to_async(client.session.delete)()  # no logout signal: gone from the store
    await socket.send_json_to({"type": "ping"})
    assert await closed_with(socket) == sockets.CLOSE_SIGNED_OUT


def test_the_check_costs_one_or_two_indexed_queries(ana, django_assert_max_num_queries):
    """What the re-check costs, each SIESTA_WS_AUTH_RECHECK_SECONDS of a sending socket."""
    key = Token.objects.create(user=ana).key
    with django_assert_max_num_queries(1):
        assert sockets.credential_valid(ana.pk, "token", key)
    client = signed_in_client(ana)
    with django_assert_max_num_queries(2):
        assert sockets.credential_valid(ana.pk, "session", client.session.session_key)
    assert not sockets.credential_valid(ana.pk, "token", "nope")
    assert not sockets.credential_valid(ana.pk, "session", "nope")


# -- the layer away --------------------------------------------------------------------------------


class NoGroupsLayer:
    """A channel layer whose server (Redis) is down: every call fails."""

    extensions = ["groups"]

    def __init__(self, **_: Any) -> None:
        pass

    async def new_channel(self, prefix: str = "specific.") -> str:
        return f"{prefix}{uuid.uuid4().hex}"

    async def _down(self, *args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    receive = send = group_add = group_discard = group_send = _down


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("signed_in", [False, True], ids=["anonymous", "signed-in"])
async def test_with_the_layer_down_a_socket_closes_with_try_again(
    kind, signed_in, paths, settings, ana, caplog
):
    """Not 1011 with a traceback at ERROR: 4013 (1013 cannot be sent) and a warning."""
    client = await database_sync_to_async(signed_in_client)(ana) if signed_in else None
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": f"{__name__}.NoGroupsLayer"}}
    headers = [HOST, SAME_ORIGIN, *([cookie_of(client)] if client else [])]
    socket = WebsocketCommunicator(application, paths[kind], headers)
    connected, _ = await socket.connect(timeout=TIMEOUT)
    assert connected
    error = await next_error(socket)
    assert error["error"] == "Live updates are unavailable: try again shortly."
    assert error["code"] == "unavailable"
    assert await closed_with(socket) == sockets.CLOSE_TRY_AGAIN == 4013
    await socket.disconnect(timeout=TIMEOUT)
    no_errors_logged(caplog)


def test_autobahn_refuses_1013_and_sends_the_codes_of_the_gate():
    from autobahn.websocket.protocol import WebSocketProtocol

    protocol = WebSocketProtocol()
    protocol.state = WebSocketProtocol.STATE_CLOSED  # sendCloseFrame then only logs
    protocol.log = logging.getLogger("autobahn-test")
    with pytest.raises(Exception, match="invalid close code 1013"):
        protocol.sendClose(code=1013)
    for code in (sockets.CLOSE_TRY_AGAIN, sockets.CLOSE_SIGNED_OUT, sockets.CLOSE_TOO_MANY):
        protocol.sendClose(code=code)


# -- a frame after the connection closed -----------------------------------------------------------


def closing_server(address: str, state: dict[str, bool]) -> Any:
    """The application behind a server that, once ``state["closed"]``, refuses every frame as
    Daphne does for a connection already closed (autobahn's ``Disconnected``: "Attempt to send on
    a closed protocol"), until its disconnect reaches the application."""
    from autobahn.exception import Disconnected

    site = from_address(address)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> Any:
        async def server_send(message: dict[str, Any]) -> None:
            if state["closed"]:
                raise Disconnected("Attempt to send on a closed protocol")
            await send(message)

        return await site(scope, receive, server_send)

    return app


@pytest.mark.parametrize("kind", KINDS)
async def test_a_frame_for_a_closed_connection_is_dropped_and_the_socket_still_cleans_up(
    kind, paths, layer, caplog
):
    """Issue 28: at the end of every load phase, states raced the players' closes and Daphne's
    "Attempt to send on a closed protocol" crashed their consumers (a traceback each), which then
    never released their address's count or left their groups."""
    caplog.set_level(logging.WARNING)
    address = "203.0.113.28"
    state = {"closed": False}
    socket = WebsocketCommunicator(closing_server(address, state), paths[kind], [HOST, SAME_ORIGIN])
    assert (await socket.connect(timeout=TIMEOUT))[0]
    await socket.receive_json_from(timeout=TIMEOUT)  # the opening frame
    assert sockets._connections_per_address[address] == 1
    state["closed"] = True  # the client's close is in; its disconnect is not yet
    await socket.send_json_to({"type": "nonsense"})  # answered with an error frame: refused
    await socket.send_json_to({"type": "nonsense"})
    assert await socket.receive_nothing(timeout=0.5)
    await socket.disconnect(timeout=TIMEOUT)  # raised the consumer's crash, if it had crashed
    assert address not in sockets._connections_per_address
    no_errors_logged(caplog)


def test_only_the_servers_closed_connection_errors_are_taken_for_a_closed_socket():
    from autobahn.exception import Disconnected

    assert sockets.is_closed_connection_error(Disconnected("Attempt to send on a closed protocol"))
    assert sockets.is_closed_connection_error(ConnectionResetError())  # an OSError, as ASGI asks
    assert not sockets.is_closed_connection_error(RuntimeError("something else"))
    assert not sockets.is_closed_connection_error(ValueError("Socket has not been accepted"))

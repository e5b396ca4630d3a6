"""WebSocket abuse: a per-connection message rate limit, a per-address connection cap, and
``sync`` answered with the whole state at most once per version."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer
from channels.testing import WebsocketCommunicator

from games import consumers, services
from siesta_site.asgi import application
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.games.test_consumers import (
    FIRST_MOVE,
    HOST,
    SAME_ORIGIN,
    TIMEOUT,
    _own_channel_layer_prefix,  # noqa: F401 - the autouse fixture, for these sockets too
    receive,
    receive_state,
)

pytestmark = pytest.mark.django_db(transaction=True)

Open = Callable[..., Awaitable[WebsocketCommunicator]]


def from_address(address: str) -> Any:
    """The ASGI application as reached from ``address`` (as Daphne puts it in the scope)."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> Any:
        return await application({**scope, "client": [address, 40000]}, receive, send)

    return app


@pytest.fixture
async def open_socket() -> AsyncIterator[Open]:
    opened: list[WebsocketCommunicator] = []

    async def _open(game_id: int, address: str = "203.0.113.7") -> WebsocketCommunicator:
        communicator = WebsocketCommunicator(
            from_address(address), f"/ws/games/{game_id}/", [HOST, SAME_ORIGIN]
        )
        opened.append(communicator)
        connected, _ = await communicator.connect(timeout=TIMEOUT)
        assert connected
        return communicator

    yield _open
    for communicator in opened:
        await communicator.disconnect(timeout=TIMEOUT)


@pytest.fixture
def game(transactional_db):
    return make_game(users=[UserFactory(), UserFactory()])


async def closed_with(communicator: WebsocketCommunicator) -> int | None:
    """The close code once the server closes the socket (frames before it are skipped)."""
    while True:
        output = await communicator.receive_output(timeout=TIMEOUT)
        if output["type"] == "websocket.close":
            return output.get("code")


async def test_messages_over_the_rate_are_dropped_with_an_error(settings, open_socket, game):
    settings.SIESTA_WS_MESSAGE_RATE = 0.5
    settings.SIESTA_WS_MESSAGE_BURST = 3
    settings.SIESTA_WS_MAX_DROPPED = 10
    socket = await open_socket(game.pk)
    await receive_state(socket)
    for _ in range(3):  # the burst passes: a state, then "up to date" answers
        await socket.send_json_to({"type": "sync"})
        assert (await receive(socket))["type"] in ("state", "sync")
    await socket.send_json_to({"type": "sync"})
    refusal = await receive(socket)
    assert refusal["type"] == "error"
    assert refusal["error"] == "Too many messages: at most 0.5 a second. This one was ignored."
    assert await socket.receive_nothing(timeout=0.3)


async def test_a_client_that_keeps_flooding_is_closed_with_4429(settings, open_socket, game):
    settings.SIESTA_WS_MESSAGE_RATE = 1
    settings.SIESTA_WS_MESSAGE_BURST = 2
    settings.SIESTA_WS_MAX_DROPPED = 5
    socket = await open_socket(game.pk)
    await receive_state(socket)
    for _ in range(50):
        await socket.send_json_to({"type": "sync"})
    assert await closed_with(socket) == consumers.CLOSE_TOO_MANY
    # The game is untouched and others are served as before.
    other = await open_socket(game.pk, address="198.51.100.1")
    assert (await receive_state(other))["game"]["ply"] == 0


async def test_a_flood_of_moves_plays_once(settings, open_socket, game):
    """Over the limit a move is dropped before it reaches the service: nothing changes."""
    settings.SIESTA_WS_MESSAGE_RATE = 0.1
    settings.SIESTA_WS_MESSAGE_BURST = 1
    settings.SIESTA_WS_MAX_DROPPED = 100
    socket = await open_socket(game.pk)
    await receive_state(socket)
    for _ in range(5):
        await socket.send_json_to({"type": "move", "move": FIRST_MOVE, "ply": 0})
    kinds = [(await receive(socket))["type"] for _ in range(5)]
    assert kinds == ["error"] * 5  # the first: not signed in; then four dropped
    game_now = await database_sync_to_async(lambda: type(game).objects.get(pk=game.pk))()
    assert game_now.ply == 0


async def test_connections_per_address_are_capped(settings, open_socket, game):
    settings.SIESTA_WS_CONNECTIONS_PER_ADDRESS = 3
    sockets = [await open_socket(game.pk) for _ in range(3)]
    for socket in sockets:
        await receive_state(socket)
    extra = await open_socket(game.pk)
    refusal = await receive(extra)
    assert refusal == {
        "type": "error",
        "error": "Too many connections from your address: close some and try again.",
        "code": "too_many",
        "cell": None,
        "id": None,
    }
    assert await closed_with(extra) == consumers.CLOSE_TOO_MANY
    # Another address is welcome, and a closed connection frees its place.
    await receive_state(await open_socket(game.pk, address="198.51.100.2"))
    await sockets[0].disconnect(timeout=TIMEOUT)
    again = await open_socket(game.pk)
    await receive_state(again)


async def test_sync_sends_each_version_once(open_socket, game):
    socket = await open_socket(game.pk)
    first = await receive_state(socket)
    for _ in range(5):  # the first sync too: the opening state is at that version
        await socket.send_json_to({"type": "sync"})
        assert await receive(socket) == {"type": "sync", "version": first["version"]}

    mover = await database_sync_to_async(lambda: game.seats.get(seat=1).user)()
    await database_sync_to_async(services.game_move_make)(
        game_id=game.pk, user=mover, move=FIRST_MOVE, ply=0
    )
    pushed = await receive_state(socket)
    assert pushed["version"] == first["version"] + 1
    await socket.send_json_to({"type": "sync"})  # a new version: the whole state once more
    assert (await receive_state(socket))["version"] == pushed["version"]
    await socket.send_json_to({"type": "sync"})
    assert await receive(socket) == {"type": "sync", "version": pushed["version"]}


async def test_sync_with_the_pages_version_answers_whether_it_is_the_newest(open_socket, game):
    """A page checks on focus and while its socket is silent: ``sync`` with the version it holds
    is answered by the short ``sync`` when that is the newest, by the state otherwise (however
    often it asks: the page missed that state), and a version that is not a number is refused."""
    socket = await open_socket(game.pk)
    first = await receive_state(socket)
    for _ in range(2):
        await socket.send_json_to({"type": "sync", "version": first["version"]})
        assert await receive(socket) == {"type": "sync", "version": first["version"]}

    mover = await database_sync_to_async(lambda: game.seats.get(seat=1).user)()
    await database_sync_to_async(services.game_move_make)(
        game_id=game.pk, user=mover, move=FIRST_MOVE, ply=0
    )
    assert (await receive_state(socket))["version"] == first["version"] + 1
    for _ in range(2):  # a page that lost that frame gets it each time it asks
        await socket.send_json_to({"type": "sync", "version": first["version"]})
        again = await receive_state(socket)
        assert again["version"] == first["version"] + 1
        assert again["game"]["ply"] == 1
    await socket.send_json_to({"type": "sync", "version": "newest"})
    refusal = await receive(socket)
    assert refusal["type"] == "error"
    assert "version" in refusal["error"]


class NoGroupsLayer(InMemoryChannelLayer):
    """A channel layer whose server is down when a socket joins its game's group."""

    async def group_add(self, group, channel):
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


async def test_with_the_layer_down_a_socket_is_told_to_come_back_later(settings, open_socket, game):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": f"{__name__}.NoGroupsLayer"}}
    socket = await open_socket(game.pk)
    refusal = await receive(socket)
    assert refusal["type"] == "error"
    assert refusal["error"] == "Live updates are unavailable: try again shortly."
    assert await closed_with(socket) == consumers.CLOSE_TRY_AGAIN == 4013

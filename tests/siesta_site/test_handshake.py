"""The order of a socket's first frames (docs/sockets.md, "The handshake"): a script that signs in
with ``auth`` as its first message gets the ``auth`` answer before the game's first ``state``, and
the lobby sends one ``welcome``, the signed-in one. Browsers (an ``Origin``, a session) get their
opening frame at once; an anonymous script gets it at its first other message or after the wait."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from rest_framework.authtoken.models import Token

from games import services
from siesta_site.asgi import application
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.payloads import assert_documented
from tests.social.sockets import HOST, SAME_ORIGIN, TIMEOUT, own_layer_prefix  # noqa: F401

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("own_layer_prefix"),
]

QUIET = 0.3
FIRST_MOVE = "SA1 RB1 HC1"  # seat 1 at ply 0


@pytest.fixture
def wait(settings) -> float:
    """A script's wait for its first message, long enough that the tests' messages beat it."""
    settings.SIESTA_WS_AUTH_WAIT_SECONDS = 3.0
    return settings.SIESTA_WS_AUTH_WAIT_SECONDS


@pytest.fixture
async def opened():
    sockets: list[WebsocketCommunicator] = []
    yield sockets
    for socket in sockets:
        await socket.disconnect(timeout=TIMEOUT)


async def script(opened: list[WebsocketCommunicator], path: str) -> WebsocketCommunicator:
    """A script's socket: no Origin, no cookie."""
    socket = WebsocketCommunicator(application, path, [HOST])
    opened.append(socket)
    assert (await socket.connect(timeout=TIMEOUT))[0]
    return socket


async def frames_until_quiet(socket: WebsocketCommunicator) -> list[dict[str, Any]]:
    """What arrived until the socket fell quiet, each frame checked against the AsyncAPI
    document."""
    channel = "lobby" if socket.scope["path"] == "/ws/lobby/" else "game"
    frames = []
    while not await socket.receive_nothing(timeout=QUIET):
        frames.append(await socket.receive_json_from(timeout=TIMEOUT))
        assert_documented(channel, frames[-1])
    return frames


@pytest.fixture
def table(transactional_db) -> tuple[Any, Any, str]:
    """A two-player game, seat 1 to move, and seat 1's API token."""
    first, second = UserFactory(), UserFactory()
    game = make_game(players=2, users=[first, second])
    return game, first, Token.objects.create(user=first).key


# -- the game socket -------------------------------------------------------------------------------


async def test_the_auth_answer_comes_before_the_first_state(opened, table, wait):
    game, first, key = table
    socket = await script(opened, f"/ws/games/{game.pk}/")
    await socket.send_json_to({"type": "auth", "token": key})

    frames = await frames_until_quiet(socket)

    assert [frame["type"] for frame in frames] == ["auth", "state"]
    assert frames[0] == {"type": "auth", "username": first.username}
    assert frames[1]["game"]["id"] == game.pk


async def test_a_refused_token_may_be_followed_by_a_good_one_before_the_state(opened, table, wait):
    game, _first, key = table
    socket = await script(opened, f"/ws/games/{game.pk}/")
    await socket.send_json_to({"type": "auth", "token": "wrong"})
    await socket.send_json_to({"type": "auth", "token": key})

    frames = await frames_until_quiet(socket)

    assert [frame["type"] for frame in frames] == ["error", "auth", "state"]
    assert frames[0]["error"] == "Invalid token."
    assert frames[0]["code"] == "authentication_failed"


async def test_a_change_during_the_wait_is_in_the_one_first_state(opened, table, wait):
    game, first, key = table
    socket = await script(opened, f"/ws/games/{game.pk}/")
    await database_sync_to_async(services.game_move_make)(
        game_id=game.pk, user=first, move=FIRST_MOVE, ply=0
    )
    await asyncio.sleep(QUIET)  # the broadcast has reached the socket, which holds it
    await socket.send_json_to({"type": "auth", "token": key})

    frames = await frames_until_quiet(socket)

    assert [frame["type"] for frame in frames] == ["auth", "state"]
    assert frames[1]["game"]["ply"] == 1


async def test_another_first_message_is_answered_after_the_state(opened, table, wait):
    game, _first, _key = table
    socket = await script(opened, f"/ws/games/{game.pk}/")
    await socket.send_json_to({"type": "sync"})

    frames = await frames_until_quiet(socket)

    # The opening state, then the sync's answer: up to date (the opening state is the current one).
    assert [frame["type"] for frame in frames] == ["state", "sync"]


async def test_an_anonymous_script_gets_the_state_after_the_wait(opened, table, settings):
    settings.SIESTA_WS_AUTH_WAIT_SECONDS = 0.5
    game, _first, _key = table
    started = time.monotonic()
    socket = await script(opened, f"/ws/games/{game.pk}/")

    frame = await socket.receive_json_from(timeout=TIMEOUT)

    assert frame["type"] == "state"
    assert time.monotonic() - started >= 0.5


async def test_a_browser_gets_the_state_at_once(opened, table, wait):
    game, _first, _key = table
    socket = WebsocketCommunicator(application, f"/ws/games/{game.pk}/", [HOST, SAME_ORIGIN])
    opened.append(socket)
    assert (await socket.connect(timeout=TIMEOUT))[0]

    assert (await socket.receive_json_from(timeout=wait / 2))["type"] == "state"


# -- the lobby socket ------------------------------------------------------------------------------


async def test_the_lobby_sends_one_welcome_the_signed_in_one(opened, table, wait):
    _game, first, key = table
    socket = await script(opened, "/ws/lobby/")
    await socket.send_json_to({"type": "auth", "token": key})

    frames = await frames_until_quiet(socket)

    assert [frame["type"] for frame in frames] == ["welcome"]
    assert frames[0]["username"] == first.username
    assert frames[0]["unread"] == 0


async def test_the_lobby_refuses_an_auth_after_its_welcome(opened, table, wait):
    _game, _first, key = table
    socket = await script(opened, "/ws/lobby/")
    await socket.send_json_to({"type": "ping"})
    await socket.send_json_to({"type": "auth", "token": key})

    frames = await frames_until_quiet(socket)

    assert [frame["type"] for frame in frames] == ["welcome", "pong", "error"]
    assert frames[0]["username"] is None
    assert frames[2]["error"] == "Send auth as the first message."
    assert frames[2]["code"] == "conflict"  # the lobby's, as the game socket's

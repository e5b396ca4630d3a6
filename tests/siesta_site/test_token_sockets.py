"""Personal access tokens on the sockets: a token signs a socket in with its scopes (a read-only
token watches but cannot move or chat), and revoking it, or its expiry, closes its sockets (4401)
and only those. Through the whole ASGI application, on the in-memory layer and on Redis."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone
from rest_framework.authtoken.models import Token

from accounts.models import PersonalAccessToken
from accounts.services import personal_token_create, personal_token_revoke
from core import sockets
from games.models import Game
from tests.core.test_sockets import (  # noqa: F401 - fixtures
    TIMEOUT,
    first_frame,
    layer,
    next_error,
    open_socket,
    signed_in_client,
    token_socket,
)
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.games.test_consumers_abuse import closed_with

pytestmark = pytest.mark.django_db(transaction=True)

FIRST_MOVE = "SA1 RB1 HC1"


@pytest.fixture
def table(transactional_db) -> tuple[Any, Game]:
    """Ana, seat 1 and to move, in an active game."""
    ana = UserFactory()
    return ana, make_game(users=[ana, UserFactory()])


@database_sync_to_async
def new_token(user: Any, scopes: list[str]) -> str:
    return personal_token_create(user=user, name="bot", scopes=scopes, expires_at=None).secret


@database_sync_to_async
def turns_played(game: Game) -> int:
    return game.turns.count()


async def signed_in_socket(open_socket, game: Game, key: str):  # noqa: F811
    socket = await token_socket(open_socket, f"/ws/games/{game.pk}/", key)
    auth = await socket.receive_json_from(timeout=TIMEOUT)
    assert auth["type"] == "auth", auth
    # The handshake (docs/sockets.md): the auth's answer, then the game's first state.
    assert (await socket.receive_json_from(timeout=TIMEOUT))["type"] == "state"
    return socket


async def test_a_read_only_token_can_watch_but_not_move(open_socket, table):  # noqa: F811
    ana, game = table
    socket = await signed_in_socket(open_socket, game, await new_token(ana, ["read"]))

    for frame in (
        {"type": "move", "move": FIRST_MOVE, "ply": 0, "id": "m1"},
        {"type": "check", "move": "SA1", "id": "m2"},
        {"type": "hint", "id": "m3"},
        {"type": "resign", "id": "m4"},
        {"type": "chat", "text": "hello", "id": "m5"},
    ):
        await socket.send_json_to(frame)
        error = await next_error(socket)
        assert error["code"] == "missing_scope_play", frame
        assert error["id"] == frame["id"]
        assert error["error"] == "This token does not have the play scope."

    await socket.send_json_to({"type": "sync"})
    state = await socket.receive_json_from(timeout=TIMEOUT)
    assert state["type"] in ("state", "sync")
    assert await turns_played(game) == 0
    await socket.send_json_to({"type": "chat_history"})
    assert (await socket.receive_json_from(timeout=TIMEOUT))["type"] == "chat_history"


async def test_a_play_token_moves(open_socket, table):  # noqa: F811
    ana, game = table
    socket = await signed_in_socket(open_socket, game, await new_token(ana, ["play"]))

    await socket.send_json_to({"type": "move", "move": FIRST_MOVE, "ply": 0, "id": "m1"})

    frames = [await socket.receive_json_from(timeout=TIMEOUT) for _ in range(2)]
    assert {"type": "ack", "id": "m1", "ply": 1, "points": [1, 0]} in frames
    assert await turns_played(game) == 1


async def test_an_invalid_or_expired_token_does_not_sign_in(open_socket, table):  # noqa: F811
    ana, game = table
    key = await new_token(ana, ["play"])
    await database_sync_to_async(
        lambda: PersonalAccessToken.objects.update(expires_at=timezone.now() - timedelta(1))
    )()

    for attempt in (key, key + "x", "siesta_pat_\x00"):
        socket = await token_socket(open_socket, f"/ws/games/{game.pk}/", attempt)
        error = await next_error(socket)
        assert (error["error"], error["code"]) == ("Invalid token.", "authentication_failed")


async def test_revoking_a_token_closes_its_sockets_only(open_socket, table):  # noqa: F811
    ana, game = table
    revoked, kept = await new_token(ana, ["read"]), await new_token(ana, ["play"])
    account_key = (await database_sync_to_async(Token.objects.create)(user=ana)).key
    by_revoked = await signed_in_socket(open_socket, game, revoked)
    by_kept = await signed_in_socket(open_socket, game, kept)
    by_account = await signed_in_socket(open_socket, game, account_key)
    lobby = await token_socket(open_socket, "/ws/lobby/", revoked)
    assert (await lobby.receive_json_from(timeout=TIMEOUT))["username"] == ana.username

    token_id = await database_sync_to_async(
        lambda: PersonalAccessToken.objects.get(digest=sockets._digest(revoked)).pk
    )()
    await database_sync_to_async(personal_token_revoke)(user=ana, token_id=token_id)

    for socket in (by_revoked, lobby):
        assert (await next_error(socket))["error"] == (
            "You were signed out: this connection is closed."
        )
        assert await closed_with(socket) == sockets.CLOSE_SIGNED_OUT
    for socket in (by_kept, by_account):
        assert await socket.receive_nothing(timeout=0.3)
        await socket.send_json_to({"type": "sync"})
        assert (await socket.receive_json_from(timeout=TIMEOUT))["type"] in ("state", "sync")


async def test_an_expired_token_stops_its_socket_at_the_next_check(
    open_socket,  # noqa: F811
    table,
    settings,
):
    settings.SIESTA_WS_AUTH_RECHECK_SECONDS = 0
    ana, game = table
    socket = await signed_in_socket(open_socket, game, await new_token(ana, ["play"]))

    await database_sync_to_async(
        lambda: PersonalAccessToken.objects.update(expires_at=timezone.now())
    )()
    await socket.send_json_to({"type": "sync"})

    assert await closed_with(socket) == sockets.CLOSE_SIGNED_OUT


def test_the_check_of_a_personal_token(table):
    ana, _game = table
    key = personal_token_create(user=ana, name="bot", scopes=["read"], expires_at=None).secret

    assert sockets.credential_valid(ana.pk, "pat", key)
    assert not sockets.credential_valid(UserFactory().pk, "pat", key)
    assert not sockets.credential_valid(ana.pk, "pat", key + "x")


async def test_logging_out_of_the_site_keeps_the_bots_socket(open_socket, table):  # noqa: F811
    ana, game = table
    bot = await signed_in_socket(open_socket, game, await new_token(ana, ["play"]))
    browser = await database_sync_to_async(signed_in_client)(ana)
    page = await open_socket(f"/ws/games/{game.pk}/", client=browser)
    await first_frame(page)

    assert (await database_sync_to_async(browser.post)("/accounts/logout/")).status_code == 302

    assert await closed_with(page) == sockets.CLOSE_SIGNED_OUT
    await bot.send_json_to({"type": "move", "move": FIRST_MOVE, "ply": 0, "id": "m1"})
    frames = [await bot.receive_json_from(timeout=TIMEOUT) for _ in range(2)]
    assert {"type": "ack", "id": "m1", "ply": 1, "points": [1, 0]} in frames

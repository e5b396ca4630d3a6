"""The live-play WebSocket `/ws/games/{id}/` (API.md), driven through the whole ASGI application, so
the Origin check, the session middleware and the routing take part."""

from __future__ import annotations

import asyncio
import copy
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token

from games import services
from games.models import Game
from games.selectors import game_get, game_state
from siesta_site.asgi import application
from tests.factories import PASSWORD, UserFactory
from tests.games.factories import make_game

pytestmark = pytest.mark.django_db(transaction=True)

HOST = (b"host", b"testserver")  # what a browser sends; the Origin check compares with it
SAME_ORIGIN = (b"origin", b"http://testserver")
TIMEOUT = 10  # seconds: two cores shared with other test runs
QUIET = 0.3  # how long "nothing arrives" is waited for

FIRST_MOVE = "SA1 RB1 HC1"  # seat 1 at ply 0: scores (1, 0)
SECOND_MOVE = "HD1 RE1 SF1"  # seat 2 at ply 1: scores (1, 2)


@pytest.fixture(autouse=True)
def _own_channel_layer_prefix(settings):
    """With Redis, keys get a prefix of this test's own, so that other runs sharing the server
    (and games with the same ids there) never reach these sockets. Nothing global is flushed."""
    if django_settings.REDIS_URL:
        layers = copy.deepcopy(settings.CHANNEL_LAYERS)
        layers["default"].setdefault("CONFIG", {})["prefix"] = f"test-{uuid.uuid4().hex}:"
        settings.CHANNEL_LAYERS = layers


@dataclass
class Table:
    game: Game
    first: Any  # seat 1, to move
    second: Any  # seat 2
    watcher: Any  # signed in, no seat


@pytest.fixture
def table(transactional_db) -> Table:
    first, second, watcher = UserFactory(), UserFactory(), UserFactory()
    game = make_game(players=2, users=[first, second])
    return Table(game=game, first=first, second=second, watcher=watcher)


def session_headers(user) -> list[tuple[bytes, bytes]]:
    """Sign in through the login the site uses and hand its session cookie to the socket."""
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    cookie = client.cookies[django_settings.SESSION_COOKIE_NAME].value
    return [(b"cookie", f"{django_settings.SESSION_COOKIE_NAME}={cookie}".encode())]


Connect = Callable[..., Awaitable[WebsocketCommunicator]]


@pytest.fixture
async def connect() -> AsyncIterator[Connect]:
    """Open sockets, each disconnected at the end of the test whatever happened."""
    opened: list[WebsocketCommunicator] = []

    async def _connect(
        game_id: int | str,
        *,
        user: Any = None,
        origin: tuple[bytes, bytes] | None = SAME_ORIGIN,
        expect_refusal: bool = False,
    ) -> WebsocketCommunicator:
        headers = [HOST, origin] if origin else [HOST]
        if user is not None:
            headers += await database_sync_to_async(session_headers)(user)
        communicator = WebsocketCommunicator(application, f"/ws/games/{game_id}/", headers)
        opened.append(communicator)
        connected, _ = await communicator.connect(timeout=TIMEOUT)
        assert connected is not expect_refusal
        return communicator

    yield _connect
    for communicator in opened:
        await communicator.disconnect(timeout=TIMEOUT)


async def receive(communicator: WebsocketCommunicator) -> dict[str, Any]:
    message = await communicator.receive_json_from(timeout=TIMEOUT)
    assert isinstance(message, dict)
    return message


async def receive_state(communicator: WebsocketCommunicator) -> dict[str, Any]:
    message = await receive(communicator)
    assert message["type"] == "state", message
    assert message["version"] == message["game"]["version"]
    return message


async def current_state(game_id: int) -> dict[str, Any]:
    return await database_sync_to_async(lambda: game_state(game_get(game_id)))()


async def seated(connect: Connect, table: Table) -> tuple[WebsocketCommunicator, ...]:
    """Both players and a spectator on the game, their first states read."""
    sockets = (
        await connect(table.game.pk, user=table.first),
        await connect(table.game.pk, user=table.second),
        await connect(table.game.pk, user=table.watcher),
    )
    for socket in sockets:
        await receive_state(socket)
    return sockets


# -- connecting ---------------------------------------------------------------------------------


async def test_players_and_spectator_each_get_the_initial_state(connect, table):
    expected = await current_state(table.game.pk)
    for user in (table.first, table.second, table.watcher, None):
        socket = await connect(table.game.pk, user=user)
        message = await receive_state(socket)
        assert message == {"type": "state", "game": expected, "version": expected["version"]}
        assert message["game"]["status"] == "active"
        assert message["game"]["to_move"] == 1


async def test_unknown_game_closes_with_4404(connect):
    for game_id in (987654321, "not-a-number"):
        socket = await connect(game_id)
        error = await receive(socket)
        assert error["type"] == "error"
        assert error["code"] == "not_found"
        assert str(game_id) in error["error"]
        closed = await socket.receive_output(timeout=TIMEOUT)
        assert closed == {"type": "websocket.close", "code": 4404}


@pytest.mark.parametrize(
    "origin", [(b"origin", b"http://evil.example"), (b"origin", b"null"), (b"origin", b"x")]
)
async def test_foreign_or_opaque_origins_are_refused(connect, table, origin):
    await connect(table.game.pk, user=table.first, origin=origin, expect_refusal=True)


async def test_a_script_without_origin_may_connect_and_watch(connect, table):
    socket = await connect(table.game.pk, origin=None)
    assert (await receive_state(socket))["game"]["id"] == table.game.pk


# -- moves ----------------------------------------------------------------------------------------


async def test_a_move_reaches_everyone_as_the_same_next_version(connect, table):
    first, second, watcher = await seated(connect, table)
    before = await current_state(table.game.pk)

    await first.send_json_to({"type": "move", "move": FIRST_MOVE, "ply": 0, "id": "m1"})

    assert await receive(first) == {"type": "ack", "id": "m1", "ply": 1, "points": [1, 0]}
    states = [await receive_state(socket) for socket in (first, second, watcher)]
    assert states[0] == states[1] == states[2]
    assert states[0]["version"] == before["version"] + 1
    game = states[0]["game"]
    assert (game["ply"], game["to_move"]) == (1, 2)
    assert [s["score"] for s in game["seats"]] == [1, 0]
    assert game["turns"][-1]["move"] == FIRST_MOVE
    assert game == await current_state(table.game.pk)
    for socket in (first, second, watcher):
        assert await socket.receive_nothing(timeout=QUIET)


async def test_an_illegal_move_names_the_cell_to_the_sender_only(connect, table):
    first, second, watcher = await seated(connect, table)
    before = await current_state(table.game.pk)

    await first.send_json_to({"type": "move", "move": "SA1 RL12 HC1", "ply": 0, "id": 7})

    error = await receive(first)
    assert error["type"] == "error"
    assert (error["cell"], error["id"]) == ("L12", 7)
    assert "L12" in error["error"]
    for socket in (first, second, watcher):
        assert await socket.receive_nothing(timeout=QUIET)
    assert await current_state(table.game.pk) == before


async def test_moving_out_of_turn_is_refused(connect, table):
    first, second, watcher = await seated(connect, table)
    before = await current_state(table.game.pk)

    await second.send_json_to({"type": "move", "move": FIRST_MOVE, "ply": 0, "id": "x"})

    error = await receive(second)
    assert error == {
        "type": "error",
        "error": "It is not your turn.",
        "code": "not_allowed",
        "cell": None,
        "id": "x",
    }
    for socket in (first, second, watcher):
        assert await socket.receive_nothing(timeout=QUIET)
    assert await current_state(table.game.pk) == before


async def test_a_stale_ply_is_refused_with_the_current_ply(connect, table):
    first, second, _watcher = await seated(connect, table)
    await first.send_json_to({"type": "move", "move": FIRST_MOVE, "ply": 0, "id": "a"})
    assert (await receive(first))["type"] == "ack"
    await receive_state(first)
    await receive_state(second)
    before = await current_state(table.game.pk)

    # The same submit again (a double click), then seat 2 with a ply from the past.
    await first.send_json_to({"type": "move", "move": FIRST_MOVE, "ply": 0, "id": "a"})
    await second.send_json_to({"type": "move", "move": SECOND_MOVE, "ply": 0, "id": "b"})

    for socket, message_id in ((first, "a"), (second, "b")):
        error = await receive(socket)
        assert (error["type"], error["id"], error["ply"], error["cell"]) == (
            "error",
            message_id,
            1,
            None,
        )
        assert error["code"] == "conflict"  # as REST's 409 for the same stale ply
        assert "ply 1" in error["error"]
    assert await current_state(table.game.pk) == before


async def test_a_spectator_cannot_move(connect, table):
    _first, _second, watcher = await seated(connect, table)
    anonymous = await connect(table.game.pk)
    await receive_state(anonymous)
    before = await current_state(table.game.pk)

    for socket in (watcher, anonymous):
        await socket.send_json_to({"type": "move", "move": FIRST_MOVE, "ply": 0, "id": 1})
        error = await receive(socket)
        assert error["type"] == "error"
        assert error["error"] == "You are not playing in this game."
        assert error["code"] == "not_allowed"
    assert await current_state(table.game.pk) == before


async def test_badly_typed_move_fields_are_named(connect, table):
    first, *_ = await seated(connect, table)
    not_a_number = "The field ply must be a whole number."
    cases = [
        ({"type": "move", "ply": 0}, "The field move is missing."),
        ({"type": "move", "move": FIRST_MOVE}, "The field ply is missing."),
        ({"type": "move", "move": FIRST_MOVE, "ply": "0"}, not_a_number),
        ({"type": "move", "move": FIRST_MOVE, "ply": True}, not_a_number),
        ({"type": "move", "move": FIRST_MOVE, "ply": 0.5}, not_a_number),
        ({"type": "move", "move": ["SA1"], "ply": 0}, "The field move must be a string."),
    ]
    for message, text in cases:
        await first.send_json_to(message)
        assert await receive(first) == {
            "type": "error",
            "error": text,
            "code": "invalid",
            "cell": None,
            "id": None,
        }
    await first.send_json_to({"type": "move", "move": "XZ9", "ply": 0, "id": "n"})
    error = await receive(first)
    assert (error["type"], error["cell"], error["id"]) == ("error", None, "n")
    assert "'X' is not a piece" in error["error"]
    assert error["code"] == "bad_piece"
    assert (await current_state(table.game.pk))["ply"] == 0


# -- signing in -----------------------------------------------------------------------------------


async def test_a_script_signs_in_with_a_token_as_its_first_message(connect, table):
    key = (await database_sync_to_async(Token.objects.create)(user=table.first)).key
    script = await connect(table.game.pk, origin=None)
    await receive_state(script)

    await script.send_json_to({"type": "auth", "token": "wrong"})
    error = await receive(script)
    assert (error["error"], error["code"]) == ("Invalid token.", "authentication_failed")
    await script.send_json_to({"type": "auth", "token": key})
    assert await receive(script) == {"type": "auth", "username": table.first.username}
    await script.send_json_to({"type": "move", "move": FIRST_MOVE, "ply": 0, "id": "s"})

    assert (await receive(script))["type"] == "ack"
    assert (await receive_state(script))["game"]["ply"] == 1


async def test_auth_comes_first_or_not_at_all(connect, table):
    key = (await database_sync_to_async(Token.objects.create)(user=table.first)).key
    late = await connect(table.game.pk, origin=None)
    await receive_state(late)
    await late.send_json_to({"type": "sync"})
    assert (await receive(late))["type"] == "sync"  # the opening state is up to date
    await late.send_json_to({"type": "auth", "token": key})
    error = await receive(late)
    assert (error["error"], error["code"]) == ("Send auth as the first message.", "conflict")

    browser = await connect(table.game.pk, user=table.second)
    await receive_state(browser)
    await browser.send_json_to({"type": "auth", "token": key})
    error = await receive(browser)
    assert (error["error"], error["code"]) == ("This connection is already signed in.", "conflict")

    # Neither could play for seat 1.
    await late.send_json_to({"type": "move", "move": FIRST_MOVE, "ply": 0})
    assert (await receive(late))["error"] == "You are not playing in this game."


# -- versions and sync ----------------------------------------------------------------------------


async def test_the_first_sync_after_connecting_is_up_to_date(connect, table):
    socket = await connect(table.game.pk, user=table.first)
    opening = await receive_state(socket)
    await socket.send_json_to({"type": "sync"})
    assert await receive(socket) == {"type": "sync", "version": opening["version"]}


async def test_sync_returns_the_full_current_state(connect, table):
    first, *_ = await seated(connect, table)
    await first.send_json_to({"type": "sync", "version": -1})  # a page that holds another
    message = await receive_state(first)
    expected = await current_state(table.game.pk)
    assert message == {"type": "state", "game": expected, "version": expected["version"]}


async def test_a_late_watcher_gets_the_current_version(connect, table):
    def play_two_turns() -> None:
        services.game_move_make(game_id=table.game.pk, user=table.first, move=FIRST_MOVE, ply=0)
        services.game_move_make(game_id=table.game.pk, user=table.second, move=SECOND_MOVE, ply=1)

    version_before = (await current_state(table.game.pk))["version"]
    await database_sync_to_async(play_two_turns)()

    late = await connect(table.game.pk, user=table.watcher)
    message = await receive_state(late)
    assert message["version"] == version_before + 2
    assert message["game"]["ply"] == 2
    assert [t["move"] for t in message["game"]["turns"]] == [FIRST_MOVE, SECOND_MOVE]
    assert await late.receive_nothing(timeout=QUIET)


async def test_changes_made_elsewhere_reach_the_sockets(connect, table):
    """A move through the REST API (here: the service it calls) is pushed to every watcher."""
    first, second, watcher = await seated(connect, table)
    version = (await current_state(table.game.pk))["version"]
    await database_sync_to_async(services.game_move_make)(
        game_id=table.game.pk, user=table.first, move=FIRST_MOVE, ply=0
    )
    for socket in (first, second, watcher):
        assert (await receive_state(socket))["version"] == version + 1


# -- robustness -----------------------------------------------------------------------------------


async def test_bad_frames_get_errors_and_the_connection_survives(connect, table):
    first, *_ = await seated(connect, table)
    bad_frames = [
        ("text", "x" * 5000, "Message too large: the limit is 4096 bytes."),
        ("text", '{"type": "move", "move": "' + "é" * 2100 + '"}', "Message too large"),
        ("bytes", b"\x00\x01", "Send JSON text frames, not binary ones."),
        ("text", "{not json", "The message is not valid JSON."),
        ("text", "[1, 2]", 'Send a JSON object with a "type".'),
        ("text", '"move"', 'Send a JSON object with a "type".'),
        ("text", "{}", 'Send a JSON object with a "type".'),
        ("text", '{"type": 3}', 'Send a JSON object with a "type".'),
        ("text", '{"type": "castle", "id": 4}', "Unknown message type castle."),
    ]
    for kind, frame, text in bad_frames:
        if kind == "text":
            await first.send_to(text_data=frame)
        else:
            await first.send_to(bytes_data=frame)
        error = await receive(first)
        assert error["type"] == "error"
        assert error["error"].startswith(text), (frame[:40], error)
    # Still connected and listened to.
    await first.send_json_to({"type": "move", "move": FIRST_MOVE, "ply": 0, "id": "ok"})
    assert (await receive(first))["type"] == "ack"


async def test_deeply_nested_frames_get_an_error_and_the_socket_stays_open(connect, table):
    """3,000 levels closed the socket with 1011 (RecursionError); a few hundred parsed but could
    not be echoed back as the ``id`` of the error."""
    first, *_ = await seated(connect, table)
    frames = [
        "[" * 2000 + "]" * 2000,
        '{"type": "move", "id": ' + "[" * 500 + "]" * 500 + "}",
        '{"type": "castle", "id": ' + '{"a":' * 300 + "1" + "}" * 300 + "}",
    ]
    for frame in frames:
        await first.send_to(text_data=frame)
        error = await receive(first)
        assert error["type"] == "error"
        assert "nested too deeply" in error["error"], error
    await first.send_json_to({"type": "move", "move": FIRST_MOVE, "ply": 0, "id": "ok"})
    assert (await receive(first))["type"] == "ack"


async def test_a_move_after_the_deadline_is_refused_and_everyone_sees_the_timeout(connect, table):
    first, second, _watcher = await seated(connect, table)
    await database_sync_to_async(
        lambda: Game.objects.filter(pk=table.game.pk).update(
            deadline=timezone.now() - timedelta(seconds=2)
        )
    )()

    await first.send_json_to({"type": "move", "move": FIRST_MOVE, "ply": 0, "id": "late"})

    replies = [await receive(first), await receive(first)]
    error = next(r for r in replies if r["type"] == "error")
    state = next(r for r in replies if r["type"] == "state")
    assert (error["id"], error["error"]) == ("late", "The time for this turn ran out.")
    assert state["game"]["result"]["end_reason"] == "timeout"
    assert (await receive_state(second))["game"]["status"] == "finished"


async def test_a_socket_keeps_its_place_in_the_group_past_the_expiry(settings, connect, table):
    """The layer drops group members after ``group_expiry`` (that clears channels a killed server
    left behind); a live socket renews its place, so it still gets every change."""
    layer = {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"group_expiry": 2}}
    settings.CHANNEL_LAYERS = {"default": layer}
    socket = await connect(table.game.pk, origin=None)
    await receive_state(socket)
    await asyncio.sleep(3)

    await database_sync_to_async(services.game_move_make)(
        game_id=table.game.pk, user=table.first, move=FIRST_MOVE, ply=0
    )

    assert (await receive_state(socket))["game"]["ply"] == 1


async def test_errors_echo_the_message_id(connect, table):
    first, *_ = await seated(connect, table)
    await first.send_to(text_data='{"type": "castle", "id": "c-1"}')
    assert (await receive(first))["id"] == "c-1"


# -- hint, resign -------------------------------------------------------------------------------


async def test_a_hint_answers_the_sender_and_marks_the_seat_for_all(connect, table):
    first, second, watcher = await seated(connect, table)
    await first.send_json_to({"type": "hint"})

    replies = [await receive(first), await receive(first)]
    hint = next(m for m in replies if m["type"] == "hint")
    state = next(m for m in replies if m["type"] == "state")
    assert isinstance(hint["move"], str)
    assert hint["points"] >= 1
    assert state["game"]["seats"][0]["hinted"] is True
    for socket in (second, watcher):
        assert await receive_state(socket) == state
        assert await socket.receive_nothing(timeout=QUIET)

    # The hinted move is legal and scores what the hint said.
    await first.send_json_to({"type": "move", "move": hint["move"], "ply": 0, "id": "h"})
    ack = await receive(first)
    assert (ack["type"], ack["points"][0]) == ("ack", hint["points"])


async def test_a_hint_is_for_the_player_to_move_only(connect, table):
    _first, second, watcher = await seated(connect, table)
    await second.send_json_to({"type": "hint"})
    assert (await receive(second))["error"] == "It is not your turn."
    await watcher.send_json_to({"type": "hint"})
    assert (await receive(watcher))["error"] == "You are not playing in this game."
    assert await watcher.receive_nothing(timeout=QUIET)


async def test_resigning_a_two_player_game_finishes_it_for_everyone(connect, table):
    first, second, watcher = await seated(connect, table)
    await second.send_json_to({"type": "resign"})

    states = [await receive_state(socket) for socket in (first, second, watcher)]
    assert states[0] == states[1] == states[2]
    game = states[0]["game"]
    assert game["status"] == "finished"
    assert game["result"]["end_reason"] == "resigned"
    # Resigned before every player had moved: aborted, so nobody won (GameOutcome.aborted).
    assert game["result"]["aborted"] is True
    assert game["result"]["winners"] == []
    assert game["seats"][1]["resigned"] is True

    await second.send_json_to({"type": "resign"})
    assert (await receive(second))["error"] == "Only a game in progress can be resigned."
    await watcher.send_json_to({"type": "resign"})
    assert (await receive(watcher))["error"] == "Only a game in progress can be resigned."


# -- check (browser preview) --------------------------------------------------------------------


async def test_check_previews_points_of_a_partial_and_a_whole_turn(connect, table):
    await database_sync_to_async(services.game_move_make)(
        game_id=table.game.pk, user=table.first, move=FIRST_MOVE, ply=0
    )
    second = await connect(table.game.pk, user=table.second)
    await receive_state(second)
    before = await current_state(table.game.pk)

    expectations = [
        ("HD1", [1, 0], False),
        ("HD1 RE1", [1, 0], False),
        ("hd1 re1 sf1", [1, 2], True),
    ]
    for index, (move, points, complete) in enumerate(expectations):
        await second.send_json_to({"type": "check", "move": move, "id": index})
        assert await receive(second) == {
            "type": "check",
            "id": index,
            "ok": True,
            "points": points,
            "complete": complete,
            "ends_game": False,
        }
    assert await current_state(table.game.pk) == before
    assert await second.receive_nothing(timeout=QUIET)


async def test_check_names_the_cell_of_an_illegal_placement(connect, table):
    first, *_ = await seated(connect, table)
    await first.send_json_to({"type": "check", "move": "SA1 SA1", "id": "p"})
    error = await receive(first)
    assert (error["type"], error["cell"], error["id"]) == ("error", "A1", "p")
    assert error["error"] == "A1 is already occupied"

    await first.send_json_to({"type": "check", "move": "HF5", "id": "q"})
    assert (await receive(first))["cell"] == "F5"


async def test_check_refuses_a_whole_turn_the_move_would_refuse(connect, table):
    first, *_ = await seated(connect, table)
    # Three placements that score nothing: the move would be refused, so the check is too.
    await first.send_json_to({"type": "check", "move": "SA1 RB1 SC1"})
    error = await receive(first)
    assert error["type"] == "error"
    assert "must score at least one" in error["error"]


async def test_check_is_for_the_player_to_move_at_the_current_ply(connect, table):
    first, second, watcher = await seated(connect, table)
    await second.send_json_to({"type": "check", "move": "SF5"})
    assert (await receive(second))["error"] == "It is not your turn."
    await watcher.send_json_to({"type": "check", "move": "SF5"})
    assert (await receive(watcher))["error"] == "You are not playing in this game."
    await first.send_json_to({"type": "check", "move": "SF5", "ply": 3})
    assert (await receive(first))["ply"] == 0
    await first.send_json_to({"type": "check", "move": "SF5", "ply": 0})
    assert (await receive(first))["ok"] is True


async def test_a_refusal_carries_the_engine_code_in_the_players_language(table):
    """The error frame names the cell, gives the engine's code, and speaks the page's language
    (the language cookie), in the site's words."""
    (_, session), *_ = await database_sync_to_async(session_headers)(table.first)
    cookie = session + f"; {django_settings.LANGUAGE_COOKIE_NAME}=es".encode()
    socket = WebsocketCommunicator(
        application, f"/ws/games/{table.game.pk}/", [HOST, SAME_ORIGIN, (b"cookie", cookie)]
    )
    connected, _ = await socket.connect(timeout=TIMEOUT)
    assert connected
    try:
        await receive_state(socket)
        await socket.send_json_to({"type": "check", "move": "SF6 HF7", "id": "c1"})
        error = await receive(socket)
        assert (error["type"], error["id"], error["cell"]) == ("error", "c1", "F7")
        assert error["code"] == "shadow_next_to_sun"
        assert error["error"] == "Una sombra en F7 quedaría junto a un sol"
    finally:
        await socket.disconnect(timeout=TIMEOUT)

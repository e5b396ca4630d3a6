"""The tournament WebSocket `/ws/tournaments/{id}/` (API.md): the state on connect, and a new
version after every change (join, leave, start, a game's end, a new round)."""

from __future__ import annotations

import copy
import uuid
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings

from siesta_site.asgi import application
from tests.factories import UserFactory
from tests.payloads import assert_documented
from tests.tournaments.factories import make_tournament
from tests.tournaments.helpers import finish, round_games
from tournaments import services

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10
QUIET = 0.3


@pytest.fixture(autouse=True)
def _own_channel_layer_prefix(settings):
    if django_settings.REDIS_URL:
        layers = copy.deepcopy(settings.CHANNEL_LAYERS)
        layers["default"].setdefault("CONFIG", {})["prefix"] = f"test-{uuid.uuid4().hex}:"
        settings.CHANNEL_LAYERS = layers


async def _open(path: str) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(
        application, path, headers=[(b"host", b"testserver"), (b"origin", b"http://testserver")]
    )
    connected, _ = await socket.connect(timeout=TIMEOUT)
    assert connected
    return socket


async def _next(socket: WebsocketCommunicator) -> dict:
    return await socket.receive_json_from(timeout=TIMEOUT)


async def test_every_change_pushes_a_new_version():
    tournament = await database_sync_to_async(make_tournament)(players=1, rounds=1)
    socket = await _open(f"/ws/tournaments/{tournament.pk}/")
    try:
        first = await _next(socket)
        assert first["type"] == "tournament"
        assert first["version"] == first["tournament"]["version"] == tournament.version
        assert first["tournament"]["status"] == "scheduled"
        versions = [first["version"]]

        joiner = await database_sync_to_async(UserFactory)()
        await database_sync_to_async(services.tournament_join)(
            tournament_id=tournament.pk, user=joiner
        )
        joined = await _next(socket)
        assert len(joined["tournament"]["players"]) == 2
        versions.append(joined["version"])

        await database_sync_to_async(services.tournament_start)(
            tournament_id=tournament.pk, now=tournament.starts_at + timedelta(seconds=1)
        )
        started = await _next(socket)
        assert started["tournament"]["status"] == "running"
        (game,) = started["tournament"]["pairings"][0]["games"]
        assert game["status"] == "active"
        versions.append(started["version"])

        games = await database_sync_to_async(round_games)(tournament, 1)
        await database_sync_to_async(finish)(games[0])
        ended = await _next(socket)
        assert ended["tournament"]["status"] == "finished"
        assert ended["tournament"]["winners"]
        versions.append(ended["version"])
        assert versions == sorted(set(versions))
        assert await socket.receive_nothing(timeout=QUIET)

        await socket.send_json_to({"type": "sync"})
        again = await _next(socket)
        assert again["version"] == ended["version"]
    finally:
        await socket.disconnect()


async def test_a_sync_with_the_pages_version_says_up_to_date_or_sends_the_newest():
    """A page's check (on focus, after a silence): the version it shows is the newest → ``sync``;
    an older one → the ``tournament`` frame of the newest."""
    tournament = await database_sync_to_async(make_tournament)(players=1, rounds=1)
    socket = await _open(f"/ws/tournaments/{tournament.pk}/")
    try:
        first = await _next(socket)
        assert_documented("tournament", first)
        await socket.send_json_to({"type": "sync", "version": first["version"]})
        up_to_date = await _next(socket)
        assert_documented("tournament", up_to_date)
        assert up_to_date == {"type": "sync", "version": first["version"]}

        joiner = await database_sync_to_async(UserFactory)()
        await database_sync_to_async(services.tournament_join)(
            tournament_id=tournament.pk, user=joiner
        )
        pushed = await _next(socket)
        await socket.send_json_to({"type": "sync", "version": first["version"]})
        newest = await _next(socket)  # the page missed the push: it gets the newest state
        assert newest["type"] == "tournament"
        assert newest["version"] == pushed["version"] > first["version"]
        assert len(newest["tournament"]["players"]) == 2
    finally:
        await socket.disconnect()


async def test_an_unknown_tournament_closes_with_4404():
    socket = WebsocketCommunicator(application, "/ws/tournaments/999999/")
    connected, _ = await socket.connect(timeout=TIMEOUT)
    assert connected
    error = await _next(socket)
    assert (error["type"], error["code"]) == ("error", "not_found")
    closed = await socket.receive_output(timeout=TIMEOUT)
    assert closed == {"type": "websocket.close", "code": 4404}


async def test_the_unknown_tournament_error_is_in_the_reader_language():
    socket = WebsocketCommunicator(
        application, "/ws/tournaments/999999/", headers=[(b"accept-language", b"de")]
    )
    connected, _ = await socket.connect(timeout=TIMEOUT)
    assert connected
    assert (await _next(socket))["error"] == "Dieses Turnier gibt es nicht."
    await socket.receive_output(timeout=TIMEOUT)


async def test_a_foreign_origin_is_refused():
    tournament = await database_sync_to_async(make_tournament)()
    socket = WebsocketCommunicator(
        application,
        f"/ws/tournaments/{tournament.pk}/",
        headers=[(b"origin", b"http://evil.example")],
    )
    connected, _ = await socket.connect(timeout=TIMEOUT)
    assert not connected


async def test_an_invitation_is_watched_only_with_its_token():
    tournament = await database_sync_to_async(make_tournament)(visibility="invite")
    socket = await _open(f"/ws/tournaments/{tournament.pk}/")
    assert (await _next(socket))["type"] == "error"
    closed = await socket.receive_output(timeout=TIMEOUT)
    assert closed == {"type": "websocket.close", "code": 4404}
    socket = await _open(f"/ws/tournaments/{tournament.pk}/?invite={tournament.invite_token}")
    try:
        first = await _next(socket)
        assert first["tournament"]["id"] == tournament.pk
    finally:
        await socket.disconnect()


async def test_the_socket_frame_is_the_rest_payload(client):
    """The frame's ``tournament`` has the keys and values of ``GET /api/tournaments/{id}/``
    (the name in the reader's language too), so a bot reads both alike."""
    tournament = await database_sync_to_async(make_tournament)(players=2, rounds=1)
    rest = await database_sync_to_async(client.get)(f"/api/tournaments/{tournament.pk}/")
    assert rest.status_code == 200
    socket = await _open(f"/ws/tournaments/{tournament.pk}/")
    try:
        frame = (await _next(socket))["tournament"]
    finally:
        await socket.disconnect()
    assert set(frame) == set(rest.json())
    assert frame == rest.json()

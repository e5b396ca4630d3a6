"""Hints hammered over the game socket from many sockets at once, with the engine pool on (real
worker processes): every hint is answered, or refused with an ``error`` frame carrying its
``code`` and ``retry_after``; no socket is closed with 1011 (an exception in the consumer), and
each still answers afterwards. On PostgreSQL the consumers' database threads run the hints side
by side (``SIESTA_DB_THREADS``), so the pool's queue and the search's pickling are used from
many threads at once."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections

from games import engine_budget as engine_budget_module
from siesta_site.asgi import application
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.games.test_consumers import (  # noqa: F401 - fixture
    HOST,
    SAME_ORIGIN,
    TIMEOUT,
    _own_channel_layer_prefix,
    session_headers,
)

pytestmark = pytest.mark.django_db(transaction=True)

SOCKETS = 10
HINTS = 4  # sent at once by each socket
ADDRESSES = ("198.51.100.1", "198.51.100.2")
REFUSALS = {"engine_budget", "engine_queue", "engine_busy"}


async def player_socket(address: str) -> WebsocketCommunicator:
    """A socket of the player to move in a new game, from ``address``, its first state read."""

    def setup() -> tuple[int, list[tuple[bytes, bytes]]]:
        first, second = UserFactory(), UserFactory()
        game = make_game(players=2, users=[first, second])
        return game.pk, session_headers(first)

    game_id, cookies = await database_sync_to_async(setup)()
    socket = WebsocketCommunicator(
        application, f"/ws/games/{game_id}/", [HOST, SAME_ORIGIN, *cookies]
    )
    socket.scope["client"] = (address, 40000)
    connected, _ = await socket.connect(timeout=TIMEOUT)
    assert connected
    first = await socket.receive_json_from(timeout=TIMEOUT)
    assert first["type"] == "state"
    return socket


async def hammer(socket: WebsocketCommunicator, tag: str) -> list[dict[str, Any]]:
    """Send ``HINTS`` hints at once; the reply to each (state frames in between are skipped)."""
    ids = [f"{tag}-{n}" for n in range(HINTS)]
    for message_id in ids:
        await socket.send_json_to({"type": "hint", "id": message_id})
    replies: dict[str, dict[str, Any]] = {}
    while len(replies) < len(ids):
        frame = await socket.receive_json_from(timeout=90)  # queued behind the others' searches
        if frame["type"] in {"hint", "error"}:
            assert frame["id"] not in replies, frame
            replies[frame["id"]] = frame
        else:
            assert frame["type"] == "state", frame
    return [replies[message_id] for message_id in ids]


async def test_hints_from_many_sockets_are_answered_or_refused_with_a_retry(
    engine_budget, pool, settings
):
    settings.SIESTA_ENGINE_BUDGET = 0.05  # a few searches each, then refusals
    settings.SIESTA_ENGINE_ADDRESS_BUDGET = 0.5
    settings.SIESTA_ENGINE_ADDRESS_QUEUE = 3
    sockets = [await player_socket(ADDRESSES[n % 2]) for n in range(SOCKETS)]
    try:
        results = await asyncio.gather(
            *(hammer(socket, f"s{n}") for n, socket in enumerate(sockets))
        )

        replies = [reply for socket_replies in results for reply in socket_replies]
        assert len(replies) == SOCKETS * HINTS
        answered = [r for r in replies if r["type"] == "hint"]
        refused = [r for r in replies if r["type"] == "error"]
        assert answered, "some hints are answered"
        for hint in answered:
            assert hint["move"]
        for error in refused:
            assert error["code"] in REFUSALS, error
            assert isinstance(error["retry_after"], int), error
            assert error["retry_after"] >= 1, error
            assert error["error"]
        assert engine_budget_module.QUEUE.counts() == (0, 0)

        # No socket was closed: each answers a sync with its state.
        for socket in sockets:
            assert await socket.receive_nothing(timeout=0.1)
            await socket.send_json_to({"type": "sync"})
            assert (await socket.receive_json_from(timeout=TIMEOUT))["type"] in {"state", "sync"}
    finally:
        for socket in sockets:
            await socket.disconnect(timeout=TIMEOUT)
        await database_sync_to_async(connections.close_all)()

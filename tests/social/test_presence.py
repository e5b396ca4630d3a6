"""Presence: a heartbeat keeps a person online for PRESENCE_TTL seconds, in memory under
``make run`` and in Redis under the full stack; the lobby socket sends it; the API and the home
page show it."""

from __future__ import annotations

import time
import uuid

import pytest
from channels.db import database_sync_to_async
from django.conf import settings

from social import presence
from social.presence import PRESENCE_TTL, MemoryPresence, RedisPresence
from tests.factories import UserFactory
from tests.social.sockets import receive


@pytest.fixture
def fresh_store(monkeypatch):
    """This process's store, emptied (Redis: a key of this test's own)."""
    if settings.REDIS_URL:
        store = RedisPresence(settings.REDIS_URL, key=f"test-presence-{uuid.uuid4().hex}")
    else:
        store = MemoryPresence()
    monkeypatch.setattr(presence, "_store", store)
    yield store
    store.clear()


def check_expiry(store):
    now = time.time()
    store.touch(1, now=now)
    store.touch(2, now=now - PRESENCE_TTL + 5)  # heard from a while ago
    assert store.online([1, 2, 3], now=now) == {1, 2}
    assert store.count(now=now) == 2
    later = now + 10
    assert store.online([1, 2, 3], now=later) == {1}
    assert store.count(now=later) == 1
    store.touch(2, now=later)  # a new heartbeat brings them back
    assert store.online([1, 2], now=later) == {1, 2}
    assert store.count(now=now + PRESENCE_TTL + 20) == 0


def test_memory_presence_expires():
    check_expiry(MemoryPresence())


@pytest.mark.requires_redis
def test_redis_presence_expires_and_is_shared():
    key = f"test-presence-{uuid.uuid4().hex}"
    one, other = RedisPresence(settings.REDIS_URL, key), RedisPresence(settings.REDIS_URL, key)
    try:
        check_expiry(one)
        one.touch(7)
        assert other.online([7]) == {7}  # another server process sees it
        assert 0 < one.client.ttl(key) <= PRESENCE_TTL * 2  # nothing lingers in Redis
    finally:
        one.clear()


@pytest.mark.django_db
def test_presence_api_and_home_count(client, fresh_store):
    ana, _bo = UserFactory(username="ana"), UserFactory(username="bo")
    fresh_store.touch(ana.pk)
    answer = client.get("/api/presence/?users=ana,bo,nobody").json()
    assert answer == {"online": 1, "users": {"ana": True, "bo": False, "nobody": False}}
    assert "1 player online" in client.get("/").content.decode()


@pytest.mark.django_db(transaction=True)
async def test_the_lobby_socket_is_the_heartbeat(sockets, fresh_store):
    ana = await database_sync_to_async(UserFactory)()
    visitor = await sockets.open("/ws/lobby/")
    assert (await receive(visitor))["online"] == 0
    page = await sockets.open("/ws/lobby/", user=ana)
    welcome = await receive(page)
    assert welcome["username"] == ana.username
    assert welcome["online"] == 1
    await visitor.send_json_to({"type": "ping"})
    assert await receive(visitor) == {"type": "pong", "online": 1}
    await page.send_json_to({"type": "what"})
    assert (await receive(page))["type"] == "error"

"""The Redis channel layer waits for a free connection instead of failing: many watchers joining
at once (more than the pool holds) all get in."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from django.conf import settings

from siesta_site.channel_layer import RedisChannelLayer

pytestmark = pytest.mark.requires_redis


async def test_more_joins_at_once_than_connections_all_succeed():
    layer = RedisChannelLayer(
        hosts=[{"address": settings.REDIS_URL, "max_connections": 2, "timeout": 10}],
        prefix=f"test-{uuid.uuid4().hex}:",
    )
    group = "game.1"
    channels = [await layer.new_channel() for _ in range(50)]
    try:
        await asyncio.gather(*(layer.group_add(group, c) for c in channels))
        await layer.group_send(group, {"type": "game.state", "n": 1})
        received = await asyncio.gather(*(layer.receive(c) for c in channels[:5]))
        assert [m["n"] for m in received] == [1] * 5
    finally:
        await asyncio.gather(*(layer.group_discard(group, c) for c in channels))
        await layer.flush()


def test_the_site_layer_is_sized_and_keeps_many_messages():
    if not settings.REDIS_URL:
        pytest.skip("the Redis layer is configured only with REDIS_URL")
    config = settings.CHANNEL_LAYERS["default"]["CONFIG"]
    assert settings.CHANNEL_LAYERS["default"]["BACKEND"].endswith("channel_layer.RedisChannelLayer")
    assert config["hosts"][0]["max_connections"] >= 32
    assert config["capacity"] >= 1000


async def test_group_send_keeps_the_layers_expiry_and_capacity():
    """The two-round-trip group_send behaves as channels_redis's: members past ``group_expiry``
    get nothing, a process's inbox at ``capacity`` drops the message, everyone else gets it once."""
    prefix = f"test-{uuid.uuid4().hex}:"
    config = {"hosts": [{"address": settings.REDIS_URL}], "prefix": prefix, "group_expiry": 60}
    layer, other = RedisChannelLayer(**config, capacity=1), RedisChannelLayer(**config, capacity=1)
    group = "game.2"
    live, expired = await layer.new_channel(), await layer.new_channel()
    full = await other.new_channel()  # another process, whose inbox is full
    try:
        for channel in (live, full, expired):
            await layer.group_add(group, channel)
        connection = layer.connection(layer.consistent_hash(group))
        await connection.zadd(layer._group_key(group), {expired: 1})  # joined long ago
        await other.send(full, {"type": "game.state", "n": 0})
        await layer.group_send(group, {"type": "game.state", "n": 1})
        assert (await layer.receive(live))["n"] == 1
        assert (await other.receive(full))["n"] == 0
        members = await connection.zrange(layer._group_key(group), 0, -1)
        assert sorted(m.decode() for m in members) == sorted([live, full])
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(other.receive(full), 0.5)
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(layer.receive(expired), 0.5)
    finally:
        await layer.flush()

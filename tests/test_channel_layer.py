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

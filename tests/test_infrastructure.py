"""The real services behind the settings: PostgreSQL and the Redis channel layer."""

import pytest
from channels.layers import get_channel_layer
from django.db import connection


@pytest.mark.requires_postgres
@pytest.mark.django_db
def test_database_is_postgres():
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


async def test_channel_layer_round_trip():
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "ping", "n": 1})
    assert await layer.receive(channel) == {"type": "ping", "n": 1}


@pytest.mark.requires_redis
def test_channel_layer_is_redis():
    from channels_redis.core import RedisChannelLayer

    assert isinstance(get_channel_layer(), RedisChannelLayer)

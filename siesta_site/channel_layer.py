"""The Redis channel layer with a blocking connection pool.

channels_redis builds a plain ``redis.asyncio.ConnectionPool`` per event loop, which raises
``ConnectionError: Too many connections`` past ``max_connections``: with hundreds of watchers
connecting at once, their ``group_add`` calls failed and the sockets closed with 1011. A
``BlockingConnectionPool`` makes a call wait (up to ``timeout`` seconds) for a free connection.
"""

from __future__ import annotations

from typing import Any

from channels_redis.core import RedisChannelLayer as _RedisChannelLayer
from redis import asyncio as aioredis


class RedisChannelLayer(_RedisChannelLayer):  # type: ignore[misc]
    def create_pool(self, index: int) -> Any:
        host = dict(self.hosts[index])
        if "address" not in host:
            return super().create_pool(index)
        address = host.pop("address")
        return aioredis.BlockingConnectionPool.from_url(address, **host)

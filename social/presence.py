"""Who is online: people with a page open (the lobby socket's heartbeat) in the last
``PRESENCE_TTL`` seconds.

Under the full stack (``REDIS_URL``) one Redis sorted set holds each person's expiry time, shared
by every server process; stale members are dropped as they are read. Under ``make run`` (no Redis)
a dict in the process does the same."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterable

import redis
from django.conf import settings

PRESENCE_TTL = 70.0
"""Seconds a heartbeat keeps someone online; pages send one every 25 s."""

REDIS_KEY = "siesta:presence"


class MemoryPresence:
    def __init__(self) -> None:
        self._until: dict[int, float] = {}
        self._lock = threading.Lock()

    def touch(self, user_id: int, *, now: float | None = None) -> None:
        now = time.time() if now is None else now
        with self._lock:
            self._until[user_id] = now + PRESENCE_TTL

    def leave(self, user_id: int) -> None:
        with self._lock:
            self._until.pop(user_id, None)

    def _prune(self, now: float) -> None:
        for user_id in [u for u, until in self._until.items() if until <= now]:
            del self._until[user_id]

    def online(self, user_ids: Iterable[int], *, now: float | None = None) -> set[int]:
        now = time.time() if now is None else now
        with self._lock:
            self._prune(now)
            return {u for u in user_ids if u in self._until}

    def count(self, *, now: float | None = None) -> int:
        now = time.time() if now is None else now
        with self._lock:
            self._prune(now)
            return len(self._until)

    def clear(self) -> None:
        with self._lock:
            self._until.clear()


class RedisPresence:
    def __init__(self, url: str, key: str = REDIS_KEY) -> None:
        self.client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        self.key = key

    def touch(self, user_id: int, *, now: float | None = None) -> None:
        now = time.time() if now is None else now
        pipe = self.client.pipeline()
        pipe.zadd(self.key, {str(user_id): now + PRESENCE_TTL})
        # The whole set goes if no one touches it for a while (nothing lingers in Redis).
        pipe.expire(self.key, int(PRESENCE_TTL) * 2)
        pipe.execute()

    def leave(self, user_id: int) -> None:
        self.client.zrem(self.key, str(user_id))

    def online(self, user_ids: Iterable[int], *, now: float | None = None) -> set[int]:
        ids = list(user_ids)
        if not ids:
            return set()
        now = time.time() if now is None else now
        scores = self.client.zmscore(self.key, [str(u) for u in ids])
        return {u for u, until in zip(ids, scores, strict=True) if until and until > now}

    def count(self, *, now: float | None = None) -> int:
        now = time.time() if now is None else now
        self.client.zremrangebyscore(self.key, "-inf", now)
        return int(self.client.zcard(self.key))

    def clear(self) -> None:
        self.client.delete(self.key)


_store: MemoryPresence | RedisPresence | None = None
_store_lock = threading.Lock()


def store() -> MemoryPresence | RedisPresence:
    """The presence store of this process: Redis when ``REDIS_URL`` is set, else memory."""
    global _store
    with _store_lock:
        if _store is None:
            url = settings.REDIS_URL
            _store = RedisPresence(url) if url else MemoryPresence()
        return _store


def touch(user_id: int) -> None:
    # Presence is a nicety: Redis being away must not fail a page or a socket.
    with contextlib.suppress(redis.RedisError):
        store().touch(user_id)


def online_ids(user_ids: Iterable[int]) -> set[int]:
    try:
        return store().online(user_ids)
    except redis.RedisError:
        return set()


def online_count() -> int:
    try:
        return store().count()
    except redis.RedisError:
        return 0

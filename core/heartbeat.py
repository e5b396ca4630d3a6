"""The process heartbeat: a daemon thread that beats while the database and Redis answer.

Infrastructure shared by every process (it knows no app): each serving process starts one on
its first request (``start_heartbeat``; the Celery workers and beat do not beat: a beat says a
process able to take a move is up, docs/reliability.md). Every
``SIESTA_HEARTBEAT_SECONDS`` it checks that Redis answers (when ``REDIS_URL`` is set) and calls
the function named by ``SIESTA_HEARTBEAT_BEAT`` (``games.services.site_heartbeat``: it writes the
beat to the database, and turns a gap in it into an outage the turn clocks do not charge). A beat
that fails (the database or Redis is down) is skipped: the gap it leaves is the outage.

Off with ``SIESTA_HEARTBEAT=0`` (tests turn it off, and start none).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connections
from django.utils.module_loading import import_string

from core.inprocess import Daemon

logger = logging.getLogger(__name__)


def redis_answers() -> bool:
    """Whether Redis (the broker, the channel layer, the cache) answers a PING within a second;
    True without Redis."""
    url = getattr(settings, "REDIS_URL", None)
    if not url:
        return True
    import redis

    client = redis.Redis.from_url(url, socket_timeout=1.0, socket_connect_timeout=1.0)
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False
    finally:
        client.close()


def beat_once() -> bool:
    """One beat: Redis answers, then the site's beat function runs. Returns whether it beat."""
    if not redis_answers():
        return False
    import_string(settings.SIESTA_HEARTBEAT_BEAT)()
    return True


class Heartbeat(Daemon):
    """Beats every ``tick`` seconds in a daemon thread, until stopped."""

    thread_name = "siesta-heartbeat"

    def _run(self) -> None:
        failing = False
        while True:
            try:
                beat_once()
                if failing:
                    logger.warning("heartbeat: the site answers again")
                failing = False
            except Exception as exc:  # the database is down: no beat, the gap is the outage
                if not failing:
                    logger.warning("heartbeat: no beat (%s)", exc)
                failing = True
                connections.close_all()  # a broken connection is not reused
            finally:
                close_old_connections()
            if self._stop.wait(self.tick):
                break
        connections.close_all()


_heartbeat: Heartbeat | None = None
_lock = threading.Lock()


def start_heartbeat(**_signal_kwargs: Any) -> Heartbeat | None:
    """Start, once per process, the heartbeat thread when ``SIESTA_HEARTBEAT`` is on. Connected
    to ``request_started`` (serving processes only). Returns the heartbeat this call started,
    if any."""
    global _heartbeat
    if _heartbeat is not None or not getattr(settings, "SIESTA_HEARTBEAT", False):
        return None
    with _lock:
        if _heartbeat is not None:
            return None
        _heartbeat = Heartbeat(float(settings.SIESTA_HEARTBEAT_SECONDS))
        _heartbeat.start()
    return _heartbeat


def stop_heartbeat() -> None:
    """Stop this process's heartbeat (tests)."""
    global _heartbeat
    with _lock:
        heartbeat, _heartbeat = _heartbeat, None
    if heartbeat is not None:
        heartbeat.stop()

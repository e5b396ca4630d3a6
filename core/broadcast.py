"""Sending to a Channels group from synchronous code after a commit: one place for every app.

A channel layer that is away (Redis down) is logged, never raised: the change it announces has
committed already, and watchers catch up with ``sync`` (the version tells them what they missed).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from typing import Any

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer

from core.metrics import BROADCAST_FAILURES

logger = logging.getLogger(__name__)

_failures = 0


def _count_failure() -> None:
    global _failures
    _failures += 1
    BROADCAST_FAILURES.inc()


def failure_count() -> int:
    """Broadcasts that failed in this process since it started (``/health/``)."""
    return _failures


def group_send(group: str, event: Mapping[str, Any]) -> bool:
    """Send ``event`` to a Channels group; False (logged) without a layer or when it fails."""
    layer = get_channel_layer()
    if layer is None:
        return False
    try:
        layer_group_send(layer, group, dict(event))
    except Exception:
        _count_failure()
        logger.warning(
            "could not broadcast %s to group %s", event.get("type"), group, exc_info=True
        )
        return False
    return True


def layer_group_send(layer: Any, group: str, event: dict[str, Any]) -> None:
    """``async_to_sync(layer.group_send)(group, event)``, cheaper from a worker thread.

    In a thread that runs sync code for the event loop (``db_call``, ``sync_to_async``) the send is
    handed to that loop and waited for, without asgiref's per-call machinery (an executor for the
    thread, copied contexts, a task per call): a hop that cost about a tenth of a move's CPU. The
    send needs neither this thread nor its context. Anywhere else (a Celery worker, a command), or
    should asgiref stop keeping its loop where this looks, ``async_to_sync`` runs it.

    The Redis layer (``core.channel_layer``) sends from this thread instead, on a plain
    connection of the thread: no hop and no event loop at all."""
    if getattr(layer, "sends_sync", False):
        layer.group_send_sync(group, event)
        return
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    pid = getattr(SyncToAsync.threadlocal, "main_event_loop_pid", None)
    if loop is not None and pid == os.getpid() and loop.is_running():
        asyncio.run_coroutine_threadsafe(layer.group_send(group, event), loop).result()
    else:
        async_to_sync(layer.group_send)(group, event)

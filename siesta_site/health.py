"""``/health/``: the operator's view of one web process, for nginx and the containers' checks.

``{"status": "ok"|"degraded"|"down", "checks": {"database", "redis", "channel_layer", "queues",
"broadcast_failures"}}``. A check that ran is ``{"ok": bool, "ms": float}`` (with ``"error"``, the
exception's class only, when it failed); Redis and the queues are ``"not configured"`` without
``REDIS_URL`` (``make run``), where the in-memory channel layer's round trip still runs.

The database down is ``down`` and HTTP 503: this process cannot serve a page. Redis, the channel
layer or the queues failing is ``degraded`` and still 200: pages work, while live updates and queued
work wait (watchers catch up with ``sync``, the periodic sweeps send lost tasks again).

Who sees what: anyone gets ``{"status"}`` alone (and the HTTP status), which is all a load
balancer or a container's probe needs; the checks are shown only to staff (signed in) or to a
caller presenting ``SIESTA_HEALTH_TOKEN`` in the ``X-Health-Token`` header.

Cheap under a flood: the report is computed at most once per ``SIESTA_HEALTH_CACHE_SECONDS`` (1 s)
per process and every answer in between is served from it, by an async view that touches neither
the database nor a thread while the report is fresh (nginx also limits ``/health/`` per address).
No session is written, no CSRF token, no DRF throttle, and the view is exempt from the HTTPS
redirect (``SECURE_REDIRECT_EXEMPT``). Each check is bounded by ``CHECK_SECONDS``, except the
database's, which waits as long as a page would (the pool's ``DJANGO_DB_POOL_TIMEOUT``; a probe
gives up first, which counts as a failure too).
"""

from __future__ import annotations

import asyncio
import functools
import hmac
import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import redis
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from core.broadcast import failure_count

logger = logging.getLogger(__name__)

CHECK_SECONDS = 2.0
"""The longest a Redis command or the channel layer's round trip may take."""

NOT_CONFIGURED = "not configured"

TOKEN_HEADER = "X-Health-Token"
"""The header in which a monitoring system presents ``SIESTA_HEALTH_TOKEN`` for the details."""


def _timed(name: str, check: Callable[[], object]) -> dict[str, Any]:
    """Run ``check``: ``{"ok", "ms"}``, and the exception's class as ``error`` when it raised (its
    message, which may name hosts, goes to the log only)."""
    start = time.perf_counter()
    try:
        check()
    except Exception as exc:
        logger.warning("health check %s failed", name, exc_info=True)
        result: dict[str, Any] = {"ok": False, "error": type(exc).__name__}
    else:
        result = {"ok": True}
    result["ms"] = round((time.perf_counter() - start) * 1000, 1)
    return result


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


@functools.cache
def _redis(url: str) -> redis.Redis:
    """One client (and connection pool) per process for the probes."""
    return redis.Redis.from_url(
        url, socket_timeout=CHECK_SECONDS, socket_connect_timeout=CHECK_SECONDS
    )


def queue_names() -> list[str]:
    """Celery's queues: those of ``SIESTA_TASK_QUEUES`` and the default one."""
    routed = set(getattr(settings, "SIESTA_TASK_QUEUES", {}).values())
    return sorted(routed | {settings.CELERY_TASK_DEFAULT_QUEUE})


def _queue_lengths(client: redis.Redis) -> dict[str, int]:
    """Tasks waiting in each queue: Celery's Redis transport keeps a queue as a list of its name
    (tasks sent with a priority go to lists of their own, which nothing here sends)."""
    names = queue_names()
    pipeline = client.pipeline(transaction=False)
    for name in names:
        pipeline.llen(name)
    return dict(zip(names, (int(n) for n in pipeline.execute()), strict=True))


async def _round_trip(layer: Any) -> None:
    """Send to a fresh channel and receive it back. A channel of no process (no ``!``), so that
    with Redis the message really goes there and back."""
    channel = f"health.{uuid.uuid4().hex}"
    token = uuid.uuid4().hex
    async with asyncio.timeout(CHECK_SECONDS):
        await layer.send(channel, {"type": "health.ping", "token": token})
        message = await layer.receive(channel)
    if message.get("token") != token:
        raise RuntimeError("the channel layer gave back another message")


def health_report() -> tuple[str, dict[str, Any]]:
    """The overall status and every check's result."""
    checks: dict[str, Any] = {"database": _timed("database", _database)}
    url = settings.REDIS_URL
    if url:
        client = _redis(url)
        checks["redis"] = _timed("redis", client.ping)
        lengths: dict[str, int] = {}
        queues = _timed("queues", lambda: lengths.update(_queue_lengths(client)))
        checks["queues"] = lengths if queues["ok"] else queues
    else:
        checks["redis"] = checks["queues"] = NOT_CONFIGURED
    layer = get_channel_layer()
    if layer is None:
        checks["channel_layer"] = NOT_CONFIGURED
    else:
        checks["channel_layer"] = _timed("channel layer", lambda: async_to_sync(_round_trip)(layer))
    checks["broadcast_failures"] = failure_count()

    if not checks["database"]["ok"]:
        status = "down"
    elif any(
        isinstance(checks[name], dict) and checks[name].get("ok") is False
        for name in ("redis", "queues", "channel_layer")
    ):
        status = "degraded"
    else:
        status = "ok"
    return status, checks


class ReportCache:
    """The last report of this process and when it was made: one computation per
    ``SIESTA_HEALTH_CACHE_SECONDS``, however many probes ask meanwhile. ``clock`` is injectable."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._report: tuple[str, dict[str, Any]] | None = None
        self._made = 0.0

    def fresh(self) -> tuple[str, dict[str, Any]] | None:
        """The last report while it is younger than the setting, else None."""
        seconds = float(getattr(settings, "SIESTA_HEALTH_CACHE_SECONDS", 1.0))
        if self._report is not None and self.clock() - self._made < seconds:
            return self._report
        return None

    def get(self) -> tuple[str, dict[str, Any]]:
        """A fresh report, computing one if needed (probes arriving meanwhile wait for it and
        take it rather than computing their own)."""
        with self._lock:
            report = self.fresh()
            if report is None:
                report = health_report()
                self._report, self._made = report, self.clock()
            return report

    def clear(self) -> None:
        with self._lock:
            self._report = None


reports = ReportCache()


async def _sees_details(request: HttpRequest) -> bool:
    """Staff signed in, or the configured token in ``X-Health-Token`` (compared in constant time).
    The session is looked at only when the request has one, and a session that cannot be read
    (the database down) shows nothing."""
    token = str(getattr(settings, "SIESTA_HEALTH_TOKEN", "") or "")
    presented = request.headers.get(TOKEN_HEADER, "")
    if token and presented and hmac.compare_digest(presented.encode(), token.encode()):
        return True
    if settings.SESSION_COOKIE_NAME not in request.COOKIES or not hasattr(request, "auser"):
        return False
    try:
        user = await request.auser()
    except Exception:
        logger.warning("health: the caller's session could not be read", exc_info=True)
        return False
    return bool(user.is_staff)


@never_cache
@require_safe
async def health(request: HttpRequest) -> HttpResponse:
    report = reports.fresh()
    if report is None:
        report = await sync_to_async(reports.get)()
    status, checks = report
    body: dict[str, Any] = {"status": status}
    if await _sees_details(request):
        body["checks"] = checks
    return JsonResponse(body, status=503 if status == "down" else 200)

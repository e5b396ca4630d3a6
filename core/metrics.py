"""The site's Prometheus metrics (docs/operations.md, "Metrics"): defined here, moved where the
things they count happen, exposed by ``/metrics`` (``siesta_site.metrics``).

Two modes, chosen by the environment when the process starts:

- ``PROMETHEUS_MULTIPROC_DIR`` set (``make up``, the containers): every process of the box (the
  web processes, the Celery workers and their children, beat) writes its values to files of its
  own in that directory, and a scrape of any web process adds them all up: one scrape reports the
  whole box. The directory is emptied when the stack starts (deploy/up.sh); a process that exits
  removes its live gauges (``process_exit``). The files are named by host and process id
  (``process_identifier``), so containers that share the directory never write the same file.
- Unset (``make run``, the tests): plain in-memory values of this one process.

Gauges of the state of a process (its database pool, its channel layer's buffers) are read by
``sample``: at each scrape in the process that answers, and every ``SAMPLE_SECONDS`` by a thread
in each process of the multiprocess mode (``start_process``), so that the others' are fresh too.
The Celery queues' lengths are read from Redis at the scrape (``siesta_site.metrics``).
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import logging
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from prometheus_client import Counter, Gauge, Histogram, disable_created_metrics, values

logger = logging.getLogger(__name__)

MULTIPROC_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None
"""The directory of the multiprocess mode, or None: one process's in-memory values."""

SAMPLE_SECONDS = float(os.environ.get("SIESTA_METRICS_SAMPLE_SECONDS") or 5.0)

_HOST = re.sub(r"[^A-Za-z0-9.-]", "-", socket.gethostname()) or "host"


def process_identifier() -> str:
    """This process in the multiprocess directory's file names: the host and the process id (no
    ``_``, which separates the parts of a file's name). Containers sharing the directory each
    have process 1: the host name (the container's) tells them apart."""
    return f"{_HOST}-{os.getpid()}"


# No ``*_created`` series beside every counter and histogram: the dashboards do not use them.
disable_created_metrics()  # type: ignore[no-untyped-call]

if MULTIPROC_DIR:
    # Before any metric is made: prometheus_client picks the value class at its import, by pid.
    values.ValueClass = values.MultiProcessValue(  # type: ignore[no-untyped-call]
        process_identifier=process_identifier
    )
    with contextlib.suppress(OSError):  # unwritable: the first metric says so
        os.makedirs(MULTIPROC_DIR, exist_ok=True)
else:
    # Set but empty: prometheus_client would write its files in the current directory.
    values.ValueClass = values.MutexValue

# -- the metrics --------------------------------------------------------------------------------

MOVE_SECONDS = Histogram(
    "siesta_move_seconds",
    "A move over the game socket: from its frame's arrival to the mover's ack, which is sent "
    "once the move is written and its state broadcast (handed to the channel layer).",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5, 5.0),
)
SOCKETS_OPEN = Gauge(
    "siesta_sockets_open",
    "WebSockets accepted and not yet closed, by kind (game, tournament, lobby).",
    ["kind"],
    multiprocess_mode="livesum",
)
SOCKET_MESSAGES = Counter(
    "siesta_socket_messages",
    "Frames received from clients over WebSockets, by kind of socket (dropped ones too).",
    ["kind"],
)
LAYER_BUFFERED = Gauge(
    "siesta_channel_layer_buffered_messages",
    "Messages delivered to this process's channels and not yet read by their consumers (sampled).",
    multiprocess_mode="livesum",
)
BROADCAST_FAILURES = Counter(
    "siesta_broadcast_failures",
    "Group sends that failed (the channel layer away); core.broadcast.",
)
TASK_SECONDS = Histogram(
    "siesta_task_seconds",
    "Celery tasks' run time in the worker, by task and final state.",
    ["task", "state"],
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0),
)
ENGINE_CPU_SECONDS = Counter(
    "siesta_engine_cpu_seconds",
    "CPU seconds of engine work charged to callers' budgets (hints, analysis, puzzle checks).",
)
ENGINE_REFUSALS = Counter(
    "siesta_engine_refusals",
    "Engine calls refused: engine_budget (the caller's budget spent), engine_busy (not started "
    "in time), engine_limit (stopped at the CPU cap).",
    ["code"],
)
DB_POOL_CONNECTIONS = Gauge(
    "siesta_db_pool_connections",
    "The database connection pools (psycopg_pool) of the live processes: max (their size "
    "limit), open, idle (open and not lent). Sampled.",
    ["state"],
    multiprocess_mode="livesum",
)
DB_POOL_WAITING = Gauge(
    "siesta_db_pool_waiting",
    "Threads waiting for a connection from a pool now (sampled).",
    multiprocess_mode="livesum",
)
DB_POOL_ERRORS = Gauge(
    "siesta_db_pool_errors",
    "Connection requests that failed (timed out) since each live process started (sampled).",
    multiprocess_mode="livesum",
)
PLAYERS_OUT = Counter(
    "siesta_players_out",
    "Players put out of a game, by reason: timeout (turn time ran out), forfeit (a missed first "
    "turn of a game with a grace period), resigned.",
    ["reason"],
)
PROCESS_START = Gauge(
    "siesta_process_start_time_seconds",
    "When the newest process of each role started (Unix time): a change is a restart.",
    ["role"],
    multiprocess_mode="max",
)
PROCESS_FIRST_START = Gauge(
    "siesta_process_first_start_time_seconds",
    "When the first process of each role started since the stack did (Unix time): a restart is "
    "a newest start well after it.",
    ["role"],
    multiprocess_mode="min",
)

# -- helpers for the places that move them ------------------------------------------------------


@contextmanager
def timed(histogram: Histogram) -> Iterator[None]:
    """Observe the block's wall time when it completes (not when it raises)."""
    began = time.perf_counter()
    yield
    histogram.observe(time.perf_counter() - began)


def inbox_depth(layer: Any) -> int:
    """Messages waiting in this process's buffers of ``layer`` (channels_redis's and the site's
    Redis layer: ``receive_buffer``; the in-memory layer: ``channels``). A snapshot of the
    queues' lengths, read without a lock: an estimate, as a gauge is."""
    buffers = getattr(layer, "receive_buffer", None)
    if buffers is not None:
        queues = list(buffers.values())
    else:
        queues = [
            entry[1] if isinstance(entry, tuple) else entry
            for entry in list(getattr(layer, "channels", {}).values())
        ]
    return sum(q.qsize() for q in queues if hasattr(q, "qsize"))


def _pools() -> list[Any]:
    """The psycopg_pool pools this process has opened (Django makes one per database alias, on
    first use; a process that has used no database has none, and none is made here)."""
    from django.db import connections

    found = []
    for alias in connections.settings:
        backend = connections[alias]
        pools = getattr(type(backend), "_connection_pools", None)
        pool = pools.get(alias) if isinstance(pools, dict) else None
        if pool is not None:
            found.append(pool)
    return found


def sample() -> None:
    """Read this process's sampled gauges: its database pools and its channel layer's buffers."""
    try:
        stats = [pool.get_stats() for pool in _pools()]
    except Exception:
        logger.debug("metrics: could not read the database pools", exc_info=True)
    else:
        size = sum(s.get("pool_size", 0) for s in stats)
        idle = sum(s.get("pool_available", 0) for s in stats)
        DB_POOL_CONNECTIONS.labels("max").set(sum(s.get("pool_max", 0) for s in stats))
        DB_POOL_CONNECTIONS.labels("open").set(size)
        DB_POOL_CONNECTIONS.labels("idle").set(idle)
        DB_POOL_WAITING.set(sum(s.get("requests_waiting", 0) for s in stats))
        DB_POOL_ERRORS.set(sum(s.get("requests_errors", 0) for s in stats))
    try:
        from channels.layers import channel_layers

        layer = channel_layers.backends.get("default")
        LAYER_BUFFERED.set(inbox_depth(layer) if layer is not None else 0)
    except Exception:
        logger.debug("metrics: could not read the channel layer", exc_info=True)


# -- the process's life ---------------------------------------------------------------------------

_started: str | None = None
_stop = threading.Event()


def start_process(role: str) -> None:
    """Record that a process of ``role`` (web, worker, beat) started, and in the multiprocess
    mode sample its gauges every ``SAMPLE_SECONDS`` until it exits (``process_exit``, at exit).
    Once per process; a forked child (a Celery pool's) calls it again for itself."""
    global _started
    started = process_identifier()
    if _started == started:
        return
    _started = started
    now = time.time()
    PROCESS_START.labels(role).set(now)
    PROCESS_FIRST_START.labels(role).set(now)
    if not MULTIPROC_DIR:
        return
    _stop.clear()
    threading.Thread(target=_sample_every, name="siesta-metrics", daemon=True).start()


def _sample_every() -> None:
    while not _stop.wait(SAMPLE_SECONDS):
        sample()


def process_exit() -> None:
    """Remove this process's live gauges from the multiprocess directory (its sockets, pools,
    buffers no longer exist); its counters and histograms stay in the sums."""
    _stop.set()
    if MULTIPROC_DIR:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(  # type: ignore[no-untyped-call]
            process_identifier(), MULTIPROC_DIR
        )


def forget_dead_processes(directory: str) -> None:
    """Remove the live gauges of this host's processes that died without ``process_exit`` (killed,
    crashed): their sockets and pools would be counted forever. Another host's files (another
    container's) are left alone: its processes cannot be seen from here."""
    from prometheus_client import multiprocess

    prefix = f"{_HOST}-"
    for path in glob.glob(os.path.join(directory, "gauge_live*_*.db")):
        identifier = os.path.basename(path)[:-3].split("_", 2)[-1]
        if not identifier.startswith(prefix):
            continue
        try:
            pid = int(identifier[len(prefix) :])
        except ValueError:
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            multiprocess.mark_process_dead(identifier, directory)  # type: ignore[no-untyped-call]
        except OSError:  # alive, another user's
            continue


if MULTIPROC_DIR:
    atexit.register(process_exit)

"""One CPU budget for engine work: hints, the analysis API and puzzle checks.

Each caller (a signed-in user, or an anonymous client's address) has a bucket of CPU seconds:
``SIESTA_ENGINE_BUDGET`` seconds that refill evenly over ``SIESTA_ENGINE_BUDGET_WINDOW``
seconds. Every search is charged the CPU time it MEASURED (not a count of calls), so an
expensive position costs what it costs. A call is refused before it starts when the bucket is
empty (:class:`EngineBudgetSpent`: 429 with ``Retry-After`` on the API, an ``error`` frame on a
socket); the call that empties it may overdraw it by its own cost, which is then owed.

The buckets live in the default cache (Redis on the full stack, so every web process shares
them). A bucket is read and written back (the cache has no compare-and-set): two searches of one
caller finishing at the same instant may lose one charge, which the pool (one search at a time
per process) keeps rare. When the cache is down, engine work goes on uncounted, as the throttles
do.

Searches (:func:`search`) run in a small process pool (``SIESTA_ENGINE_WORKERS`` per web process,
spawned lazily, niced by ``SIESTA_ENGINE_NICE``): a CPU-bound search in a web process would hold
its GIL and slow every socket of that process. Each search is stopped after
``SIESTA_ENGINE_CAP`` CPU seconds (``games.engine.worker``). ``SIESTA_ENGINE_POOL=0`` runs
searches in the calling thread instead (the tests; there is no hard cap then). Cheap engine work
(a puzzle check) runs in the calling thread under :func:`spending`.
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.errors import ApplicationError, ErrorKind
from core.metrics import ENGINE_CPU_SECONDS, ENGINE_REFUSALS
from games.engine import worker as engine_worker

logger = logging.getLogger(__name__)

T = TypeVar("T")


class EngineBudgetSpent(ApplicationError):
    """The caller's engine budget is spent: refused before any work, for ``retry_after`` s."""

    kind = ErrorKind.TOO_MANY
    code = "engine_budget"

    def __init__(self, seconds: float) -> None:
        self.retry_after = max(1, math.ceil(seconds))
        super().__init__(
            ngettext(
                "You have used your engine time for now. Try again in %(count)s second.",
                "You have used your engine time for now. Try again in %(count)s seconds.",
                self.retry_after,
            )
            % {"count": self.retry_after}
        )

    @property
    def extra(self) -> dict[str, Any]:
        return {"code": self.code, "retry_after": self.retry_after}


class EngineUnavailable(ApplicationError):
    """A search stopped at its cap (``engine_limit``) or not started in time (``engine_busy``)."""

    kind = ErrorKind.CONFLICT

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code

    @property
    def extra(self) -> dict[str, Any]:
        return {"code": self.code}


def user_ident(user: Any) -> str:
    return f"user:{user.pk}"


def address_ident(address: str) -> str:
    return f"address:{address}"


def request_ident(request: Any) -> str:
    """Whose budget an API request draws from: the signed-in user's, else its address's."""
    from core.throttling import client_address

    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return user_ident(user)
    return address_ident(client_address(request))


class Budget:
    """The buckets. ``clock`` is wall time (injected by tests); levels are CPU seconds owed."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock

    @property
    def capacity(self) -> float:
        return float(settings.SIESTA_ENGINE_BUDGET or 0)

    @property
    def refill(self) -> float:
        """CPU seconds given back per second."""
        return self.capacity / float(settings.SIESTA_ENGINE_BUDGET_WINDOW)

    @staticmethod
    def _key(ident: str) -> str:
        return f"engine_budget:{ident}"

    def owed(self, ident: str) -> float:
        """The CPU seconds this caller owes now (0 with a full bucket)."""
        if self.capacity <= 0:
            return 0.0
        stored = cache.get(self._key(ident))
        if not stored:
            return 0.0
        owed, at = stored
        return float(max(0.0, owed - (self.clock() - at) * self.refill))

    def wait(self, ident: str) -> float | None:
        """The seconds until this caller may search again, or None when they may now."""
        try:
            owed = self.owed(ident)
        except Exception:  # the cache (Redis) is down: work goes on uncounted
            logger.warning("engine budget: the cache is unavailable, not counting")
            return None
        if self.capacity <= 0 or owed < self.capacity:
            return None
        # Some budget is back once the debt is below the capacity.
        return (owed - self.capacity) / self.refill + 1e-3

    def check(self, ident: str) -> None:
        """Refuse (before any work) when the caller's budget is spent."""
        wait = self.wait(ident)
        if wait is not None:
            ENGINE_REFUSALS.labels(EngineBudgetSpent.code).inc()
            raise EngineBudgetSpent(wait)

    def charge(self, ident: str, seconds: float) -> None:
        """Add ``seconds`` of CPU to what this caller owes."""
        ENGINE_CPU_SECONDS.inc(max(0.0, seconds))
        if self.capacity <= 0:
            return
        try:
            owed = self.owed(ident) + max(0.0, seconds)
            # Kept until it has all refilled (and a little longer).
            keep = math.ceil(owed / self.refill) + 1
            cache.set(self._key(ident), (owed, self.clock()), timeout=keep)
        except Exception:
            logger.warning("engine budget: the cache is unavailable, not counting")


BUDGET = Budget()


@contextmanager
def spending(ident: str) -> Iterator[None]:
    """Cheap engine work in this thread: refused when the budget is spent, charged its thread
    CPU time."""
    BUDGET.check(ident)
    began = time.thread_time()
    try:
        yield
    finally:
        BUDGET.charge(ident, time.thread_time() - began)


# -- the pool -------------------------------------------------------------------------------------

_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ProcessPoolExecutor:
    """This process's pool, made on first use. Spawned, not forked: the web process has threads
    (database, event loop) whose locks a fork would copy held."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(
                max_workers=settings.SIESTA_ENGINE_WORKERS,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=engine_worker.start,
                initargs=(settings.SIESTA_ENGINE_NICE,),
            )
        return _pool


def _drop_pool(broken: ProcessPoolExecutor) -> None:
    global _pool
    with _pool_lock:
        if _pool is broken:
            _pool = None
    broken.shutdown(wait=False, cancel_futures=True)


def shutdown_pool() -> None:
    """Stop this process's pool (tests; a process that exits stops it by itself)."""
    global _pool
    with _pool_lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


def _limit_reached() -> EngineUnavailable:
    ENGINE_REFUSALS.labels("engine_limit").inc()
    return EngineUnavailable(
        _("This search is too long for the engine's time limit."), "engine_limit"
    )


def _in_pool(fn: Callable[..., T], args: tuple[Any, ...]) -> tuple[T, float]:
    """``fn(*args)`` in the pool; a pool whose worker died is replaced once."""
    cap = float(settings.SIESTA_ENGINE_CAP)
    for attempt in (1, 2):
        pool = _executor()
        try:
            future: Future[tuple[T, float]] = pool.submit(engine_worker.run, cap, fn, *args)
            return future.result(timeout=float(settings.SIESTA_ENGINE_WAIT))
        except BrokenProcessPool:
            logger.warning("engine pool: a worker died, starting a new pool")
            _drop_pool(pool)
            if attempt == 2:
                raise
        except FutureTimeout:
            future.cancel()  # not started yet: it never will; started: it stops at its cap
            ENGINE_REFUSALS.labels("engine_busy").inc()
            raise EngineUnavailable(
                _("The engine is busy: try again shortly."), "engine_busy"
            ) from None
    raise AssertionError("unreachable")


def search(ident: str, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)``, an engine search, for ``ident``: refused when their budget is spent, run
    in the pool (or inline) and charged the CPU seconds it used. ``fn`` and ``args`` must be
    picklable (a module-level function of the engine or of ``learn.board``)."""
    BUDGET.check(ident)
    if not settings.SIESTA_ENGINE_POOL:
        with spending(ident):
            return fn(*args)
    try:
        result, used = _in_pool(fn, args)
    except engine_worker.SearchCapped:
        BUDGET.charge(ident, float(settings.SIESTA_ENGINE_CAP))
        raise _limit_reached() from None
    BUDGET.charge(ident, used)
    return result

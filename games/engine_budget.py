"""One CPU budget for engine work: hints, the analysis API and puzzle checks.

Each caller (a signed-in user, or an anonymous client's address) has a bucket of CPU seconds:
``SIESTA_ENGINE_BUDGET`` seconds that refill evenly over ``SIESTA_ENGINE_BUDGET_WINDOW``
seconds. Every search is charged the CPU time it MEASURED (not a count of calls), so an
expensive position costs what it costs. A call is refused before it starts when the bucket is
empty (:class:`EngineBudgetSpent`: 429 with ``Retry-After`` on the API, an ``error`` frame on a
socket); the call that empties it may overdraw it by its own cost, which is then owed. Beside
it, every address has a bucket of ``SIESTA_ENGINE_ADDRESS_BUDGET`` seconds shared by all the
callers from that address (several accounts behind one address draw from it together).

The buckets live in the default cache (Redis on the full stack, so every web process shares
them). A bucket is read and written back (the cache has no compare-and-set): two searches of one
caller finishing at the same instant may lose one charge, which the pool (one search at a time
per process) keeps rare. When the cache is down, engine work goes on uncounted, as the throttles
do.

Searches (:func:`search`) run in a small process pool (``SIESTA_ENGINE_WORKERS`` per web process,
spawned lazily, niced by ``SIESTA_ENGINE_NICE``): a CPU-bound search in a web process would hold
its GIL and slow every socket of that process. Searches wait for a worker in a fair queue
(:class:`FairQueue`): addresses take turns, and within an address its callers take turns; at most
``SIESTA_ENGINE_ADDRESS_QUEUE`` searches of one address wait or run at once in a process (beyond,
:class:`EngineQueueFull`). Each search is stopped after ``SIESTA_ENGINE_CAP`` CPU seconds
(``games.engine.worker``). ``SIESTA_ENGINE_POOL=0`` runs searches in the calling thread instead
(the tests; there is no hard cap and no queue then). Cheap engine work (a puzzle check) runs in
the calling thread under :func:`spending`.

Shared state, and what guards it: the pool (``_pool``, ``_pool_lock``); the queue
(``QUEUE``: its own lock; the pool's executor only ever holds the searches the queue let in);
the buckets (the cache; see above). What a search sends to its worker is pickled in the calling
thread, before it queues (:func:`_payload`): the executor would otherwise pickle it later, on
its feeder thread, while other threads may change what it refers to.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import math
import multiprocessing
import pickle
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, NamedTuple, TypeVar

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

    def __init__(self, seconds: float, message: str | None = None) -> None:
        self.retry_after = max(1, math.ceil(seconds))
        super().__init__(
            message
            or ngettext(
                "You have used your engine time for now. Try again in %(count)s second.",
                "You have used your engine time for now. Try again in %(count)s seconds.",
                self.retry_after,
            )
            % {"count": self.retry_after}
        )

    @property
    def extra(self) -> dict[str, Any]:
        return {"code": self.code, "retry_after": self.retry_after}


def _address_spent(seconds: float) -> EngineBudgetSpent:
    """The address's shared budget is spent (same shape and code, other words)."""
    ENGINE_REFUSALS.labels(EngineBudgetSpent.code).inc()
    count = max(1, math.ceil(seconds))
    return EngineBudgetSpent(
        seconds,
        ngettext(
            "Engine time from your network is used up for now. Try again in %(count)s second.",
            "Engine time from your network is used up for now. Try again in %(count)s seconds.",
            count,
        )
        % {"count": count},
    )


class EngineQueueFull(EngineBudgetSpent):
    """Too many searches of this caller's address wait or run in this process already."""

    code = "engine_queue"

    def __init__(self, seconds: float) -> None:
        count = max(1, math.ceil(seconds))
        super().__init__(
            seconds,
            ngettext(
                "Too many engine searches from your network at once. Try again in "
                "%(count)s second.",
                "Too many engine searches from your network at once. Try again in "
                "%(count)s seconds.",
                count,
            )
            % {"count": count},
        )


class EngineUnavailable(ApplicationError):
    """A search stopped at its cap (``engine_limit``) or not answered in time (``engine_busy``,
    with ``retry_after``)."""

    kind = ErrorKind.CONFLICT

    def __init__(self, message: str, code: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.retry_after = retry_after

    @property
    def extra(self) -> dict[str, Any]:
        if self.retry_after is None:
            return {"code": self.code}
        return {"code": self.code, "retry_after": self.retry_after}


class Caller(NamedTuple):
    """Whom a search is for: the budget it draws from (``ident``) and the address it came from
    (``""`` when unknown: no address budget, no address queue)."""

    ident: str
    address: str = ""


def user_ident(user: Any) -> str:
    return f"user:{user.pk}"


def address_ident(address: str) -> str:
    return f"address:{address}"


NETWORK = "network:"
"""The prefix of an address's shared bucket (``network:<address>``)."""


def network_ident(address: str) -> str:
    return f"{NETWORK}{address}"


def as_caller(caller: Caller | str) -> Caller:
    """A caller from a bare budget ident (a signed-out caller's ident names its address)."""
    if isinstance(caller, Caller):
        return caller
    prefix = address_ident("")
    return Caller(caller, caller[len(prefix) :] if caller.startswith(prefix) else "")


def socket_address(scope: Any) -> str:
    """A socket's client address (Daphne's ``--proxy-headers`` makes it the client's)."""
    client = scope.get("client")
    return str(client[0]) if client else ""


def request_ident(request: Any) -> str:
    """Whose budget an API request draws from: the signed-in user's, else its address's."""
    from core.throttling import client_address

    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return user_ident(user)
    return address_ident(client_address(request))


def request_caller(request: Any) -> Caller:
    """The caller of an API request: its budget and its address."""
    from core.throttling import client_address

    return Caller(request_ident(request), client_address(request))


class Budget:
    """The buckets. ``clock`` is wall time (injected by tests); levels are CPU seconds owed."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock

    @property
    def capacity(self) -> float:
        return float(settings.SIESTA_ENGINE_BUDGET or 0)

    def capacity_of(self, ident: str) -> float:
        """A caller's capacity; an address's shared bucket (``network:``) has its own (and none
        when the budget is off)."""
        if ident.startswith(NETWORK) and self.capacity > 0:
            return float(settings.SIESTA_ENGINE_ADDRESS_BUDGET or 0)
        return self.capacity

    @property
    def refill(self) -> float:
        """CPU seconds given back per second (to a caller)."""
        return self.capacity / float(settings.SIESTA_ENGINE_BUDGET_WINDOW)

    def refill_of(self, ident: str) -> float:
        return self.capacity_of(ident) / float(settings.SIESTA_ENGINE_BUDGET_WINDOW)

    @staticmethod
    def _key(ident: str) -> str:
        return f"engine_budget:{ident}"

    def owed(self, ident: str) -> float:
        """The CPU seconds this caller owes now (0 with a full bucket)."""
        if self.capacity_of(ident) <= 0:
            return 0.0
        stored = cache.get(self._key(ident))
        if not stored:
            return 0.0
        owed, at = stored
        return float(max(0.0, owed - (self.clock() - at) * self.refill_of(ident)))

    def wait(self, ident: str) -> float | None:
        """The seconds until this caller may search again, or None when they may now."""
        capacity = self.capacity_of(ident)
        try:
            owed = self.owed(ident)
        except Exception:  # the cache (Redis) is down: work goes on uncounted
            logger.warning("engine budget: the cache is unavailable, not counting")
            return None
        if capacity <= 0 or owed < capacity:
            return None
        # Some budget is back once the debt is below the capacity.
        return (owed - capacity) / self.refill_of(ident) + 1e-3

    def check(self, caller: Caller | str) -> None:
        """Refuse (before any work) when the caller's budget, or its address's, is spent."""
        caller = as_caller(caller)
        wait = self.wait(caller.ident)
        if wait is not None:
            ENGINE_REFUSALS.labels(EngineBudgetSpent.code).inc()
            raise EngineBudgetSpent(wait)
        if caller.address:
            wait = self.wait(network_ident(caller.address))
            if wait is not None:
                raise _address_spent(wait)

    def charge(self, caller: Caller | str, seconds: float) -> None:
        """Add ``seconds`` of CPU to what this caller (and its address) owes."""
        ENGINE_CPU_SECONDS.inc(max(0.0, seconds))
        caller = as_caller(caller)
        self._charge(caller.ident, seconds)
        if caller.address:
            self._charge(network_ident(caller.address), seconds)

    def _charge(self, ident: str, seconds: float) -> None:
        if self.capacity_of(ident) <= 0:
            return
        try:
            owed = self.owed(ident) + max(0.0, seconds)
            # Kept until it has all refilled (and a little longer), at least a window: the cache
            # counts real seconds, and the clock may be another (the tests').
            window = float(settings.SIESTA_ENGINE_BUDGET_WINDOW)
            keep = math.ceil(max(owed / self.refill_of(ident), window)) + 1
            cache.set(self._key(ident), (owed, self.clock()), timeout=keep)
        except Exception:
            logger.warning("engine budget: the cache is unavailable, not counting")


BUDGET = Budget()


@contextmanager
def spending(caller: Caller | str) -> Iterator[None]:
    """Cheap engine work in this thread: refused when the budget is spent, charged its thread
    CPU time."""
    BUDGET.check(caller)
    began = time.thread_time()
    try:
        yield
    finally:
        BUDGET.charge(caller, time.thread_time() - began)


# -- the fair queue -------------------------------------------------------------------------------


class Ticket:
    """One search's place in the queue; ``granted`` is set when a worker is its."""

    __slots__ = ("address", "granted", "ident", "rank", "slot")

    def __init__(self, caller: Caller) -> None:
        self.ident = caller.ident
        self.address = caller.address
        self.granted = threading.Event()
        self.slot = -1  # its worker slot once granted (its pause flag's index)
        self.rank = (0.0, 0)  # once granted: its start tag, then the newer grant first


class _Address:
    """An address with searches waiting: its callers in turn order, and its start tag."""

    __slots__ = ("callers", "entry", "tag")

    def __init__(self, tag: float) -> None:
        self.tag = tag
        self.entry = -1  # the order number of its one live entry in the heap
        self.callers: dict[str, deque[Ticket]] = {}  # in turn order (a dict keeps it)


class FairQueue:
    """Searches waiting for one of ``slots`` workers, served fairly: start-time fair queueing
    between addresses (virtual time in CPU seconds: a search moves its address's next turn on by
    the CPU it cost; an address that starts waiting is placed at the current virtual time, so it
    goes before an address that has been served meanwhile), round
    robin between an address's callers, and a caller's own searches in order. With more than one
    worker, no address runs on more than ``slots - 1`` of them: a search cannot be stopped once
    started, so a worker is kept for the other addresses (an expensive search of one address is
    never what another waits for), and only ``slots - 1`` searches compute at once: the others
    are paused (their pause flag, ``flags``, read by the worker: ``games.engine.worker``) until
    one ends. Those that compute are the ones with the lowest start tags (the newest grant first
    among equal tags): an address that starts waiting, placed at the current virtual time, pauses
    the search of an address that has been served meanwhile, which goes on after it.

    One lock guards everything; a ticket's ``granted`` event wakes its thread. ``held`` counts an
    address's searches waiting or running, for the cap; ``busy`` its searches running."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[str, _Address] = {}
        self._order = itertools.count()  # ties between equal tags: first come
        self._heap: list[tuple[float, int, str]] = []  # (tag, order, address), lazily pruned
        self._vtime = 0.0
        self._finished: dict[str, float] = {}  # an idle address's next tag, while above vtime
        self._running = 0
        self._held: dict[str, int] = {}
        self._busy: dict[str, int] = {}
        self._granted: list[Ticket] = []  # running (computing or paused)
        self._grants = itertools.count()
        self.flags: Any = None
        """The pool's pause flags (one byte per slot), once it has started."""

    def enter(self, caller: Caller, slots: int, cap: int) -> Ticket:
        """Queue a search; raises :class:`EngineQueueFull` when the address has ``cap``
        searches waiting or running (0: no cap)."""
        ticket = Ticket(caller)
        with self._lock:
            held = self._held.get(caller.address, 0)
            if cap and caller.address and held >= cap:
                ENGINE_REFUSALS.labels(EngineQueueFull.code).inc()
                raise EngineQueueFull(1.0)
            self._held[caller.address] = held + 1
            waiting = self._waiting.get(caller.address)
            if waiting is None:
                tag = max(self._vtime, self._finished.pop(caller.address, 0.0))
                waiting = self._waiting[caller.address] = _Address(tag)
                self._push(caller.address, waiting)
            waiting.callers.setdefault(caller.ident, deque()).append(ticket)
            self._grant(slots)
        return ticket

    def _grant(self, slots: int) -> None:
        """Give free workers to the next searches (the lock is held)."""
        most = max(1, slots - 1)  # workers one address may run on
        full: list[tuple[float, int, str]] = []  # addresses at ``most``: their turn waits
        while self._running < slots and self._heap:
            entry = heapq.heappop(self._heap)
            tag, order, address = entry
            waiting = self._waiting.get(address)
            if waiting is None or waiting.entry != order:
                continue  # a stale entry (the address stopped waiting)
            if self._busy.get(address, 0) >= most:
                full.append(entry)
                continue
            ident, tickets = next(iter(waiting.callers.items()))
            ticket = tickets.popleft()
            del waiting.callers[ident]
            if tickets:
                waiting.callers[ident] = tickets  # to the end of the address's turns
            self._vtime = tag
            # Its next search's tag: this one's cost is added when it ends (``leave``).
            waiting.tag = tag
            if waiting.callers:
                self._push(address, waiting)
            else:
                del self._waiting[address]
                self._finished[address] = waiting.tag
            self._running += 1
            self._busy[address] = self._busy.get(address, 0) + 1
            taken = {t.slot for t in self._granted}
            ticket.slot = next(n for n in itertools.count() if n not in taken)
            ticket.rank = (tag, -next(self._grants))
            self._granted.append(ticket)
            self._mark(slots)
            ticket.granted.set()
        for entry in full:
            heapq.heappush(self._heap, entry)
        if len(self._finished) > 64:  # forget idle addresses the virtual time has passed
            vtime = self._vtime
            self._finished = {a: t for a, t in self._finished.items() if t > vtime}

    def _push(self, address: str, waiting: _Address) -> None:
        waiting.entry = next(self._order)
        heapq.heappush(self._heap, (waiting.tag, waiting.entry, address))

    def abandon(self, ticket: Ticket) -> bool:
        """Take a search that was not granted out of the queue (it waited too long); False
        when it was granted meanwhile (it must then run, or :meth:`leave`)."""
        with self._lock:
            if ticket.granted.is_set():
                return False
            waiting = self._waiting[ticket.address]
            tickets = waiting.callers[ticket.ident]
            tickets.remove(ticket)
            if not tickets:
                del waiting.callers[ticket.ident]
            if not waiting.callers:
                del self._waiting[ticket.address]  # its heap entry goes stale
                self._finished[ticket.address] = waiting.tag
            self._release(ticket.address)
            return True

    def leave(self, ticket: Ticket, slots: int, cost: float = 1.0) -> None:
        """A granted search is over, having cost ``cost`` (its CPU seconds): its address's next
        turn comes that much later, and its worker goes to the next search."""
        with self._lock:
            address = ticket.address
            waiting = self._waiting.get(address)
            if waiting is not None:
                waiting.tag += cost
                self._push(address, waiting)  # its older entry goes stale
            else:
                self._finished[address] = max(self._finished.get(address, 0.0), self._vtime) + cost
            self._running -= 1
            busy = self._busy[ticket.address] - 1
            if busy:
                self._busy[ticket.address] = busy
            else:
                del self._busy[ticket.address]
            self._release(ticket.address)
            self._granted.remove(ticket)
            self._mark(slots)
            self._grant(slots)

    def _mark(self, slots: int) -> None:
        """Flag the searches that pause: all but the ``slots - 1`` of lowest rank (the lock is
        held)."""
        flags = self.flags
        if flags is None:
            return
        computing = max(1, slots - 1)
        paused = {t.slot for t in sorted(self._granted, key=lambda t: t.rank)[computing:]}
        for slot in range(len(flags)):
            flags[slot] = 1 if slot in paused else 0

    def set_flags(self, flags: Any) -> None:
        """A new pool's pause flags (the searches running on the old pool are not paused)."""
        with self._lock:
            self.flags = flags

    def paused(self) -> set[int]:
        """The slots flagged to pause (tests)."""
        with self._lock:
            flags = self.flags
            return {n for n in range(len(flags)) if flags[n]} if flags is not None else set()

    def _release(self, address: str) -> None:
        held = self._held[address] - 1
        if held:
            self._held[address] = held
        else:
            del self._held[address]

    def counts(self) -> tuple[int, int]:
        """(searches running, searches waiting), for tests and diagnostics."""
        with self._lock:
            waiting = sum(len(t) for a in self._waiting.values() for t in a.callers.values())
            return self._running, waiting


QUEUE = FairQueue()


# -- the pool -------------------------------------------------------------------------------------

_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ProcessPoolExecutor:
    """This process's pool, made on first use. Spawned, not forked: the web process has threads
    (database, event loop) whose locks a fork would copy held."""
    global _pool
    with _pool_lock:
        if _pool is None:
            context = multiprocessing.get_context("spawn")
            flags = context.RawArray("b", max(1, settings.SIESTA_ENGINE_WORKERS))
            _pool = ProcessPoolExecutor(
                max_workers=settings.SIESTA_ENGINE_WORKERS,
                mp_context=context,
                initializer=engine_worker.start,
                initargs=(settings.SIESTA_ENGINE_NICE, flags),
            )
            QUEUE.set_flags(flags)
            # Every worker now (the executor spawns one per submit that finds none idle): a
            # worker spawned when it is first needed makes that search wait for its start.
            for _ in range(settings.SIESTA_ENGINE_WORKERS):
                _pool.submit(engine_worker.ready)
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


def _busy() -> EngineUnavailable:
    ENGINE_REFUSALS.labels("engine_busy").inc()
    return EngineUnavailable(
        _("The engine is busy: try again shortly."),
        "engine_busy",
        retry_after=max(1, math.ceil(float(settings.SIESTA_ENGINE_CAP))),
    )


def _payload(fn: Callable[..., Any], args: tuple[Any, ...]) -> bytes:
    """What the worker runs, pickled here in the calling thread (see the module's docstring)."""
    return pickle.dumps((fn, args), protocol=pickle.HIGHEST_PROTOCOL)


def _in_pool(caller: Caller, fn: Callable[..., T], args: tuple[Any, ...]) -> tuple[T, float]:
    """``fn(*args)`` in the pool, once the fair queue gives it a worker; a pool whose worker
    died is replaced once. Not answered within ``SIESTA_ENGINE_WAIT`` seconds: ``engine_busy``."""
    payload = _payload(fn, args)
    cap = float(settings.SIESTA_ENGINE_CAP)
    slots = int(settings.SIESTA_ENGINE_WORKERS)
    deadline = time.monotonic() + float(settings.SIESTA_ENGINE_WAIT)
    ticket = QUEUE.enter(caller, slots, int(settings.SIESTA_ENGINE_ADDRESS_QUEUE))
    if not ticket.granted.wait(float(settings.SIESTA_ENGINE_WAIT)) and QUEUE.abandon(ticket):
        raise _busy()
    held = True
    cost = 0.0  # the CPU seconds the search cost, for its address's next turn
    try:
        for _attempt in (1, 2):
            pool = _executor()
            try:
                future: Future[tuple[T, float]] = pool.submit(
                    engine_worker.run_pickled, cap, payload, ticket.slot
                )
            except (BrokenProcessPool, RuntimeError):  # broken, or shut down by another thread
                _drop_pool(pool)
                continue
            try:
                result = future.result(timeout=max(0.0, deadline - time.monotonic()))
                cost = result[1]
                return result
            except engine_worker.SearchCapped:
                cost = cap
                raise
            except BrokenProcessPool:
                logger.warning("engine pool: a worker died, starting a new pool")
                _drop_pool(pool)
                continue
            except FutureTimeout:
                # Started, it goes on to its cap: its worker is the next search's when it ends.
                if not future.cancel():
                    future.add_done_callback(lambda _done: QUEUE.leave(ticket, slots, cap))
                    held = False
                raise _busy() from None
        logger.warning("engine pool: no working pool, refusing the search")
        raise _busy()
    finally:
        if held:
            QUEUE.leave(ticket, slots, cost)


def search(caller: Caller | str, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)``, an engine search, for ``caller``: refused when their budget (or their
    address's) is spent, run in the pool (or inline) and charged the CPU seconds it used. ``fn``
    and ``args`` must be picklable (a module-level function of the engine or of
    ``learn.board``)."""
    caller = as_caller(caller)
    BUDGET.check(caller)
    if not settings.SIESTA_ENGINE_POOL:
        with spending(caller):
            return fn(*args)
    try:
        result, used = _in_pool(caller, fn, args)
    except engine_worker.SearchCapped:
        BUDGET.charge(caller, float(settings.SIESTA_ENGINE_CAP))
        raise _limit_reached() from None
    BUDGET.charge(caller, used)
    return result

"""The worker side of the engine pool (``games.engine_budget``): a search with a hard CPU
cap, measured in CPU seconds.

Standard library only, like the engine: the pool's processes are spawned fresh and import this
module and the search's own module, not Django. The cap is a ``SIGPROF`` timer (process CPU
time), so a search that would run too long stops with :class:`SearchCapped` at its next bytecode;
the engine needs no node counter of its own.
"""

from __future__ import annotations

import os
import pickle
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any


class SearchCapped(Exception):
    """The search used its whole CPU cap and was stopped."""


def _capped(signum: int, frame: FrameType | None) -> None:
    raise SearchCapped()


PAUSE_POLL = 0.02
"""Seconds between two looks at this worker's pause flag (while searching, and while paused)."""

_flags: Any = None
"""The pool's pause flags, one byte per slot, shared with the web process (``start``)."""
_slot = -1
"""The slot of the search running now (-1 between searches)."""
_in_pause = False


def start(niceness: int, flags: Any = None) -> None:
    """Pool initializer: a lower priority than the web process, so players' moves go first; and
    an end when the web process is killed (SIGKILL leaves the worker waiting for work). With
    ``flags`` (the web process's fair queue), a search whose slot is flagged pauses until it is
    not (:func:`_pause`)."""
    global _flags
    if niceness:
        os.nice(niceness)
    signal.signal(signal.SIGPROF, _capped)
    parent = os.getppid()
    threading.Thread(target=_end_with, args=(parent,), daemon=True).start()
    if flags is not None:
        _flags = flags
        signal.signal(signal.SIGUSR1, _pause)
        threading.Thread(target=_watch, daemon=True).start()


def _flagged() -> bool:
    slot = _slot
    return slot >= 0 and bool(_flags[slot])


def _watch() -> None:
    """Interrupt the search (in the main thread) when its slot is flagged."""
    while True:
        time.sleep(PAUSE_POLL)
        if not _in_pause and _flagged():
            os.kill(os.getpid(), signal.SIGUSR1)


def _pause(signum: int, frame: FrameType | None) -> None:
    """Run by the search's thread between two bytecodes: wait while its slot is flagged. The
    search uses no CPU meanwhile, so its CPU cap (``ITIMER_PROF``) stands still."""
    global _in_pause
    if _in_pause:
        return
    _in_pause = True
    try:
        while _flagged():
            time.sleep(PAUSE_POLL)
    finally:
        _in_pause = False


def _end_with(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def run(cap: float, fn: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    """``fn(*args)`` stopped after ``cap`` CPU seconds; its result and the CPU seconds used."""
    began = time.process_time()
    signal.setitimer(signal.ITIMER_PROF, cap)
    try:
        result = fn(*args)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    return result, time.process_time() - began


def ready() -> None:
    """Nothing: submitted once per worker when the pool starts, so that all of them start."""


def run_pickled(cap: float, payload: bytes, slot: int = -1) -> tuple[Any, float]:
    """:func:`run` of a search pickled by the web process (``(fn, args)``): the web process
    pickles it in the calling thread, not on the executor's feeder thread. ``slot``: its pause
    flag's index (-1: none)."""
    global _slot
    fn, args = pickle.loads(payload)
    _slot = slot if _flags is not None and 0 <= slot < len(_flags) else -1
    try:
        _pause(signal.SIGUSR1, None)  # flagged already: wait before starting
        return run(cap, fn, *args)
    finally:
        _slot = -1

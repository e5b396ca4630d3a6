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


def start(niceness: int) -> None:
    """Pool initializer: a lower priority than the web process, so players' moves go first; and
    an end when the web process is killed (SIGKILL leaves the worker waiting for work)."""
    if niceness:
        os.nice(niceness)
    signal.signal(signal.SIGPROF, _capped)
    parent = os.getppid()
    threading.Thread(target=_end_with, args=(parent,), daemon=True).start()


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


def run_pickled(cap: float, payload: bytes) -> tuple[Any, float]:
    """:func:`run` of a search pickled by the web process (``(fn, args)``): the web process
    pickles it in the calling thread, not on the executor's feeder thread."""
    fn, args = pickle.loads(payload)
    return run(cap, fn, *args)

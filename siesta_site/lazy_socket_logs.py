"""autobahn's debug log lines cost nothing unless they are logged (docs/performance.md).

autobahn (under Daphne) logs a debug line for every frame a socket receives and sends, and for
every connection, and builds their arguments first: ``hltype`` (a method's qualified name, coloured
by ``click.style``), ``hlval`` and a ``pformat`` of the connection's settings. With debug logging
off (always, in this site) the logger drops the line, so that work was wasted: 4-5% of a web
process's CPU at N=200 (py-spy, GIL samples), most of it colouring names nobody reads.

``install()`` makes those helpers, as autobahn's WebSocket modules call them, return a
placeholder that holds the call and makes it only if the line is formatted. Every use of them in
those modules is an argument of a log call (``tests/siesta_site/test_lazy_socket_logs.py`` checks
it), and a line that is logged reads as before.
"""

from __future__ import annotations

import pprint
from collections.abc import Callable
from types import ModuleType
from typing import Any

import autobahn.twisted.websocket
import autobahn.util
import autobahn.websocket.protocol

# The modules whose debug lines run per frame or per connection, and the helpers they call only
# to build those lines.
MODULES: tuple[ModuleType, ...] = (autobahn.websocket.protocol, autobahn.twisted.websocket)
HELPERS: dict[str, Callable[..., str]] = {
    "hltype": autobahn.util.hltype,
    "hlval": autobahn.util.hlval,
    "pformat": pprint.pformat,
}


class LazyText:
    """A helper's call, made when (and each time) the text is needed."""

    __slots__ = ("_args", "_func", "_kwargs")

    def __init__(self, func: Callable[..., str], args: tuple[Any, ...], kwargs: dict[str, Any]):
        self._func = func
        self._args = args
        self._kwargs = kwargs

    def __str__(self) -> str:
        return str(self._func(*self._args, **self._kwargs))

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return str(self)


def lazy(func: Callable[..., str]) -> Callable[..., LazyText]:
    def deferred(*args: Any, **kwargs: Any) -> LazyText:
        return LazyText(func, args, kwargs)

    deferred.__wrapped__ = func  # type: ignore[attr-defined]
    deferred.__qualname__ = f"lazy({func.__qualname__})"
    return deferred


def _timings_text(self: Any) -> str:
    # The one use of pformat outside a log line: Timings.__str__ must return a str.
    return pprint.pformat(self._timings)


def install() -> None:
    """Idempotent."""
    for module in MODULES:
        for name, func in HELPERS.items():
            if name in vars(module):
                setattr(module, name, lazy(func))
    autobahn.websocket.protocol.Timings.__str__ = _timings_text  # type: ignore[method-assign]

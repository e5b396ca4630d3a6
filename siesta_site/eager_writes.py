"""Daphne's sockets send at once rather than on the reactor's next turn (docs/performance.md).

Twisted's TCP ``write`` only buffers: it registers the socket with the reactor for writing (an
``epoll_ctl``), sends on the event loop's next turn once the socket reports writable, and then
unregisters it (another ``epoll_ctl``). For a WebSocket frame that fits in the socket's send
buffer (every state frame here), that is two system calls and a turn of the loop around the one
``send`` that does the work: about a tenth of a web process's event-loop CPU at N=200.

``install()`` makes plain (non-TLS) TCP connections try the ``send`` first when nothing is waiting
in their buffer, as asyncio's own transports do. Whatever the socket does not take (a slow reader,
a full buffer) and every write behind it go through Twisted's buffer as before, so the bytes keep
their order; an error leaves the data to Twisted's buffer too, whose next write attempt reports
the lost connection as before. TLS connections, which Daphne does not serve behind nginx, and
connections fed by a pull producer (which Twisted asks for more only once its buffer has drained
on the reactor's turn) keep Twisted's path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from twisted.internet import tcp

_buffered_write = cast(Callable[[Any, bytes], None], tcp.Connection.write)
"""Twisted's own write: TLS-aware, buffering, sending on the reactor's next turn."""


def _eager_write(self: Any, data: bytes) -> None:
    if (
        data
        and not self.TLS
        and self.connected
        and not self.disconnecting
        and not self._writeDisconnected
        and (self.producer is None or self.streamingProducer)
        and not self._tempDataLen
        and len(self.dataBuffer) == self.offset
        and isinstance(data, bytes)
    ):
        sent = self.writeSomeData(data)
        if isinstance(sent, int) and sent > 0:
            if sent == len(data):
                return
            data = data[sent:]
    _buffered_write(self, data)


def install() -> None:
    """Patch Twisted's TCP connections (once per process; Daphne's web processes only)."""
    if tcp.Connection.write is not _eager_write:
        tcp.Connection.write = _eager_write  # type: ignore[method-assign]


def installed() -> bool:
    return tcp.Connection.write is _eager_write

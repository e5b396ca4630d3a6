"""A closed WebSocket leaves no reference cycles behind (docs/performance.md).

Two cycles outlived every WebSocket connection of a Daphne process, each freed only by the
garbage collector:

- Daphne upgrades a connection by handing Twisted's transport from its ``HTTPChannel`` to a
  ``WebSocketProtocol``; the channel keeps the upgrade request in its ``requests`` and the request
  points back at its channel (with the request's headers, buffers and body: ~30 objects).
- autobahn resolves the protocol's ``is_closed`` Deferred with the protocol itself (with the
  protocol's queues, buffers and handshake details: ~30 more).

At N=200 a web process closes ~20 sockets a second (players leaving finished games), and a
collection of the middle generation found 12,000-20,000 such objects every ~10 s and stalled the
process for 46-123 ms: every game of the process waited that long for its next state.
``install()`` breaks both cycles once the connection is lost, so that reference counting frees
each connection's objects at once. Nothing else changes: the request is done with by then, and
``is_closed`` stays a fired Deferred (whose result is ``None`` rather than the closed protocol).
"""

from __future__ import annotations

from typing import Any

from daphne.ws_protocol import WebSocketProtocol  # type: ignore[import-untyped]
from twisted.internet import defer
from twisted.web.http import HTTPChannel

_original_connection_made = WebSocketProtocol.connectionMade
_original_connection_lost = WebSocketProtocol.connectionLost


def _connection_made(self: Any) -> None:
    # Daphne calls this during the upgrade, while the HTTP channel is still the transport's
    # producer: the one chance to find it.
    producer = getattr(self.transport, "producer", None)
    if isinstance(producer, HTTPChannel):
        self._siesta_http_channel = producer
    _original_connection_made(self)


def _connection_lost(self: Any, reason: Any = None) -> None:
    if reason is None:
        _original_connection_lost(self)
    else:
        _original_connection_lost(self, reason)
    channel = self.__dict__.pop("_siesta_http_channel", None)
    if channel is not None:
        del channel.requests[:]
    closed = getattr(self, "is_closed", None)
    holds_itself = isinstance(closed, defer.Deferred) and closed.called and closed.result is self
    if holds_itself:
        self.is_closed = defer.succeed(None)


def install() -> None:
    """Idempotent."""
    WebSocketProtocol.connectionMade = _connection_made
    WebSocketProtocol.connectionLost = _connection_lost


def installed() -> bool:
    return WebSocketProtocol.connectionLost is _connection_lost

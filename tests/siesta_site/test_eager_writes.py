"""Daphne's TCP connections send at once when nothing is buffered, and fall back to Twisted's
buffer, in order, for whatever the socket does not take (siesta_site/eager_writes.py). Real
sockets (a connected pair); the reactor is a recorder of what the connection asks of it."""

from __future__ import annotations

import socket

import pytest
from twisted.internet import tcp
from twisted.internet.protocol import Protocol

from siesta_site import eager_writes


class RecordingReactor:
    """The part of a reactor a connection uses to be told when it may write (Twisted's names)."""

    def __init__(self) -> None:
        self.writers: set[object] = set()
        self.added = 0

    def addWriter(self, writer: object) -> None:
        if writer not in self.writers:
            self.added += 1
        self.writers.add(writer)

    def removeWriter(self, writer: object) -> None:
        self.writers.discard(writer)

    def addReader(self, reader: object) -> None:
        pass

    def removeReader(self, reader: object) -> None:
        pass


@pytest.fixture
def pair():
    """A connection over one end of a socket pair (installed for this test), and the other end."""
    was_installed = eager_writes.installed()
    eager_writes.install()
    ours, peer = socket.socketpair()
    reactor = RecordingReactor()
    connection = tcp.Connection(ours, Protocol(), reactor=reactor)  # type: ignore[arg-type]
    connection.connected = True
    yield connection, peer, reactor
    if not was_installed:
        tcp.Connection.write = eager_writes._buffered_write  # type: ignore[method-assign]
    ours.close()
    peer.close()


def _read_all(peer: socket.socket, size: int) -> bytes:
    chunks = []
    while size:
        chunk = peer.recv(min(size, 65536))
        assert chunk
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def test_a_frame_goes_out_at_once_without_the_reactor(pair):
    connection, peer, reactor = pair
    connection.write(b"first frame")
    connection.write(b"second")
    assert reactor.added == 0
    assert not reactor.writers
    assert _read_all(peer, 17) == b"first framesecond"


def test_what_the_socket_does_not_take_waits_in_twisteds_buffer_in_order(pair):
    connection, peer, reactor = pair
    connection.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    big = bytes(range(256)) * 4096  # 1 MiB: more than the socket's buffer holds
    connection.write(big)
    connection.write(b"after")  # behind the buffered rest, never ahead of it
    assert reactor.writers == {connection}
    received = bytearray()
    while connection in reactor.writers:  # the reactor's turns: the socket is writable again
        received += peer.recv(1 << 20)
        assert connection.doWrite() is None
    received += _read_all(peer, len(big) + 5 - len(received))
    assert bytes(received) == big + b"after"
    connection.write(b"again")  # the buffer is empty: at once again
    assert reactor.writers == set()
    assert _read_all(peer, 5) == b"again"


def test_a_lost_connection_is_reported_by_twisteds_next_write_attempt(pair):
    connection, peer, reactor = pair
    peer.close()
    connection.write(b"x" * 100_000)  # the first send may still succeed into a closed pair
    for _ in range(10):
        if connection not in reactor.writers:
            connection.write(b"x" * 100_000)
            continue
        lost = connection.doWrite()
        if lost is not None:
            break
    assert isinstance(lost, Exception)


def test_tls_connections_and_closed_ones_keep_twisteds_path(pair):
    connection, peer, reactor = pair
    connection.TLS = True  # Twisted hands the bytes to its TLS layer: not sent here
    connection.protocol = type("TLSLayer", (), {"write": lambda self, data: None})()
    connection.write(b"through TLS")
    connection.TLS = False
    connection.disconnecting = True  # loseConnection() was called: Twisted finishes the writes
    connection.write(b"late")
    assert reactor.writers == {connection}
    peer.setblocking(False)
    with pytest.raises(BlockingIOError):
        peer.recv(100)


class PullProducer:
    """Writes one chunk each time the connection asks for more (Twisted's IPullProducer)."""

    def __init__(self, connection: tcp.Connection, chunks: list[bytes]) -> None:
        self.connection = connection
        self.chunks = chunks

    def resumeProducing(self) -> None:
        if self.chunks:
            self.connection.write(self.chunks.pop(0))

    def stopProducing(self) -> None:
        self.chunks = []


def test_a_pull_producer_is_still_asked_for_more_on_the_reactors_turns(pair):
    """A pull producer writes only when asked, and Twisted asks once the buffer has drained on a
    reactor turn: its writes keep that path, or it would never be asked again."""
    connection, peer, reactor = pair
    connection.registerProducer(PullProducer(connection, [b"one", b"two", b"three"]), False)
    for _ in range(3):
        assert reactor.writers == {connection}
        assert connection.doWrite() is None
    assert _read_all(peer, 11) == b"onetwothree"

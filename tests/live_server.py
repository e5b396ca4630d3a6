"""A live site for tests that talk to it over real sockets from outside (a browser, a script):
Daphne serving the site's ASGI application (HTTP and WebSocket) from a daemon thread of the test
process, on a free port, so that it shares the test database and the channel layer."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest


def free_port() -> int:
    """A free port in this worktree's range (SIESTA_TEST_PORTS=8180-8199), else any free one."""
    low, _, high = os.environ.get("SIESTA_TEST_PORTS", "").partition("-")
    candidates = list(range(int(low), int(high) + 1)) if low and high else []
    for port in [*candidates, 0]:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return int(probe.getsockname()[1])
    raise RuntimeError("no free port")


@contextmanager
def daphne_in_thread() -> Iterator[str]:
    """The site's base URL (``http://127.0.0.1:<port>``) while Daphne serves it; the caller
    unblocks the database for the server's threads."""
    from channels.routing import get_default_application
    from daphne.server import Server
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

    port = free_port()
    server = Server(
        # Static files straight from static/ (no collectstatic), as `runserver` serves them.
        application=ASGIStaticFilesHandler(get_default_application()),
        endpoints=[f"tcp:port={port}:interface=127.0.0.1"],
        signal_handlers=False,
        verbosity=0,
    )
    thread = threading.Thread(target=server.run, name="daphne", daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.05)
    else:
        raise RuntimeError("Daphne did not start")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


@pytest.fixture(scope="session")
def live_server_url(django_db_setup: Any, django_db_blocker: Any) -> Iterator[str]:
    """Daphne serving the site from a daemon thread, once per test run: Twisted's reactor cannot
    be started twice in one process, so the browser tests and the scripts' tests share it."""
    with django_db_blocker.unblock(), daphne_in_thread() as url:
        yield url

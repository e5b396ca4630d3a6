"""A live site for the reliability tests: Daphne serving ``siesta_site.asgi`` in a subprocess (as
``make run`` does), a Redis server of the test's own, and clients that talk to them over real
sockets as scripts and browsers do (REST with a token, WebSockets signed in by ``auth``)."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[2]

PORTS = {
    "redis": 8161,
    "race-postgres": 8162,
    "race-sqlite": 8163,
    "redis-down": 8164,
    "broadcast-a": 8165,
    "broadcast-b": 8166,
    "gate": 8171,
    "gate-redis": 8172,
}
"""Ports of this suite (127.0.0.1 only)."""


def database_url(database: dict[str, Any]) -> str:
    """The URL of a Django PostgreSQL database (the test database), for a subprocess."""
    user = quote(database.get("USER") or "")
    password = quote(database.get("PASSWORD") or "")
    credentials = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = database.get("HOST") or "127.0.0.1"
    port = database.get("PORT") or 5432
    return f"postgres://{credentials}{host}:{port}/{database['NAME']}"


def wait_for(condition: Callable[[], Any], timeout: float, step: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return False


def port_open(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


THROTTLE_SCOPES = (
    "ANON",
    "USER",
    "AUTH",
    "LOGIN_FAILURES",
    "LOGIN_FAILURES_USER",
    "REGISTER",
    "CHALLENGE",
    "CHALLENGE_ADDRESS",
    "MAIL_ADDRESS",
    "EMAIL_CONFIRM",
    "PASSWORD_RESET",
    "PASSWORD_RESET_ADDRESS",
    "SEEKS",
)


def site_env(**values: str) -> dict[str, str]:
    """The environment of a site subprocess: this one's, minus what the test run set, plus
    ``values``. The in-process beat stays off unless asked for: the tests drive the sweeps."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "siesta_site.settings",
            "DJANGO_DEBUG": "0",
            "SIESTA_INPROCESS_BEAT": "0",
            "SIESTA_WS_CONNECTIONS_PER_ADDRESS": "500",
            # The races send far more than a person would, all from 127.0.0.1: the throttles
            # (tested apart, tests/core/test_throttling.py) would answer 429.
            **{f"SIESTA_THROTTLE_{scope}": "off" for scope in THROTTLE_SCOPES},
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(values)
    return env


@dataclass
class Process:
    """A subprocess whose output goes to a file, so that a test can read it (and show it)."""

    command: list[str]
    env: dict[str, str]
    log: Path
    popen: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.popen = subprocess.Popen(
                self.command, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT
            )

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> None:
        if self.popen is None or self.popen.poll() is not None:
            return
        self.popen.send_signal(sig)
        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait(timeout)

    def kill(self) -> None:
        self.stop(signal.SIGKILL)

    @property
    def running(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


@contextmanager
def redis_server(port: int, workdir: Path) -> Iterator[Process]:
    """``redis-server`` on ``port``, keeping nothing on disk; stopped (if still up) at the end."""
    server = Process(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(workdir),
        ],
        dict(os.environ),
        workdir / f"redis-{port}.log",
    )
    server.start()
    try:
        assert wait_for(lambda: port_open(port), 10), "redis-server did not come up"
        yield server
    finally:
        server.stop()


@contextmanager
def live_site(port: int, env: dict[str, str], workdir: Path) -> Iterator[Process]:
    """Daphne serving the site on ``port`` with ``env``; stopped at the end."""
    site = Process(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
         "siesta_site.asgi:application"],
        env,
        workdir / f"site-{port}.log",
    )  # fmt: skip
    site.start()
    try:
        assert wait_for(lambda: port_open(port) or not site.running, 60), "the site did not start"
        assert site.running, site.output()
        yield site
    finally:
        site.stop()


# -- clients ---------------------------------------------------------------------------------------


@dataclass
class Rest:
    """A script's REST client: one keep-alive connection, ``Authorization: Token``."""

    port: int
    token: str | None = None
    connection: http.client.HTTPConnection = field(init=False)

    def __post_init__(self) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        headers = {"Accept": "application/json"}
        if token or self.token:
            headers["Authorization"] = f"Token {token or self.token}"
        data = None
        if body is not None:
            data = json.dumps(body)
            headers["Content-Type"] = "application/json"
        for attempt in (1, 2):  # a keep-alive connection the server closed: open a new one
            try:
                self.connection.request(method, path, data, headers)
                response = self.connection.getresponse()
                raw = response.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.connection.close()
                if attempt == 2:
                    raise
        try:
            payload = json.loads(raw) if raw else None
        except ValueError:
            payload = raw.decode(errors="replace")
        return response.status, payload

    def get(self, path: str) -> Any:
        status, body = self.request("GET", path)
        assert status == 200, (status, body)
        return body

    def close(self) -> None:
        self.connection.close()


class Socket:
    """A watcher's or player's WebSocket; ``token`` signs it in with an ``auth`` message."""

    def __init__(self, port: int, game_id: int, token: str | None = None) -> None:
        self.ws: ClientConnection = connect(
            f"ws://127.0.0.1:{port}/ws/games/{game_id}/",
            open_timeout=30,
            max_size=2**22,
            legacy=True,
        )
        self.states: list[dict[str, Any]] = []
        if token:  # the handshake of docs/sockets.md: auth first, answered before the state
            self.ws.send(json.dumps({"type": "auth", "token": token}))
            assert self.next_frame()["type"] == "auth"
        first = self.next_frame()
        assert first["type"] == "state", first

    def next_frame(self, timeout: float = 30) -> dict[str, Any]:
        frame = json.loads(self.ws.recv(timeout))
        if frame.get("type") == "state":
            self.states.append(frame)
        return frame

    def reply_of_type(self, *types: str, timeout: float = 30) -> dict[str, Any]:
        """The next frame of one of ``types`` (states in between are kept in ``states``)."""
        deadline = time.monotonic() + timeout
        while True:
            frame = self.next_frame(max(0.01, deadline - time.monotonic()))
            if frame.get("type") in types or (frame.get("type") == "error" and "error" in types):
                return frame

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def request(self, message: dict[str, Any], timeout: float = 30) -> dict[str, Any]:
        """Send ``message`` with a fresh id; its answer (``ack`` or ``error``, same id)."""
        message = {**message, "id": uuid.uuid4().hex}
        self.send(message)
        deadline = time.monotonic() + timeout
        while True:
            frame = self.next_frame(max(0.01, deadline - time.monotonic()))
            if frame.get("id") == message["id"] and frame["type"] in ("ack", "error", "hint"):
                return frame

    def latest_version(self) -> int:
        return max((s["version"] for s in self.states), default=-1)

    def drain(self, quiet: float = 0.3) -> None:
        """Read what has arrived until nothing more comes for ``quiet`` seconds."""
        with suppress(TimeoutError):
            while True:
                self.next_frame(quiet)

    def close(self) -> None:
        with suppress(ConnectionClosed, OSError):
            self.ws.close()

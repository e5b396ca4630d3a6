"""A closed WebSocket leaves no reference cycles in the web process (siesta_site/closed_sockets.py).

A real Daphne (in a process of its own: Twisted's reactor runs once per process) serves a bare
WebSocket app with its garbage collector off and every collected object kept. Sockets connect,
talk and close; then a last socket asks the server what a collection finds. Without the patch the
cycles are there (so the test can see them); with it, none is left."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from websockets.sync.client import connect

SERVER = r"""
import gc, json, sys
gc.disable()
gc.set_debug(gc.DEBUG_SAVEALL)
if sys.argv[2] == "install":
    from siesta_site import closed_sockets
    closed_sockets.install()
from daphne.server import Server

WATCHED = ("WebSocketProtocol", "WebRequest", "HTTPChannel", "Deferred")

async def app(scope, receive, send):
    while True:
        event = await receive()
        if event["type"] == "websocket.connect":
            await send({"type": "websocket.accept"})
        elif event["type"] == "websocket.receive":
            reply = event["text"]
            if reply == "garbage?":
                gc.collect()
                names = [type(o).__qualname__ for o in gc.garbage]
                gc.garbage.clear()
                reply = json.dumps({name: names.count(name) for name in WATCHED})
            await send({"type": "websocket.send", "text": reply})
        elif event["type"] == "websocket.disconnect":
            return

Server(app, endpoints=[f"tcp:port={sys.argv[1]}:interface=127.0.0.1"], signal_handlers=False,
       verbosity=0).run()
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _garbage_after_closing(sockets: int, install: bool, tmp_path: Path) -> dict[str, int]:
    port = _free_port()
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    root = Path(__file__).resolve().parents[2]
    server = subprocess.Popen(
        [sys.executable, str(script), str(port), "install" if install else "plain"],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "Daphne did not start"
            time.sleep(0.05)
        for index in range(sockets):
            with connect(f"ws://127.0.0.1:{port}/ws/{index}/") as ws:
                ws.send("hello")
                assert ws.recv(timeout=5) == "hello"
        time.sleep(1.5)  # Daphne lets go of a closed connection on its next check (every second)
        with connect(f"ws://127.0.0.1:{port}/ws/ask/") as ws:
            ws.send("garbage?")
            return dict(json.loads(ws.recv(timeout=10)))
    finally:
        server.terminate()
        server.wait(10)


def test_a_closed_websocket_leaves_no_cycles_behind(tmp_path):
    garbage = _garbage_after_closing(5, install=True, tmp_path=tmp_path)
    assert garbage == {"WebSocketProtocol": 0, "WebRequest": 0, "HTTPChannel": 0, "Deferred": 0}


def test_without_the_patch_each_closed_websocket_leaves_its_cycles(tmp_path):
    """What the patch is for: should Daphne or autobahn stop making these cycles, this fails and
    the patch can go."""
    garbage = _garbage_after_closing(5, install=False, tmp_path=tmp_path)
    assert garbage["WebSocketProtocol"] >= 5
    assert garbage["WebRequest"] >= 5
    assert garbage["HTTPChannel"] >= 5

"""Two boxes on one machine (docs/operations.md, "Past one box"): two `make up` stacks from this
checkout (deploy/up.sh with their own state directory, SIESTA_VAR), sharing PostgreSQL and Redis,
the second without beat (BEAT=0). A game's sockets split across them see each other's moves through
the Redis channel layer; exactly one beat runs; the second stack stopped, its players reconnect
through the first and the game goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
import websockets

from tests.test_stack import (
    OPENING,
    SETUP,
    _answers,
    _free,
    _receive_state,
    _shell,
    _stack_env,
    pytestmark,  # noqa: F401  (stack, PostgreSQL, Redis, nginx)
    spawn_up,
    stop_up,
)


def _ports() -> int:
    """A port P with P and P+1 free (nginx and one web process)."""
    for _ in range(50):
        port = random.randrange(20000, 40000)
        if _free(port) and _free(port + 1):
            return port
    raise RuntimeError("no free ports")


@contextlib.contextmanager
def _stack(tmp_path: Path, name: str, **extra: str) -> Iterator[tuple[int, dict, subprocess.Popen]]:
    port = _ports()
    env = {**_stack_env(port), "WEB": "1", "SIESTA_VAR": str(tmp_path / name), **extra}
    log_path = tmp_path / f"{name}.log"
    log = log_path.open("w")
    stack = spawn_up(env, log)
    started = time.monotonic()
    try:
        while not all(_answers(f"http://127.0.0.1:{port + i}/rules/") for i in range(2)):
            assert stack.poll() is None, log_path.read_text()[-3000:]
            assert time.monotonic() - started < 300, log_path.read_text()[-3000:]
            time.sleep(0.5)
        yield port, env, stack
    finally:
        stop_up(stack)
        log.close()


def _beats(*stacks: subprocess.Popen) -> int:
    count = 0
    for stack in stacks:
        with contextlib.suppress(psutil.Error):
            for child in psutil.Process(stack.pid).children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    cmdline = child.cmdline()
                    if "celery" in " ".join(cmdline) and "beat" in cmdline:
                        count += 1
    return count


async def _across(port_a: int, port_b: int, data: dict, stop_b) -> None:
    first, second, _solo = data["tokens"]
    game, late = data["game"], data["late_game"]
    # One game's sockets split over the two stacks: a move on A reaches the watcher on B.
    async with (
        websockets.connect(f"ws://127.0.0.1:{port_a}/ws/games/{game}/") as mover,
        websockets.connect(f"ws://127.0.0.1:{port_b}/ws/games/{game}/") as watcher,
    ):
        await mover.send(json.dumps({"type": "auth", "token": first}))
        await _receive_state(mover, 0, 10)
        assert (await _receive_state(watcher, 0, 10))["ply"] == 0
        await mover.send(json.dumps({"type": "move", "move": OPENING, "ply": 0, "id": 1}))
        assert (await _receive_state(watcher, 1, 10))["turns"][0]["move"] == OPENING

    # Another game, its second player on B; B stops: the player's socket closes, the page
    # reconnects through A (here: at once, to the surviving stack) and sees the game go on.
    async with websockets.connect(f"ws://127.0.0.1:{port_a}/ws/games/{late}/") as player_a:
        await player_a.send(json.dumps({"type": "auth", "token": first}))
        await _receive_state(player_a, 0, 10)
        player_b = await websockets.connect(f"ws://127.0.0.1:{port_b}/ws/games/{late}/")
        await player_b.send(json.dumps({"type": "auth", "token": second}))
        await _receive_state(player_b, 0, 10)
        await asyncio.to_thread(stop_b)
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(player_b.recv(), 10)
        async with websockets.connect(f"ws://127.0.0.1:{port_a}/ws/games/{late}/") as again:
            await again.send(json.dumps({"type": "auth", "token": second}))
            await _receive_state(again, 0, 10)
            await player_a.send(json.dumps({"type": "move", "move": OPENING, "ply": 0, "id": 1}))
            assert (await _receive_state(again, 1, 10))["turns"][0]["move"] == OPENING


def test_two_stacks_share_a_game_and_one_survives_the_other(tmp_path):
    # B starts once A is up: A has migrated the shared database.
    with (
        _stack(tmp_path, "a") as (port_a, env, stack_a),
        _stack(tmp_path, "b", BEAT="0") as (port_b, _env_b, stack_b),
    ):
        assert _beats(stack_a, stack_b) == 1
        # Each stack's metrics files in its own directory: B's start left A's in place.
        for name in ("a", "b"):
            assert list((tmp_path / name / "metrics").glob("*.db")), name
        data = json.loads(_shell(env, port_a, SETUP.format(tag=random.randrange(10**9))))
        asyncio.run(_across(port_a, port_b, data, lambda: stop_up(stack_b)))
        assert _beats(stack_a, stack_b) == 1

"""`make up` for real: nginx, two Daphne processes, Celery workers per queue and beat.

Starts ``deploy/up.sh`` (what ``make up`` runs) on free ports with a database of its own, then shows
that a move sent to one web process reaches a watcher connected to the other (through the Redis
channel layer), and that a bot game is played by the real Celery worker; Ctrl-C (SIGINT) stops
every process. Bounded: the whole test must take under 60 seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import secrets
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import psutil
import pytest
import websockets
from django.conf import settings

pytestmark = [
    pytest.mark.stack,
    pytest.mark.requires_postgres,
    pytest.mark.requires_redis,
    # In CI, up.sh installs nginx when it is missing; elsewhere the test leaves the machine alone.
    pytest.mark.skipif(
        not any((Path(p) / "nginx").exists() for p in ("/usr/sbin", "/usr/bin"))
        and os.environ.get("CI", "").lower() not in ("1", "true", "yes"),
        reason="needs Debian's nginx (make up installs it)",
    ),
]

ROOT = Path(settings.BASE_DIR)
OPENING = "SE6 RF6 HG6"
SETUP = """
import json
from rest_framework.authtoken.models import Token
from django.contrib.auth import get_user_model
from games import services
User = get_user_model()
tag = "{tag}"
a, b, c = (User.objects.create_user(f"stack{{tag}}{{n}}", password="x") for n in "abc")
game = services.game_create(user=a, players=2, rated=False)
services.game_join(game_id=game.pk, user=b)
bot_game = services.game_create(
    user=c, players=2, rated=False, bots=[services.BotSpec(seat=2, level="easy")]
)
print(json.dumps({{
    "game": game.pk, "bot_game": bot_game.pk,
    "tokens": [Token.objects.get_or_create(user=u)[0].key for u in (a, b, c)],
}}))
"""


def _free(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def _free_ports() -> int:
    """A port P with P, P+1 and P+2 free (nginx and two web processes)."""
    for _ in range(50):
        port = random.randrange(20000, 40000)
        if all(_free(port + i) for i in range(3)):
            return port
    raise RuntimeError("no free ports")


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def _stack_env(port: int) -> dict[str, str]:
    db = settings.DATABASES["default"]
    name = str(db.get("TEST", {}).get("NAME") or f"test_{db['NAME']}").removeprefix("test_")
    user = db.get("USER") or "postgres"
    auth = f"{user}:{db['PASSWORD']}" if db.get("PASSWORD") else user
    host, pg_port = db.get("HOST") or "127.0.0.1", db.get("PORT") or 5432
    env = {
        **os.environ,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "WEB": "2",
        "DATABASE_URL": f"postgres://{auth}@{host}:{pg_port}/{name}_stack",
        "REDIS_URL": str(settings.REDIS_URL),
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return env


def _web_connections(port: int) -> dict[int, set[tuple[str, int]]]:
    """The peers (nginx's ends) of the connections open to each web process."""
    webs = {port + 1: set(), port + 2: set()}
    for conn in psutil.net_connections("tcp"):
        if conn.status == psutil.CONN_ESTABLISHED and conn.laddr.port in webs and conn.raddr:
            webs[conn.laddr.port].add((conn.raddr.ip, conn.raddr.port))
    return webs


async def _receive_state(ws, ply: int, within: float) -> dict:
    """The first state frame at ``ply`` or later."""
    deadline = time.monotonic() + within
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), deadline - time.monotonic()))
        if message["type"] == "state" and message["game"]["ply"] >= ply:
            return message["game"]


async def _play(port: int, data: dict) -> None:
    first, _second, solo = data["tokens"]
    # A move sent to web process 1 reaches a watcher on web process 2.
    async with (
        websockets.connect(f"ws://127.0.0.1:{port + 1}/ws/games/{data['game']}/") as mover,
        websockets.connect(f"ws://127.0.0.1:{port + 2}/ws/games/{data['game']}/") as watcher,
    ):
        await mover.send(json.dumps({"type": "auth", "token": first}))
        assert (await _receive_state(watcher, 0, 10))["ply"] == 0
        await _receive_state(mover, 0, 10)
        await mover.send(json.dumps({"type": "move", "move": OPENING, "ply": 0, "id": 1}))
        state = await _receive_state(watcher, 1, 10)
        assert state["turns"][0]["move"] == OPENING

    # Through nginx, every socket of a game reaches the same web process (by the game's id).
    before = _web_connections(port)
    async with contextlib.AsyncExitStack() as sockets:
        for _ in range(3):
            ws = await sockets.enter_async_context(
                websockets.connect(f"ws://127.0.0.1:{port}/ws/games/{data['game']}/")
            )
            await _receive_state(ws, 1, 10)
        after = _web_connections(port)
    opened = sorted(len(after[web] - before[web]) for web in after)
    assert opened == [0, 3]

    # A bot game through nginx: the worker plays the bot's reply.
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws/games/{data['bot_game']}/") as player:
        await player.send(json.dumps({"type": "auth", "token": solo}))
        await _receive_state(player, 0, 10)
        await player.send(json.dumps({"type": "move", "move": OPENING, "ply": 0}))
        state = await _receive_state(player, 2, 20)
        assert state["turns"][1]["seat"] == 2


def test_make_up_serves_moves_across_processes_and_bots_through_the_worker(tmp_path):
    started = time.monotonic()
    port = _free_ports()
    env = _stack_env(port)
    log = (tmp_path / "up.log").open("w")
    stack = subprocess.Popen(
        [str(ROOT / "deploy" / "up.sh")],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        # Up: nginx and both web processes answer, the bots' worker is ready.
        urls = [f"http://127.0.0.1:{port + i}/rules/" for i in range(3)]
        while not (
            all(_answers(url) for url in urls)
            and re.search(r"bots@\S+ ready", (tmp_path / "up.log").read_text())
        ):
            assert stack.poll() is None, (tmp_path / "up.log").read_text()[-3000:]
            assert time.monotonic() - started < 45, (tmp_path / "up.log").read_text()[-3000:]
            time.sleep(0.5)

        setup = subprocess.run(
            [
                str(ROOT / ".venv" / "bin" / "python"),
                "manage.py",
                "shell",
                "-c",
                SETUP.format(tag=random.randrange(10**9)),
            ],
            cwd=ROOT,
            env={
                **env,
                "DJANGO_PRODUCTION": "1",
                "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
                "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
            },
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        data = json.loads(setup.stdout.strip().splitlines()[-1])
        asyncio.run(_play(port, data))
        assert "games.tasks.bot_move" in (tmp_path / "up.log").read_text()
    finally:
        # Ctrl-C: honcho stops every process.
        if stack.poll() is None:
            os.killpg(stack.pid, signal.SIGINT)
        try:
            stack.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(stack.pid, signal.SIGKILL)
            stack.wait()
        log.close()
    for offset in range(3):
        assert _free(port + offset), f"port {port + offset} still answers after Ctrl-C"
    assert time.monotonic() - started < 60

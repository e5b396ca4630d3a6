"""`make up` for real: nginx, two Daphne processes, Celery workers per queue and beat.

Starts ``deploy/up.sh`` (what ``make up`` runs) on free ports with a database of its own, then shows
that a move sent to one web process reaches a watcher connected to the other (through the Redis
channel layer), that a bot game is played by the real Celery worker, and that live updates keep
reaching watchers through nginx after hundreds of broadcasting REST requests spread over both web
processes (issue 31: they used to stop after ~100 per process); Ctrl-C (SIGINT) stops every
process. Then a web process killed mid-game (kill -9): supervisord restarts it alone, the other
process's game goes on untouched and the killed one's players reconnect and finish theirs with no
move lost. Every wait is bounded (the stack up in 5 minutes, each frame in seconds), none timed:
speed is the benchmarks' business (``python -m bench.crash``).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
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
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import psutil
import pytest
import websockets
from django.conf import settings
from websockets.sync.client import connect as connect_sync

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
from tests.tournaments.factories import make_tournament
User = get_user_model()
tag = "{tag}"
a, b, c = (User.objects.create_user(f"stack{{tag}}{{n}}", password="x") for n in "abc")
game = services.game_create(user=a, players=2, rated=False)
services.game_join(game_id=game.pk, user=b)
bot_game = services.game_create(
    user=c, players=2, rated=False, bots=[services.BotSpec(seat=2, level="easy")]
)
# An hour per turn: its first move comes after hundreds of requests, minutes on a loaded machine.
late_game = services.game_create(user=a, players=2, rated=False, turn_seconds=3600)
services.game_join(game_id=late_game.pk, user=b)
print(json.dumps({{
    "game": game.pk, "bot_game": bot_game.pk, "late_game": late_game.pk,
    "tournament": make_tournament(max_players=4).pk,
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


BROADCASTING_REQUESTS = 300
"""Through nginx's round robin: about 150 per web process, past the ~100 that used to exhaust a
process's Redis connections (each request ran on a thread of its own that kept one)."""


def _rest(port: int, token: str, method: str, path: str, body: dict | None = None) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": f"Token {token}", "Accept": "application/json"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    connection.request(method, path, json.dumps(body) if body is not None else None, headers)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status


def _recv_until(ws, wanted, within: float) -> dict | None:
    """The first frame for which ``wanted`` holds, or None when none comes in time."""
    deadline = time.monotonic() + within
    while (left := deadline - time.monotonic()) > 0:
        try:
            frame = json.loads(ws.recv(left))
        except TimeoutError:
            return None
        if wanted(frame):
            return frame
    return None


def _broadcasts_after_many_requests(port: int, data: dict) -> None:
    """Hundreds of broadcasting REST requests through nginx (each on a fresh connection, as a
    browser's would be), then the next move and the next join still reach watchers on nginx."""
    first, second, _solo = data["tokens"]
    tournament, late_game = data["tournament"], data["late_game"]
    with (
        connect_sync(
            f"ws://127.0.0.1:{port}/ws/tournaments/{tournament}/", open_timeout=10, max_queue=None
        ) as cup,
        connect_sync(
            f"ws://127.0.0.1:{port}/ws/games/{late_game}/", open_timeout=10, max_queue=None
        ) as board,
    ):
        assert _recv_until(cup, lambda f: f["type"] == "tournament", 10)
        assert _recv_until(board, lambda f: f["type"] == "state", 10)
        for index in range(BROADCASTING_REQUESTS // 2):
            for action in ("join", "leave"):
                status = _rest(
                    port,
                    (first, second)[index % 2],
                    "POST",
                    f"/api/tournaments/{tournament}/{action}/",
                )
                assert status == 200, (index, action, status)
        status = _rest(
            port, first, "POST", f"/api/games/{late_game}/moves/", {"move": OPENING, "ply": 0}
        )
        assert status in (200, 201), status
        moved = _recv_until(board, lambda f: f["type"] == "state" and f["game"]["ply"] >= 1, 10)
        assert moved is not None, "the REST move did not reach the game's watcher"
        while _recv_until(cup, lambda f: True, 1.5) is not None:
            pass  # the toggles' frames, up to the last leave
        status = _rest(port, second, "POST", f"/api/tournaments/{tournament}/join/")
        assert status == 200, status
        joined = _recv_until(
            cup, lambda f: f["type"] == "tournament" and f["tournament"]["players"], 10
        )
        assert joined is not None, "the join did not reach the tournament's watcher"


def _shell(env: dict[str, str], port: int, code: str) -> str:
    """The last line ``code`` prints, run by ``manage.py shell`` against the stack's database."""
    setup = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env={
            **env,
            "DJANGO_PRODUCTION": "1",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
            "SIESTA_SITE_URL": f"http://127.0.0.1:{port}",
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return setup.stdout.strip().splitlines()[-1]


def spawn_up(env: dict[str, str], log: IO[str]) -> subprocess.Popen:
    """deploy/up.sh (what `make up` runs) in a session of its own, its output to ``log``."""
    return subprocess.Popen(
        [str(ROOT / "deploy" / "up.sh")],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def stop_up(stack: subprocess.Popen) -> None:
    """Ctrl-C: supervisord stops every process. Should it not within a minute, it and every
    process of its session are killed; so is anything Ctrl-C left behind (each program has a
    process group of its own)."""
    processes = []
    with contextlib.suppress(psutil.Error):
        processes = psutil.Process(stack.pid).children(recursive=True)
    if stack.poll() is None:
        os.killpg(stack.pid, signal.SIGINT)
    try:
        stack.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(stack.pid, signal.SIGKILL)
        stack.wait()
    for process in processes:
        with contextlib.suppress(psutil.Error):
            process.kill()


@contextlib.contextmanager
def _make_up(
    tmp_path: Path, **overrides: str
) -> Iterator[tuple[int, dict[str, str], subprocess.Popen, Path]]:
    """`make up` (deploy/up.sh) on free ports, up with both web processes and the bots' worker;
    at the end Ctrl-C (SIGINT) stops it and every port is free again. ``overrides``: environment
    variables of the stack (DATABASE_URL, REDIS_URL, SIESTA_*)."""
    started = time.monotonic()
    port = _free_ports()
    env = {**_stack_env(port), **overrides}
    log_path = tmp_path / "up.log"
    log = log_path.open("w")
    stack = spawn_up(env, log)
    try:
        # Up: nginx and both web processes answer, the bots' worker is ready.
        urls = [f"http://127.0.0.1:{port + i}/rules/" for i in range(3)]
        while not (
            all(_answers(url) for url in urls)
            and re.search(r"bots@\S+ ready", log_path.read_text())
        ):
            assert stack.poll() is None, log_path.read_text()[-3000:]
            assert time.monotonic() - started < 300, log_path.read_text()[-3000:]
            time.sleep(0.5)
        yield port, env, stack, log_path
    finally:
        stop_up(stack)
        log.close()
    for offset in range(3):
        assert _free(port + offset), f"port {port + offset} still answers after Ctrl-C"


def test_make_up_serves_moves_across_processes_and_bots_through_the_worker(tmp_path):
    with _make_up(tmp_path) as (port, env, _stack, log_path):
        data = json.loads(_shell(env, port, SETUP.format(tag=random.randrange(10**9))))
        asyncio.run(_play(port, data))
        assert "games.tasks.bot_move" in log_path.read_text()
        _broadcasts_after_many_requests(port, data)
        up_log = log_path.read_text()
        for failure in ("Too many connections", "could not broadcast", "Traceback"):
            assert failure not in up_log, up_log[-3000:]


# -- a web process killed ------------------------------------------------------------------------

CRASH_SETUP = """
import json
from bench.loadtest import create_tables
tables = create_tables(2, json.loads({scripts!r}))
print(json.dumps([[table.game_id, list(table.tokens)] for table in tables]))
"""


def _supervised_pids() -> dict[str, int]:
    """supervisord's programs and their pids (``supervisorctl status``)."""
    status = subprocess.run(
        [str(ROOT / ".venv/bin/supervisorctl"), "-c", str(ROOT / "var/supervisord.conf"), "status"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    ).stdout
    return {
        match.group(1): int(match.group(2))
        for match in re.finditer(r"^(\S+)\s+RUNNING\s+pid (\d+),", status, re.MULTILINE)
    }


def _moves_held(port: int, game_id: int) -> list[str]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games/{game_id}/", timeout=10) as r:
        return [turn["move"] for turn in json.loads(r.read())["turns"]]


async def _through_a_crash(port: int, tables: list) -> dict:
    """Game 0's players on web process 1, game 1's on web process 2 (their first sockets go
    straight there; every later one through nginx, as the page reconnects). Once game 0 is under
    way, web process 1 is killed (SIGKILL, the real process)."""
    from bench.crash import GameRun, listener_pid, play_game, serves, wait_until

    runs = [GameRun(table, len(table.moves)) for table in tables]
    games = [
        asyncio.ensure_future(
            play_game(
                [f"ws://127.0.0.1:{port}/ws/games/{run.table.game_id}/"],
                run,
                think=0.3,
                first_uri=f"ws://127.0.0.1:{port + 1 + index}/ws/games/{run.table.game_id}/",
            )
        )
        for index, run in enumerate(runs)
    ]
    assert await wait_until(lambda: runs[0].ply >= 4 and runs[1].ply >= 4, 60) is not None
    victim = listener_pid(port + 1)
    assert victim is not None
    assert "daphne" in " ".join(psutil.Process(victim).cmdline())
    before = _supervised_pids()
    at_kill = [run.ply for run in runs]
    os.kill(victim, signal.SIGKILL)

    def back() -> bool:
        pid = listener_pid(port + 1)
        return pid not in (None, victim) and serves(f"http://127.0.0.1:{port + 1}/rules/")

    restarted = await wait_until(back, 120, step=0.2)
    async with asyncio.timeout(120):
        await asyncio.gather(*games)
    return {
        "runs": runs,
        "at_kill": at_kill,
        "victim": victim,
        "restarted": restarted,
        "before": before,
        "after": _supervised_pids(),
    }


def test_a_killed_web_process_is_restarted_alone_and_its_games_go_on(tmp_path):
    """kill -9 of one Daphne mid-game: supervisord starts it again (a new pid serving its port)
    and touches nothing else; the game on the other process is never interrupted; the killed
    one's players reconnect (through nginx), get the state and finish the game: every move the
    players saw applied is in the database, in order, and none is applied twice."""
    from bench.loadtest import Table, script_games

    scripts = [script_games(1, seed=5, max_turns=14)[0], script_games(1, seed=6, max_turns=40)[0]]
    with _make_up(tmp_path) as (port, env, stack, log_path):
        made = json.loads(_shell(env, port, CRASH_SETUP.format(scripts=json.dumps(scripts))))
        tables = [
            Table(game_id, tuple(tokens), script)
            for (game_id, tokens), script in zip(made, scripts, strict=True)
        ]
        seen = asyncio.run(_through_a_crash(port, tables))
        killed, spared = seen["runs"]

        # The killed process is back, alone: a new pid on its port; every other program (the
        # other web process, nginx, the workers, beat) kept its pid; make up still runs.
        assert seen["restarted"] is not None, log_path.read_text()[-3000:]
        before, after = seen["before"], seen["after"]
        assert before["siesta:web-1"] == seen["victim"]
        assert after["siesta:web-1"] != seen["victim"]
        assert {k: v for k, v in after.items() if k != "siesta:web-1"} == {
            k: v for k, v in before.items() if k != "siesta:web-1"
        }
        assert stack.poll() is None
        assert "exited: web-1 (terminated by SIGKILL; not expected)" in log_path.read_text()

        # The other process's game went on without a closed socket, past the kill.
        assert spared.closes == 0, spared.errors
        assert spared.done
        assert spared.ply > seen["at_kill"][1]
        # The killed one's game resumed and finished; nothing lost, nothing doubled.
        assert killed.closes >= 1
        assert killed.resumes, killed.errors
        assert killed.done
        for run in (killed, spared):
            assert _moves_held(port, run.table.game_id) == run.table.moves

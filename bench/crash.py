"""What a web process's crash costs a player: ``python -m bench.crash --url http://127.0.0.1:8000``
against a running ``make up`` (the same ``DATABASE_URL`` and ``REDIS_URL``; docs/reliability.md).

N two-player games of scripted players (``bench.loadtest``'s scripts) over WebSockets through
nginx. Once every game has moved a few times, the web process holding the most sockets is killed
with SIGKILL. Each player then does what the game page does: reconnect (every ``RECONNECT_DELAY``),
read the state the server sends, and play its move again when it is still its turn at that ply
(a move in flight when the process died). Reported:

- the games whose sockets closed (those on the killed process, when nothing else went down) and,
  for each, the seconds from the close to the first state on a new socket (resume; -1: never),
  and the moves played again (in flight when the socket closed);
- moves lost: plies the players saw applied that the database does not hold at the end, and
  games that never reached their last ply;
- when a new process serves the killed one's port again (a new pid), if it does.

Every client wait is bounded; a game not finished ``--give-up`` seconds after the kill counts as
never resumed.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
import urllib.request
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import psutil
import websockets
from django.core.management.base import BaseCommand, CommandParser

from bench import run_command
from bench.loadtest import Table, create_tables, script_games, ws_base

RECONNECT_DELAY = 0.25
"""Seconds between a player's reconnection attempts (the page backs off from a similar start)."""

STATE_TIMEOUT = 5.0
"""A player that hears nothing this long asks for the state again (``sync``)."""


@dataclass
class GameRun:
    """What the players of one game saw."""

    table: Table
    last_ply: int
    ply: int = 0
    closes: int = 0
    resent: int = 0
    resumes: list[float] = field(default_factory=list)
    done: bool = False
    errors: list[str] = field(default_factory=list)


async def play_game(
    uris: list[str], run: GameRun, think: float, first_uri: str | None = None
) -> None:
    """Both players of ``run``'s game until its last ply, reconnecting as the page does. The first
    socket of each player goes to ``first_uri`` (default: ``uris[0]``), every later one to the
    next of ``uris`` in turn."""

    async def player(seat: int) -> None:
        sent_before: set[int] = set()
        lost_at: float | None = None
        attempt = 0
        while True:
            uri = first_uri if attempt == 0 and first_uri else uris[attempt % len(uris)]
            attempt += 1
            try:
                async with websockets.connect(uri, open_timeout=5, close_timeout=1) as socket:
                    token = run.table.tokens[seat - 1]
                    await socket.send(json.dumps({"type": "auth", "token": token}))
                    sent_here: set[int] = set()
                    while True:
                        try:
                            raw = await asyncio.wait_for(socket.recv(), STATE_TIMEOUT)
                        except TimeoutError:
                            await socket.send(json.dumps({"type": "sync"}))
                            continue
                        message = json.loads(raw)
                        if message["type"] == "error":
                            run.errors.append(str(message.get("error")))
                            continue
                        if message["type"] != "state":
                            continue
                        if lost_at is not None:
                            run.resumes.append(time.monotonic() - lost_at)
                            lost_at = None
                        game = message["game"]
                        ply = game["ply"]
                        run.ply = max(run.ply, ply)
                        if ply >= run.last_ply:
                            run.done = True
                            return
                        if game["to_move"] == seat and ply not in sent_here:
                            sent_here.add(ply)
                            await asyncio.sleep(think)
                            if ply in sent_before:
                                run.resent += 1  # in flight when its socket closed
                            move = run.table.moves[ply]
                            frame = {"type": "move", "move": move, "ply": ply}
                            await socket.send(json.dumps(frame))
                            sent_before.add(ply)
            except (websockets.ConnectionClosed, OSError, TimeoutError) as exc:
                if lost_at is None:
                    lost_at = time.monotonic()
                    run.closes += 1
                    run.errors.append(f"seat {seat}: {type(exc).__name__}")
                await asyncio.sleep(RECONNECT_DELAY)

    await asyncio.gather(player(1), player(2))


def listener_pid(port: int) -> int | None:
    """The pid listening on ``port`` on this machine, if any."""
    for conn in psutil.net_connections("tcp"):
        if conn.status == psutil.CONN_LISTEN and conn.laddr.port == port and conn.pid:
            return int(conn.pid)
    return None


def established(ports: list[int]) -> dict[int, int]:
    """Connections open to each of ``ports`` (nginx's ends of the web processes' sockets)."""
    counts = dict.fromkeys(ports, 0)
    for conn in psutil.net_connections("tcp"):
        if conn.status == psutil.CONN_ESTABLISHED and conn.laddr.port in counts:
            counts[conn.laddr.port] += 1
    return counts


def serves(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


async def wait_until(condition: Any, within: float, step: float = 0.1) -> float | None:
    """Seconds until ``condition()`` held (checked in a thread), or None after ``within``."""
    started = time.monotonic()
    while time.monotonic() - started < within:
        if await asyncio.to_thread(condition):
            return time.monotonic() - started
        await asyncio.sleep(step)
    return None


async def crash_run(
    url: str, tables: list[Table], web_ports: list[int], think: float, give_up: float
) -> dict[str, Any]:
    base = ws_base(url)
    runs = [GameRun(table, len(table.moves)) for table in tables]
    games = [
        asyncio.ensure_future(play_game([f"{base}/ws/games/{run.table.game_id}/"], run, think))
        for run in runs
    ]
    # Every game under way, then the process holding the most of their sockets dies.
    await wait_until(lambda: all(run.ply >= 3 for run in runs), 60)
    counts = established(web_ports)
    port = max(counts, key=lambda p: counts[p])
    victim = listener_pid(port)
    assert victim is not None, f"nothing listens on {port}"
    closes_before = [run.closes for run in runs]
    os.kill(victim, signal.SIGKILL)
    killed_at = time.monotonic()

    def back() -> bool:
        pid = listener_pid(port)
        return pid is not None and pid != victim and serves(f"http://127.0.0.1:{port}/rules/")

    back_after = asyncio.ensure_future(wait_until(back, give_up, step=0.2))
    try:
        async with asyncio.timeout(give_up):
            await asyncio.gather(*games)
    except TimeoutError:
        pass
    finished_after = time.monotonic() - killed_at
    for game in games:
        game.cancel()
    await asyncio.gather(*games, return_exceptions=True)
    restarted = await back_after

    hit = [run for run, before in zip(runs, closes_before, strict=True) if run.closes > before]
    return {
        "games": len(runs),
        "connections_per_web_port": counts,
        "killed": {"port": port, "pid": victim},
        "games_whose_sockets_closed": len(hit),
        "resume_seconds": sorted(round(max(run.resumes, default=-1), 2) for run in hit),
        "never_resumed": sum(1 for run in hit if not run.done),
        "moves_played_again": sum(run.resent for run in hit),
        "moves_lost": await asyncio.to_thread(lost_moves, runs),
        "unfinished_games": sum(1 for run in runs if not run.done),
        "process_back_seconds": None if restarted is None else round(restarted, 2),
        "seconds_until_all_done_or_given_up": round(finished_after, 2),
    }


def lost_moves(runs: list[GameRun]) -> int:
    """Plies a player saw applied that the database does not hold, and database moves that are not
    the scripted ones (a move applied twice or out of place)."""
    from games.models import Game

    # One move per ply (a unique constraint), so a move applied twice shows as a wrong one here.
    lost = 0
    for run in runs:
        game = Game.objects.get(pk=run.table.game_id)
        moves = list(game.turns.order_by("ply").values_list("move", flat=True))
        lost += max(0, run.ply - len(moves))
        lost += sum(
            1 for held, scripted in zip(moves, run.table.moves, strict=False) if held != scripted
        )
    return lost


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000")
        parser.add_argument("--games", type=int, default=6)
        parser.add_argument("--turns", type=int, default=24)
        parser.add_argument("--think", type=float, default=0.3)
        parser.add_argument("--web", type=int, default=2, help="web processes of the stack")
        parser.add_argument("--give-up", type=float, default=60.0)
        parser.add_argument("--seed", type=int, default=7)

    def handle(self, *args: Any, **options: Any) -> None:
        port = urlsplit(options["url"]).port or 80
        web_ports = [port + 1 + index for index in range(options["web"])]
        scripts = script_games(options["games"], seed=options["seed"], max_turns=options["turns"])
        tables = create_tables(options["games"], scripts)
        report = asyncio.run(
            crash_run(options["url"], tables, web_ports, options["think"], options["give_up"])
        )
        self.stdout.write(json.dumps(report, indent=2))


if __name__ == "__main__":
    run_command(Command, "bench.crash")

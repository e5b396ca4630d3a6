"""``python -m bench.bench_move``: the server's CPU per move, in one process, without a network.

Plays scripted two-player games through the site's own ASGI application (``siesta_site.asgi``:
Origin check, session and auth middleware, the game consumer, the worker threads, the services,
the channel layer of the settings — Redis with ``REDIS_URL`` — and both players' state frames),
with Channels' in-memory test communicators instead of Daphne and sockets. Prints the process's CPU
time per move (every thread; the clients' few JSON decodes included), the PostgreSQL backends' CPU
per move (backends of this database on this machine, read from ``/proc``), the queries per move
and moves per second. What Daphne adds (WebSocket framing, its own bookkeeping) is not counted:
``python -m bench.loadtest`` against ``make up`` measures the whole stack.

Profile it with py-spy (``py-spy record -f raw -o out.txt -- python -m bench.bench_move``).
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import threading
import time
from typing import Any

import psutil
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db.backends.signals import connection_created

from bench import loadtest, run_command


class _Queries:
    count = 0

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        _Queries.count += 1
        return execute(sql, params, many, context)


_counter = _Queries()


def _count_queries(sender: Any, connection: Any, **kwargs: Any) -> None:
    if _counter not in connection.execute_wrappers:
        connection.execute_wrappers.append(_counter)


def _thread_cpu() -> dict[str, float]:
    """CPU seconds of this process's threads, by name (the pool's threads summed)."""
    ticks = os.sysconf("SC_CLK_TCK")
    names = {t.native_id: t.name for t in threading.enumerate()}
    found: dict[str, float] = {}
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        name = names.get(int(task), "other").rstrip("_0123456789")
        found[name] = found.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / ticks
    return found


def _backends(database: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        cmd = " ".join(proc.info["cmdline"] or [])
        if cmd.startswith("postgres:") and f" {database} " in f"{cmd} ":
            found.append(proc)
    return found


def _cpu(procs: list[psutil.Process]) -> float:
    total = 0.0
    for proc in procs:
        try:
            times = proc.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            continue
    return total


async def _receive_until(client: WebsocketCommunicator, wanted: Any) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(await client.receive_from(timeout=10))
        if message["type"] == "error":
            raise RuntimeError(message)
        if wanted(message):
            return message


def _is_state_of(message: dict[str, Any], *, ply: int) -> bool:
    return bool(message["type"] == "state" and message["game"]["ply"] == ply)


async def _play(application: Any, table: loadtest.Table, moves: int) -> int:
    """Play ``moves`` scripted turns of one game: the mover waits for its ack and both players
    for the new state."""
    clients = []
    for seat in (1, 2):
        client = WebsocketCommunicator(application, f"/ws/games/{table.game_id}/")
        connected, _ = await client.connect(timeout=10)
        assert connected
        await _receive_until(client, lambda m: m["type"] == "state")
        await client.send_to(
            text_data=json.dumps({"type": "auth", "token": table.tokens[seat - 1]})
        )
        await _receive_until(client, lambda m: m["type"] == "auth")
        clients.append(client)
    played = 0
    for ply, move in enumerate(table.moves[:moves]):
        mover = clients[ply % 2]
        frame = {"type": "move", "move": move, "ply": ply, "id": ply}
        await mover.send_to(text_data=json.dumps(frame))
        for client in clients:
            await _receive_until(client, functools.partial(_is_state_of, ply=ply + 1))
        played += 1
    for client in clients:
        await client.disconnect()
    return played


class _NoMetric:
    """A metric that records nothing."""

    def observe(self, *args: Any) -> None:
        pass

    inc = dec = set = observe


def _without_metrics() -> None:
    """The metrics a move moves (its latency, the socket's frames; a socket's open and close)
    replaced by no-ops, where the move path reads them."""
    from core import sockets
    from games import consumers

    setattr(consumers, "MOVE_SECONDS", _NoMetric())  # noqa: B010 (not exported)
    setattr(sockets, "_socket_metrics", lambda kind: (_NoMetric(), _NoMetric()))  # noqa: B010


class Command(BaseCommand):
    help = "CPU per move of the site's WebSocket move path, in one process (no Daphne, no network)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--games", type=int, default=6, help="games played one after another")
        parser.add_argument("--moves", type=int, default=30, help="turns per game (at most)")
        parser.add_argument("--warmup", type=int, default=1, help="games played before measuring")
        parser.add_argument(
            "--no-metrics",
            action="store_true",
            help="the move path's metrics (core/metrics.py) replaced by no-ops: their overhead is "
            "the difference (with PROMETHEUS_MULTIPROC_DIR set, the multiprocess mode's)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        from siesta_site.asgi import application

        if options["no_metrics"]:
            _without_metrics()

        games, warmup = options["games"], options["warmup"]
        scripts = loadtest.script_games(games + warmup, max_turns=options["moves"])
        tables = loadtest.create_tables(games + warmup, scripts)
        connection_created.connect(_count_queries)
        database = str(settings.DATABASES["default"]["NAME"])

        async def run(selected: list[loadtest.Table]) -> int:
            total = 0
            for table in selected:
                total += await _play(application, table, options["moves"])
            return total

        asyncio.run(run(tables[:warmup]))
        backends = _backends(database)
        pg_start = _cpu(backends)
        queries_start = _Queries.count
        threads_start = _thread_cpu()
        cpu_start = time.process_time()
        wall_start = time.perf_counter()
        moves = asyncio.run(run(tables[warmup:]))
        wall = time.perf_counter() - wall_start
        cpu = time.process_time() - cpu_start
        # Backends opened during the run (the pool growing) count from zero.
        new = [p for p in _backends(database) if p.pid not in {b.pid for b in backends}]
        pg = _cpu(backends) - pg_start + _cpu(new)
        queries = _Queries.count - queries_start
        threads = {
            name: round(1000 * (seconds - threads_start.get(name, 0.0)) / moves, 2)
            for name, seconds in sorted(_thread_cpu().items())
        }
        report = {
            "moves": moves,
            "moves_per_s": round(moves / wall, 1),
            "process_cpu_ms_per_move": round(1000 * cpu / moves, 2),
            "postgres_cpu_ms_per_move": round(1000 * pg / moves, 2),
            "server_cpu_ms_per_move": round(1000 * (cpu + pg) / moves, 2),
            "queries_per_move": round(queries / moves, 2),
            "threads_cpu_ms_per_move": threads,
        }
        self.stdout.write(json.dumps(report))


if __name__ == "__main__":
    run_command(Command, "bench.bench_move")

"""The load benchmark: ``python -m bench.loadtest`` (``make loadtest``, docs/performance.md).

N two-player games of scripted players over WebSockets against a running site (``make up``), and,
in the same run, the same players on the bare echo consumer (``bench/echo.py``) as the floor:
what the server, the channel layer and this client cost with no game behind them.

A move's latency is the time from the mover's ``move`` frame to the opponent's ``state`` frame of
the new ply (for the floor: from one socket's frame to the other's copy of it). The players' moves
are scripted before the run with the engine (so the clients spend no CPU choosing), and every game
stops one turn before its end, so that no game finishes (and no analysis runs) while measuring.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import random
import statistics
import time
from collections.abc import Coroutine, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psutil
import websockets
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench import run_command
from games.engine import Position
from games.engine.search import best_turn, random_turn

STATE_TIMEOUT = 10.0
"""A move whose state has not reached the opponent this long after it was sent counts as lost (the
client syncs)."""

DEADLINE_GRACE = STATE_TIMEOUT + 5.0
"""Seconds after a phase's end by which every game and echo pair of it has stopped. One still open
then (a socket that went silent, a server that stopped answering) is cut off: its moves in flight
count as lost and the game as an error, and the client goes on (it never hangs)."""


# -- setup (database) --------------------------------------------------------------------------


def script_games(count: int, seed: int = 1, max_turns: int = 40) -> list[list[str]]:
    """Move lists of two-player games, each stopping one turn before the game would end."""
    rng = random.Random(seed)
    scripts = []
    for _ in range(count):
        pos = Position(2, "standard")
        moves: list[str] = []
        while len(moves) < max_turns:
            turn = random_turn(pos, rng) or best_turn(pos).turn
            if turn is None:
                break
            pos.play(turn)
            if pos.over:
                break
            moves.append(str(turn))
        scripts.append(moves)
    return scripts


@dataclass
class Table:
    game_id: int
    tokens: tuple[str, str]
    moves: list[str]


def create_tables(count: int, scripts: list[list[str]]) -> list[Table]:
    """``count`` active two-player games between fresh users, with API tokens (through the
    services, as the lobby would; users in bulk)."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from games import services

    user_model = get_user_model()
    tag = f"{int(time.time())}{random.randrange(1000):03d}"
    users = user_model.objects.bulk_create(
        [user_model(username=f"load{tag}_{index}") for index in range(2 * count)]
    )
    if users and users[0].pk is None:  # backends that return no ids
        users = list(user_model.objects.filter(username__startswith=f"load{tag}_").order_by("pk"))
    tokens = Token.objects.bulk_create([Token(user=u, key=Token.generate_key()) for u in users])
    tables = []
    for index in range(count):
        first, second = users[2 * index], users[2 * index + 1]
        game = services.game_create(user=first, players=2, turn_seconds=3600, rated=False)
        services.game_join(game_id=game.pk, user=second)
        tables.append(
            Table(game.pk, (tokens[2 * index].key, tokens[2 * index + 1].key), scripts[index])
        )
    analyze_tables()
    return tables


def analyze_tables() -> None:
    """Refresh PostgreSQL's statistics of the tables a move and a sign-in read.

    The benchmark adds thousands of users and games in seconds, faster than autovacuum analyzes
    them again. On stale statistics (a few rows per table) the planner joined the seats to their
    users through a full scan of the users (1.6 ms a move at 7,200 users, growing with every run),
    which a site that grows at a human pace never sees."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from rest_framework.authtoken.models import Token

    from games.models import Game, Seat, Turn

    if connection.vendor != "postgresql":
        return
    names = [m._meta.db_table for m in (get_user_model(), Token, Game, Seat, Turn)]
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE " + ", ".join(connection.ops.quote_name(n) for n in names))


# -- measuring -----------------------------------------------------------------------------------


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No garbage collection in this client while it measures.

    The client holds Django, every scripted game and hundreds of sockets, and parses a state per
    move: its full collections took 90-120 ms, every few seconds at N=200, during which no frame
    was read, and the moves in flight counted that wait as the server's. What the client made
    before is frozen out of later collections; what it leaves in cycles while measuring (a few MB
    at most) is collected afterwards."""
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()


@dataclass
class Result:
    name: str
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lost: int = 0
    elapsed: float = 0.0
    started: float = field(default_factory=time.perf_counter)
    last: float = 0.0
    played: int = 0
    """Moves made, those of a warm-up included (what the server's CPU is divided by)."""

    def record(self, sent_at: float) -> None:
        """A move sent at ``sent_at`` (``time.perf_counter``) has reached the other player now;
        its latency counts when it was sent after ``started``."""
        now = time.perf_counter()
        self.played += 1
        if sent_at >= self.started:
            self.latencies.append(now - sent_at)
            self.last = now

    @property
    def moves(self) -> int:
        return len(self.latencies)

    def summary(self) -> dict[str, Any]:
        values = sorted(self.latencies)

        def pct(p: float) -> float | None:
            if not values:
                return None
            return round(values[min(len(values) - 1, int(p * len(values)))] * 1000, 1)

        return {
            "name": self.name,
            "moves": self.moves,
            "moves_per_s": round(self.moves / self.elapsed, 1) if self.elapsed else 0.0,
            "p50_ms": pct(0.5),
            "p90_ms": pct(0.9),
            "p99_ms": pct(0.99),
            "max_ms": round(values[-1] * 1000, 1) if values else None,
            "mean_ms": round(statistics.fmean(values) * 1000, 1) if values else None,
            "lost": self.lost,
            "errors": len(self.errors),
            "first_errors": self.errors[:5],
        }


def ws_base(url: str) -> str:
    parts = urlsplit(url)
    scheme = "wss" if parts.scheme in ("https", "wss") else "ws"
    return f"{scheme}://{parts.netloc}"


async def _play_game(
    base: str,
    table: Table,
    think: float,
    deadline: float,
    result: Result,
    rng: random.Random,
    turns: int | None = None,
    hard_deadline: float | None = None,
) -> None:
    """Two players of one game; each plays its scripted turns (the first ``turns`` of them, when
    given) after ``think`` seconds. No move is made after ``deadline``; by ``hard_deadline``
    (``time.monotonic``; default ``deadline`` + ``DEADLINE_GRACE``) the game has stopped,
    cut off if need be."""
    sent: dict[int, float] = {}  # ply the move leads to -> when it was sent
    last_ply = len(table.moves) if turns is None else min(turns, len(table.moves))
    if hard_deadline is None:
        hard_deadline = deadline + DEADLINE_GRACE

    async def player(seat: int) -> None:
        uri = f"{base}/ws/games/{table.game_id}/"
        async with websockets.connect(uri, open_timeout=60, max_size=2**22) as socket:
            await socket.send(json.dumps({"type": "auth", "token": table.tokens[seat - 1]}))
            ply = -1
            while True:
                awaited = sent.get(ply + 1) if seat != _mover(ply) else None
                wait = STATE_TIMEOUT
                if awaited is not None:  # the opponent's move is out: late STATE_TIMEOUT after it
                    wait = max(0.0, awaited + STATE_TIMEOUT - time.perf_counter())
                try:
                    raw = await asyncio.wait_for(socket.recv(), wait)
                except TimeoutError:
                    awaited = sent.get(ply + 1) if seat != _mover(ply) else None
                    if awaited is not None:
                        if time.perf_counter() - awaited < STATE_TIMEOUT:
                            continue  # sent while this player waited: not late yet
                        sent.pop(ply + 1)
                        result.lost += 1
                    if time.monotonic() >= deadline:
                        return
                    await socket.send(json.dumps({"type": "sync"}))
                    continue
                message = json.loads(raw)
                if message["type"] == "error":
                    result.errors.append(f"game {table.game_id}: {message.get('error')}")
                    continue
                if message["type"] != "state" or message["game"]["ply"] <= ply:
                    continue
                game = message["game"]
                ply = game["ply"]
                if ply > 0 and game["turns"][-1]["seat"] != seat:
                    started = sent.pop(ply, None)
                    if started is not None:
                        result.record(started)
                if ply >= last_ply or time.monotonic() >= deadline:
                    return
                if game["to_move"] == seat:
                    await asyncio.sleep(think * rng.uniform(0.8, 1.2) if think else 0)
                    sent[ply + 1] = time.perf_counter()
                    await socket.send(
                        json.dumps({"type": "move", "move": table.moves[ply], "ply": ply})
                    )

    tasks = [asyncio.ensure_future(player(seat)) for seat in (1, 2)]
    finished: set[asyncio.Task[None]] = set()
    try:
        async with asyncio.timeout_at(hard_deadline):
            # The game is over for the benchmark when either player stops: its opponent stops too.
            finished, _pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    except TimeoutError:
        result.lost += len(sent)
        result.errors.append(
            f"game {table.game_id}: still open at the deadline, {len(sent)} move(s) in flight"
        )
        sent.clear()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    for done in finished:
        if not done.cancelled() and done.exception() is not None:  # refused or dropped
            exc = done.exception()
            result.errors.append(f"game {table.game_id}: {type(exc).__name__}: {exc}")


def _mover(ply: int) -> int:
    """The seat to move at ``ply`` of a two-player game."""
    return 1 + ply % 2


async def echo_available(url: str) -> bool:
    """Whether the site routes the echo socket (``SIESTA_ECHO_WS``, off unless asked for)."""
    try:
        async with websockets.connect(f"{ws_base(url)}/ws/echo/probe/", open_timeout=10):
            return True
    except (OSError, TimeoutError, websockets.InvalidHandshake):
        return False


async def _echo_pair(
    base: str,
    room: str,
    turns: int,
    think: float,
    deadline: float,
    result: Result,
    rng: Any,
    commit: bool = False,
) -> None:
    """Two sockets in one echo room taking turns: each frame's copy reaching the other socket
    (after a transaction's commit, with ``commit``: ``bench/echo.py``)."""
    uri = f"{base}/ws/echo/{room}/" + ("?commit=1" if commit else "")
    try:
        async with (
            asyncio.timeout_at(deadline + DEADLINE_GRACE),
            websockets.connect(uri, open_timeout=60) as first,
            websockets.connect(uri, open_timeout=60) as second,
        ):
            sockets = (first, second)
            await asyncio.sleep(0.2)  # both joined the group
            for index in range(turns):
                if time.monotonic() >= deadline:
                    break
                mover, other = sockets[index % 2], sockets[1 - index % 2]
                await asyncio.sleep(think * rng.uniform(0.8, 1.2) if think else 0)
                frame = json.dumps({"type": "move", "n": index, "pad": "x" * 64})
                started = time.perf_counter()
                await mover.send(frame)
                try:
                    while (
                        json.loads(await asyncio.wait_for(other.recv(), STATE_TIMEOUT))["n"]
                        != index
                    ):
                        pass
                except TimeoutError:
                    result.lost += 1
                    continue
                result.record(started)
                # the mover's own copy
                while json.loads(await asyncio.wait_for(mover.recv(), STATE_TIMEOUT))["n"] != index:
                    pass
    except Exception as exc:
        result.errors.append(f"echo {room}: {type(exc).__name__}: {exc}")


def tables_per_slot(games: int, think: float, duration: float, turns: int = 12) -> int:
    """How many games each of the ``games`` concurrent slots may need to play back to back to
    keep going for ``duration``: games as short as the shortest scripted ones (``turns``) and,
    flat-out, up to 500 moves/s in all. A slot that runs out of games ends its phase early."""
    moves = duration / think if think else duration * 500 / games
    return max(1, int(moves / turns) + 1)


async def run_games(
    url: str,
    slots: list[list[Table]],
    think: float,
    duration: float,
    *,
    steady: bool = False,
    stagger: float = 0.0,
) -> Result:
    """Each slot plays its games one after the other until ``duration`` is over.

    All the slots start at once, so their games begin and end in step: every ~10 s (a scripted
    game's length at 0.5 s think) all the players leave their games and join new ones within a
    second. ``steady`` spreads that out as on a site whose games began at different times: each
    slot's first game stops after a random number of its turns, and moves count only after a
    warm-up (``STEADY_WARMUP``) that covers the first joins. ``stagger`` spreads the first games'
    starts evenly over that many seconds (``stagger_offsets``), as players arrive, and moves count
    once the last has started. Every game has stopped ``DEADLINE_GRACE`` after the end."""
    result = Result("site")
    rng = random.Random(2)
    warmup = max(STEADY_WARMUP if steady else 0.0, stagger)
    result.started = time.perf_counter() + warmup
    deadline = time.monotonic() + warmup + duration

    async def slot(tables: list[Table], first_turns: int | None, offset: float) -> None:
        await asyncio.sleep(offset)
        for index, table in enumerate(tables):
            if time.monotonic() >= deadline:
                return
            turns = first_turns if index == 0 else None
            await _play_game(ws_base(url), table, think, deadline, result, rng, turns)

    offsets = stagger_offsets(len(slots), stagger)
    await asyncio.gather(
        *(
            slot(tables, first_game_turns(tables[0], rng) if steady else None, offset)
            for tables, offset in zip(slots, offsets, strict=True)
        )
    )
    result.elapsed = (result.last or time.perf_counter()) - result.started
    return result


def stagger_offsets(count: int, window: float) -> list[float]:
    """When each of ``count`` slots starts its first game, in seconds from the phase's start:
    evenly over ``window`` (all at once when it is 0), one start every ``window / count``."""
    return [window * index / count for index in range(count)]


STEADY_WARMUP = 3.0
"""Seconds of a steady run before moves count: the players of the first games connect and join
together (400 sockets at N=200 take 1.5-2 s), which a site in full swing never sees at once."""


def first_game_turns(table: Table, rng: random.Random) -> int:
    """How many turns of its first game a slot plays in a steady run: any number from one to all,
    so that the slots' later games begin and end at times spread over a game's length."""
    return rng.randint(1, max(1, len(table.moves)))


async def run_floor(
    url: str,
    pairs: int,
    turns: int,
    think: float,
    duration: float,
    *,
    steady: bool = False,
    commit: bool = False,
) -> Result:
    """``pairs`` echo pairs for ``duration`` seconds (after the same warm-up as a steady run of
    the games, with ``steady``; each frame committed before it is echoed, with ``commit``)."""
    result = Result("commit floor" if commit else "floor")
    rng = random.Random(3)
    tag = f"{time.time():.0f}"
    warmup = STEADY_WARMUP if steady else 0.0
    result.started = time.perf_counter() + warmup
    deadline = time.monotonic() + warmup + duration
    await asyncio.gather(
        *(
            _echo_pair(ws_base(url), f"{tag}-{i}", turns, think, deadline, result, rng, commit)
            for i in range(pairs)
        )
    )
    result.elapsed = (result.last or time.perf_counter()) - result.started
    return result


async def connect_watchers(url: str, game_ids: list[int], count: int) -> dict[str, Any]:
    """``count`` anonymous watchers connecting at once; each must get the game's state."""
    base = ws_base(url)
    sockets: list[Any] = []
    failures: list[str] = []
    times: list[float] = []

    async def watcher(index: int) -> None:
        started = time.perf_counter()
        try:
            socket = await websockets.connect(
                f"{base}/ws/games/{game_ids[index % len(game_ids)]}/", open_timeout=60
            )
            sockets.append(socket)
            message = json.loads(await asyncio.wait_for(socket.recv(), 60))
            if message.get("type") != "state":
                failures.append(f"watcher {index}: {message}")
                return
            times.append(time.perf_counter() - started)
        except Exception as exc:
            failures.append(f"watcher {index}: {type(exc).__name__}: {exc}")

    start = time.perf_counter()
    await asyncio.gather(*(watcher(i) for i in range(count)))
    elapsed = time.perf_counter() - start
    await asyncio.gather(*(s.close() for s in sockets), return_exceptions=True)
    return {
        "watchers": count,
        "connected": len(times),
        "failed": len(failures),
        "first_failures": failures[:5],
        "all_in_s": round(elapsed, 2),
        "p50_ms": round(statistics.median(times) * 1000, 1) if times else None,
        "max_ms": round(max(times) * 1000, 1) if times else None,
    }


# -- processes ------------------------------------------------------------------------------------


def stack_processes(base_dir: Path, database: str) -> dict[str, list[psutil.Process]]:
    """The stack's processes on this machine, by role: this checkout's Daphne and Celery
    processes, its nginx, the PostgreSQL backends of ``database`` and Redis."""
    roles: dict[str, list[psutil.Process]] = {}
    for proc in psutil.process_iter(["pid", "cmdline", "name"]):
        try:
            cmd = " ".join(proc.info["cmdline"] or [])
            role = None
            if "$PORT" in cmd:  # the shell honcho starts each command with
                continue
            if "daphne" in cmd or "celery" in cmd:
                if Path(proc.cwd()).resolve() != base_dir.resolve():
                    continue
                if "daphne" in cmd:
                    port = cmd.split(" -p ")[1].split()[0] if " -p " in cmd else "?"
                    role = f"web:{port}"
                else:
                    role = "celery:" + (
                        cmd.split(" -n ")[1].split("@")[0] if " -n " in cmd else "beat"
                    )
            elif cmd.startswith("nginx:") and "var/nginx" in cmd:
                role = "nginx"
            elif cmd.startswith("nginx: worker"):
                parent = proc.parent()
                if parent and "var/nginx" in " ".join(parent.cmdline()):
                    role = "nginx"
            elif cmd.startswith("postgres:") and f" {database} " in f"{cmd} ":
                role = "postgres"
            elif proc.info["name"] == "redis-server":
                role = "redis (whole server)"
            if role is not None:
                roles.setdefault(role, []).append(proc)
        except (psutil.Error, IndexError):
            continue
    return roles


def cpu_seconds(procs: Iterable[psutil.Process]) -> dict[int, float]:
    seconds = {}
    for proc in procs:
        try:
            times = proc.cpu_times()
            seconds[proc.pid] = times.user + times.system
        except psutil.Error:
            continue
    return seconds


def usage(
    before: dict[str, list[psutil.Process]],
    start: dict[int, float],
    elapsed: float,
    after: dict[str, list[psutil.Process]] | None = None,
) -> dict[str, dict[str, float]]:
    """CPU (share of one core over the run) and RSS (MB) by role, from ``start`` to now.

    ``after`` are the stack's processes at the end: those started during the run (PostgreSQL
    backends opened as a pool grows under load) count all their CPU, as it was all spent in it."""
    report = {}
    for role in sorted(set(before) | set(after or {})):
        procs = {p.pid: p for p in before.get(role, []) + (after or {}).get(role, [])}
        cpu, rss = 0.0, 0
        for proc in procs.values():
            try:
                times = proc.cpu_times()
                cpu += times.user + times.system - start.get(proc.pid, 0.0)
                rss += proc.memory_info().rss
            except psutil.Error:
                continue
        report[role] = {
            "cpu_s": round(cpu, 2),
            "cpu_pct": round(100 * cpu / elapsed, 1),
            "rss_mb": round(rss / 2**20, 1),
        }
    return report


def server_cpu_ms_per_move(usage_by_role: dict[str, dict[str, float]], moves: int) -> float:
    """The server's CPU per move in ms: the web processes' and the database backends' (``usage``).
    The load client, nginx, Redis and the Celery processes are left out."""
    server_cpu = sum(
        v["cpu_s"]
        for role, v in usage_by_role.items()
        if role.startswith("web") or role == "postgres"
    )
    return round(1000 * server_cpu / moves, 2)


def cpu_ms_per_move_by_part(
    usage_by_role: dict[str, dict[str, float]], moves: int
) -> dict[str, float]:
    """The server's CPU per move in ms (``server_cpu_ms_per_move``) split into the web
    processes' and PostgreSQL's; their ratio cancels most of the machine's drift between runs."""
    web = sum(v["cpu_s"] for role, v in usage_by_role.items() if role.startswith("web"))
    database = usage_by_role.get("postgres", {}).get("cpu_s", 0.0)
    return {
        "web_cpu_ms_per_move": round(1000 * web / moves, 2),
        "postgres_cpu_ms_per_move": round(1000 * database / moves, 2),
        "web_over_postgres": round(web / database, 2) if database else 0.0,
    }


# -- capacity: the most games at a human pace ---------------------------------------------------

CAPACITY_P99_MS = 150.0
"""A step passes when its p99 is at most this and nothing was lost (``step_passes``)."""


def step_passes(summary: dict[str, Any], p99_limit_ms: float = CAPACITY_P99_MS) -> bool:
    """Whether a capacity step held: moves were measured, none lost, no error, p99 within the
    limit."""
    p99 = summary.get("p99_ms")
    return (
        summary.get("moves", 0) > 0
        and summary.get("lost", 0) == 0
        and summary.get("errors", 0) == 0
        and p99 is not None
        and p99 <= p99_limit_ms
    )


def next_capacity_step(
    outcomes: dict[int, bool], start: int, step: int, resolution: int, maximum: int
) -> int | None:
    """The number of games to try next, given the steps tried (games -> passed), or None when
    the search is over: ``start``, then up by ``step`` while every step passes (up to
    ``maximum``); after a failure, halfway between the most games that passed below it and the
    fewest that failed, until they are at most ``resolution`` apart."""
    if not outcomes:
        return min(start, maximum)
    failed = [games for games, passed in outcomes.items() if not passed]
    if not failed:
        higher = max(outcomes) + step
        return higher if higher <= maximum else None
    low, high = capacity_bounds(outcomes)
    if high - low <= resolution:
        return None
    return (low + high) // 2


def capacity_bounds(outcomes: dict[int, bool]) -> tuple[int, int]:
    """The most games that passed below the fewest that failed (0 if none passed), and those
    fewest (one more than the most tried when none failed). A pass above a failure (noise) does
    not count: the capacity is what held below every failure."""
    high = min((games for games, passed in outcomes.items() if not passed), default=None)
    if high is None:
        return max(outcomes, default=0), max(outcomes, default=0) + 1
    low = max((games for games, passed in outcomes.items() if passed and games < high), default=0)
    return low, high


def script_pool(count: int, pool: list[list[str]]) -> list[list[str]]:
    """``count`` scripts taken in turn from ``pool`` (scripting costs ~20 ms a game: a capacity
    search scripts its pool once and gives each step's fresh games those moves)."""
    return [pool[index % len(pool)] for index in range(count)]


# -- the command -----------------------------------------------------------------------------------
# Run it against ``make up`` with the same environment (it creates its users and games in the
# site's database): ``make loadtest GAMES=20`` or ``python -m bench.loadtest --url
# http://127.0.0.1:8000 --games 200 --think 0.5 --duration 30``. Prints one JSON object: the
# site's and the floor's (and with ``--commit-floor`` the commit floor's) latencies
# (p50/p90/p99/max), moves/s, lost states and errors, the ratios to the floor, CPU and RSS per
# process of the stack, and, with ``--watchers``, how many watchers connecting at once got in.
# ``--capacity`` searches the most games at a human pace instead (``capacity``).


class Command(BaseCommand):
    help = "Load benchmark: N games over WebSockets against a running site, and the echo floor."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000")
        parser.add_argument("--games", type=int, default=20)
        parser.add_argument(
            "--think",
            type=float,
            default=None,
            help="seconds before each move (default 0.5; 5 with --capacity)",
        )
        parser.add_argument(
            "--duration",
            type=float,
            default=None,
            help="seconds measured per phase or capacity step (default 30; 60 with --capacity)",
        )
        parser.add_argument("--watchers", type=int, default=0, help="connect this many at once")
        parser.add_argument("--no-floor", action="store_true", help="skip the echo floor")
        parser.add_argument(
            "--commit-floor",
            action="store_true",
            help="also measure the echo with a move's transaction around it (bench/echo.py)",
        )
        parser.add_argument(
            "--steady",
            action="store_true",
            help="games begin and end at times spread out, measured after a warm-up",
        )
        parser.add_argument(
            "--stagger",
            type=float,
            default=None,
            help="spread the games' starts over this many seconds, measured after it "
            "(default 0; 60 with --capacity)",
        )
        capacity = parser.add_argument_group("capacity (--capacity)")
        capacity.add_argument(
            "--capacity",
            action="store_true",
            help="search the most games whose p99 stays within --p99-limit with nothing lost, "
            "each step a fresh set of games (no floor)",
        )
        capacity.add_argument("--from-games", type=int, default=250, help="the first step")
        capacity.add_argument("--step", type=int, default=250, help="up by this while passing")
        capacity.add_argument(
            "--resolution", type=int, default=50, help="stop when pass and fail are this close"
        )
        capacity.add_argument("--max-games", type=int, default=2000)
        capacity.add_argument("--p99-limit", type=float, default=CAPACITY_P99_MS, help="ms")

    def handle(self, *args: Any, **options: Any) -> None:
        raise_open_files_limit()
        if options["capacity"]:
            self.capacity(options)
            return
        url, games = options["url"], options["games"]
        think = 0.5 if options["think"] is None else options["think"]
        duration = 30.0 if options["duration"] is None else options["duration"]
        steady, stagger = options["steady"], options["stagger"] or 0.0
        database = str(settings.DATABASES["default"]["NAME"])
        floors = [] if options["no_floor"] else [("floor", False)]
        if options["commit_floor"]:
            floors.append(("commit_floor", True))
        if floors and not asyncio.run(echo_available(url)):
            raise CommandError(
                "the site does not route the echo socket: start it with `make up SIESTA_ECHO_WS=1`"
                " (or pass --no-floor)"
            )
        warmup = max(STEADY_WARMUP if steady else 0.0, stagger)
        per_slot = tables_per_slot(games, think, duration + warmup) + int(steady)
        self.stderr.write(f"scripting and creating {games} x {per_slot} games...")
        tables = create_tables(games * per_slot, script_games(games * per_slot))
        slots = [tables[i::games] for i in range(games)]
        report: dict[str, Any] = {
            "games": games,
            "think_s": think,
            "duration_s": duration,
            "steady": steady,
            "stagger_s": stagger,
        }

        base_dir = Path(settings.BASE_DIR)
        for key, commit in floors:
            self.stderr.write(f"{key.replace('_', ' ')}: echo consumer...")
            floor, floor_usage = _measured(
                base_dir,
                database,
                run_floor(url, games, 10**9, think, duration, steady=steady, commit=commit),
            )
            report[key] = floor.summary()
            if floor.moves:
                report[key]["server_cpu_ms_per_move"] = server_cpu_ms_per_move(
                    floor_usage, floor.played
                )

        self.stderr.write("site: games...")
        site, report["processes"] = _measured(
            base_dir,
            database,
            run_games(url, slots, think, duration, steady=steady, stagger=stagger),
        )
        report["site"] = site.summary()
        if site.moves:
            report["site"]["server_cpu_ms_per_move"] = server_cpu_ms_per_move(
                report["processes"], site.played
            )
            report["site"].update(cpu_ms_per_move_by_part(report["processes"], site.played))
        for key in ("floor", "commit_floor"):
            if key in report:
                report[f"ratios_to_{key}"] = {
                    stat: round(report["site"][stat] / report[key][stat], 2)
                    for stat in ("p50_ms", "p90_ms", "p99_ms", "moves_per_s")
                    if report["site"][stat] and report[key][stat]
                }

        if options["watchers"]:
            self.stderr.write(f"watchers: {options['watchers']} at once...")
            report["watchers"] = asyncio.run(
                connect_watchers(url, [s[0].game_id for s in slots], options["watchers"])
            )
        self.stdout.write(json.dumps(report, indent=2))

    def capacity(self, options: dict[str, Any]) -> None:
        """Steps of fresh games on the running stack, each staggered in and then measured, until
        the most games that hold (``step_passes``) are known to ``--resolution``
        (``next_capacity_step``). Prints each step as it ends and one JSON object at the end."""
        url = options["url"]
        think = 5.0 if options["think"] is None else options["think"]
        duration = 60.0 if options["duration"] is None else options["duration"]
        stagger = 60.0 if options["stagger"] is None else options["stagger"]
        limit = options["p99_limit"]
        database = str(settings.DATABASES["default"]["NAME"])
        base_dir = Path(settings.BASE_DIR)
        per_slot = tables_per_slot(1, think, duration + stagger)
        self.stderr.write("scripting the games' moves...")
        pool = script_games(SCRIPT_POOL)
        outcomes: dict[int, bool] = {}
        steps: list[dict[str, Any]] = []
        while (
            games := next_capacity_step(
                outcomes,
                options["from_games"],
                options["step"],
                options["resolution"],
                options["max_games"],
            )
        ) is not None:
            if steps:
                time.sleep(STEP_PAUSE)
            self.stderr.write(f"step: {games} games x {per_slot}, creating...")
            tables = create_tables(games * per_slot, script_pool(games * per_slot, pool))
            slots = [tables[i::games] for i in range(games)]
            site, usage_by_role = _measured(
                base_dir, database, run_games(url, slots, think, duration, stagger=stagger)
            )
            step = {"games": games, **site.summary()}
            del step["name"]
            if site.played:
                step["server_cpu_ms_per_move"] = server_cpu_ms_per_move(usage_by_role, site.played)
                step.update(cpu_ms_per_move_by_part(usage_by_role, site.played))
            step["load_client_cpu_pct"] = usage_by_role["load client"]["cpu_pct"]
            step["passed"] = outcomes[games] = step_passes(step, limit)
            steps.append(step)
            self.stderr.write(
                f"  {games} games: {step['moves_per_s']} moves/s, p50 {step['p50_ms']} ms, "
                f"p99 {step['p99_ms']} ms, lost {step['lost']}, errors {step['errors']}, "
                f"server CPU {step.get('server_cpu_ms_per_move')} ms/move: "
                + ("passed" if step["passed"] else "failed")
            )
        low, high = capacity_bounds(outcomes)
        at = next((s for s in steps if s["games"] == low), None)
        report = {
            "think_s": think,
            "stagger_s": stagger,
            "duration_s": duration,
            "p99_limit_ms": limit,
            "capacity_games": low,
            "first_failing_games": high if high in outcomes else None,
            "at_capacity": at,
            "steps": steps,
        }
        self.stdout.write(json.dumps(report, indent=2))


def raise_open_files_limit() -> None:
    """This client holds two sockets per game: its soft limit on open files goes to the hard one
    (1,024, a common default, would stop it near 500 games)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


SCRIPT_POOL = 400
"""Scripted games a capacity search makes once and reuses for every step's fresh games."""

STEP_PAUSE = 5.0
"""Seconds between capacity steps: the last step's sockets close before the next one starts."""


def _measured(
    base_dir: Path, database: str, run: Coroutine[Any, Any, Result]
) -> tuple[Result, dict[str, dict[str, float]]]:
    """Play ``run`` and measure the stack's processes over it. Processes started during the run
    (PostgreSQL backends of a pool that grows under load) count in full."""
    processes = stack_processes(base_dir, database)
    processes["load client"] = [psutil.Process()]  # this command: it shares the machine's cores
    cpu_start = cpu_seconds(p for procs in processes.values() for p in procs)
    started = time.perf_counter()
    with collector_paused():
        result = asyncio.run(run)
    elapsed = time.perf_counter() - started
    after = stack_processes(base_dir, database)
    after["load client"] = processes["load client"]
    return result, usage(processes, cpu_start, elapsed, after)


if __name__ == "__main__":
    run_command(Command, "bench.loadtest")

"""Engine work against other players' moves: the move p50 of N scripted games, idle and while
three users spend their whole engine budget on hints and analysis (docs/reliability.md).

Run it against ``make up`` with the stack's environment (it creates its users and games in the
site's database)::

    DATABASE_URL=... REDIS_URL=... python bench/engine_budget.py --url http://127.0.0.1:8420

Phases come in pairs, one idle and one loaded, in alternating order (idle first, then loaded
first, ...) so that a drift of the shared machine falls on both. In a loaded phase three users
each call, back to back, ``POST /api/games/{id}/hint/`` in a game of theirs whose position is
expensive, and ``POST /api/analysis/best/`` on the same position (count 10); a 429 makes them
wait its ``Retry-After``. Moves are measured once every heavy user has been refused for a spent
budget, so they run at their full budget: its refill rate (the burst of a full bucket, at most
``SIESTA_ENGINE_BUDGET`` seconds per user, is spent before). The players' games are those of
``python -m bench.loadtest`` (bench/loadtest.py), with the same latency (the mover's frame to the
opponent's state). Prints one JSON object: per pair the two p50s, their ratio and the CPU
seconds of the web processes and of their engine pools in each phase (the budget allows each
heavy user at most its capacity plus a phase's refill), and what the heavy users got (answers,
refusals by code).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import statistics
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "siesta_site.settings")

# A position whose best turns take the engine ~100 ms of CPU (found by a seeded search over
# varied mid-game positions; one of the most expensive of them).
EXPENSIVE = [
    "SE6 RF6 HG6", "RG5 SG4 HG7", "HH6 RG8 SG9", "RI6 SJ6 RI5", "SH4 RH5 HH7", "SE7 RF7 HI7",
    "RJ7 SK7 HH8", "RH9 SH10 RD6", "SJ5 HF5 SF8", "SI4 HI8 HI9", "HJ8 RI10 SI11", "RK8 SL8 RG3",
    "RJ9 SK9 SJ10", "SF3 RF4 RE8",
]  # fmt: skip
HEAVY_USERS = 3
DRAIN_TIMEOUT = 180.0
"""Seconds a loaded phase waits for every heavy user to be refused once before measuring."""


def heavy_users() -> list[tuple[str, int]]:
    """Three users (API token, game id), each to move in a game at the expensive position."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from games import services

    user_model = get_user_model()
    tag = f"{int(time.time())}"
    users = []
    for index in range(HEAVY_USERS):
        heavy = user_model.objects.create(username=f"heavy{tag}_{index}")
        rival = user_model.objects.create(username=f"rival{tag}_{index}")
        game = services.game_create(user=heavy, players=2, turn_seconds=3600, rated=False)
        services.game_join(game_id=game.pk, user=rival)
        for ply, move in enumerate(EXPENSIVE):
            mover = heavy if ply % 2 == 0 else rival
            services.game_move_make(game_id=game.pk, user=mover, move=move, ply=ply)
        users.append((Token.objects.create(user=heavy).key, game.pk))
    return users


class Hammer:
    """The heavy users, in a process of their own (their threads would otherwise hold this
    client's GIL and delay the players' frames it measures): ``THREADS_PER_USER`` threads each,
    hint, analyse, hint... until stopped; a 429 waits its ``Retry-After``."""

    def __init__(self, url: str, users: list[tuple[str, int]]) -> None:
        self.url = url.rstrip("/")
        self.users = users
        self.counts: Counter[str] = Counter()
        context = multiprocessing.get_context("spawn")
        self._context = context
        self._stop = context.Event()
        self.drained = context.Event()
        self._results: Any = context.Queue()
        self._process: Any = None

    def __enter__(self) -> Hammer:
        self._stop.clear()
        self.drained.clear()
        self._process = self._context.Process(
            target=hammer_process,
            args=(self.url, self.users, self._stop, self.drained, self._results),
        )
        self._process.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self.counts.update(self._results.get(timeout=120))
        self._process.join(timeout=30)


THREADS_PER_USER = 2


def hammer_process(
    url: str, users: list[tuple[str, int]], stop: Any, drained: Any, results: Any
) -> None:
    """The heavy users' threads; ``drained`` is set once every user has been refused for a
    spent budget (from then on they run at the budget's refill rate)."""
    counts: Counter[str] = Counter()
    lock = threading.Lock()
    spent: set[str] = set()

    def post(token: str, path: str, body: dict[str, Any] | None) -> None:
        data = json.dumps(body).encode() if body is not None else b""
        request = urllib.request.Request(
            url + path,
            data=data,
            method="POST",
            headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
        )
        wait = 0.0
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                outcome = f"{path.split('/')[2]} {response.status}"
        except urllib.error.HTTPError as exc:
            code = ""
            with contextlib.suppress(ValueError, AttributeError):
                code = json.loads(exc.read()).get("code", "")
            outcome = f"{path.split('/')[2]} {exc.code} {code}".strip()
            if exc.code == 429:
                wait = float(exc.headers.get("Retry-After", "1"))
            if code == "engine_budget":
                with lock:
                    spent.add(token)
                    if len(spent) == len(users):
                        drained.set()
        except OSError as exc:
            outcome = f"error {type(exc).__name__}"
            wait = 1.0
        with lock:
            counts[outcome] += 1
        if wait:
            stop.wait(wait)

    def user(token: str, game_id: int) -> None:
        record = {"players": 2, "moves": EXPENSIVE}
        while not stop.is_set():
            post(token, f"/api/games/{game_id}/hint/", None)
            if not stop.is_set():
                post(token, "/api/analysis/best/", {"record": record, "count": 10})

    run_until(stop, user, [pair for pair in users for _ in range(THREADS_PER_USER)], 70)
    results.put(dict(counts))


def run_until(stop: Any, target: Callable[..., None], args: list[Any], join: float) -> None:
    """``target(*a)`` in a daemon thread for each ``a`` of ``args``, until ``stop`` is set;
    each thread is then given ``join`` seconds to end its call."""
    threads = [threading.Thread(target=target, args=a, daemon=True) for a in args]
    for thread in threads:
        thread.start()
    stop.wait()
    for thread in threads:
        thread.join(timeout=join)


def stack_cpu() -> dict[str, float]:
    """CPU seconds used so far by this machine's Daphne processes (``web``) and their engine
    pool workers (``engine``, the spawned children)."""
    total = {"web": 0.0, "engine": 0.0}
    for process in psutil.process_iter(["cmdline"]):
        try:
            command = " ".join(process.info["cmdline"] or [])
            if "daphne" in command and "siesta_site.asgi" in command:
                role = "web"
            elif "spawn_main" in command and "daphne" in " ".join(process.parent().cmdline()):
                role = "engine"
            else:
                continue
            times = process.cpu_times()
            total[role] += times.user + times.system
        except (psutil.Error, AttributeError):
            continue
    return total


def phase(url: str, games: int, think: float, duration: float) -> float | None:
    """One phase of ``games`` scripted games; the p50 of their moves in ms."""
    from bench import loadtest

    per_slot = loadtest.tables_per_slot(games, think, duration)
    tables = loadtest.create_tables(games * per_slot, loadtest.script_games(games * per_slot))
    slots = [tables[i::games] for i in range(games)]
    with loadtest.collector_paused():
        result = asyncio.run(loadtest.run_games(url, slots, think, duration))
    p50 = result.summary()["p50_ms"]
    return float(p50) if p50 is not None else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--games", type=int, default=10, help="players' games at once")
    parser.add_argument("--think", type=float, default=0.5, help="seconds before each move")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per phase")
    parser.add_argument("--pairs", type=int, default=3, help="idle/loaded pairs")
    options = parser.parse_args()

    import django

    django.setup()
    users = heavy_users()
    hammer = Hammer(options.url, users)
    with hammer:  # warm up: every web process starts its engine pool
        time.sleep(5)
    warmup, hammer.counts = dict(hammer.counts), Counter()

    pairs: list[dict[str, Any]] = []
    ratios: list[float] = []
    for index in range(options.pairs):
        p50: dict[str, float | None] = {}
        cpu: dict[str, dict[str, float]] = {}
        for kind in ("idle", "loaded") if index % 2 == 0 else ("loaded", "idle"):
            sys.stderr.write(f"pair {index + 1}: {kind}...\n")
            with hammer if kind == "loaded" else contextlib.nullcontext():
                if kind == "loaded" and not hammer.drained.wait(DRAIN_TIMEOUT):
                    sys.stderr.write("the heavy users did not spend their budget\n")
                before = stack_cpu()
                p50[kind] = phase(options.url, options.games, options.think, options.duration)
                cpu[kind] = {k: round(v - before[k], 1) for k, v in stack_cpu().items()}
        idle, loaded = p50["idle"], p50["loaded"]
        ratio = round(loaded / idle, 2) if idle and loaded else None
        if ratio is not None:
            ratios.append(ratio)
        pairs.append({"idle_p50_ms": idle, "loaded_p50_ms": loaded, "ratio": ratio, "cpu_s": cpu})

    report = {
        "games": options.games,
        "think_s": options.think,
        "duration_s": options.duration,
        "pairs": pairs,
        "median_ratio": statistics.median(ratios) if ratios else None,
        "heavy_users": HEAVY_USERS,
        "heavy_calls": dict(hammer.counts),
        "warmup_calls": warmup,
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

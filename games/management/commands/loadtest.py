"""``manage.py loadtest``: N games of scripted players over WebSockets, with the echo floor.

Run it against ``make up`` with the same environment (it creates its users and games in the site's
database): ``make loadtest GAMES=20`` or ``manage.py loadtest --url http://127.0.0.1:8000
--games 200 --think 0.5 --duration 30``. Prints one JSON object: the site's and the floor's
(and with ``--commit-floor`` the commit floor's) latencies (p50/p90/p99/max), moves/s, lost states
and errors, the ratios to the floor, CPU and RSS per process of the stack, and, with
``--watchers``, how many watchers connecting at once got in.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import psutil
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import loadtest


class Command(BaseCommand):
    help = "Load benchmark: N games over WebSockets against a running site, and the echo floor."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000")
        parser.add_argument("--games", type=int, default=20)
        parser.add_argument("--think", type=float, default=0.5, help="seconds before each move")
        parser.add_argument("--duration", type=float, default=30.0, help="seconds per phase")
        parser.add_argument("--watchers", type=int, default=0, help="connect this many at once")
        parser.add_argument("--no-floor", action="store_true", help="skip the echo floor")
        parser.add_argument(
            "--commit-floor",
            action="store_true",
            help="also measure the echo with a move's transaction around it (siesta_site/echo.py)",
        )
        parser.add_argument(
            "--steady",
            action="store_true",
            help="games begin and end at times spread out, measured after a warm-up",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        url, games, think = options["url"], options["games"], options["think"]
        duration, steady = options["duration"], options["steady"]
        database = str(settings.DATABASES["default"]["NAME"])
        floors = [] if options["no_floor"] else [("floor", False)]
        if options["commit_floor"]:
            floors.append(("commit_floor", True))
        if floors and not asyncio.run(loadtest.echo_available(url)):
            raise CommandError(
                "the site does not route the echo socket: start it with `make up SIESTA_ECHO_WS=1`"
                " (or pass --no-floor)"
            )
        per_slot = loadtest.tables_per_slot(
            games, think, duration + (loadtest.STEADY_WARMUP if steady else 0.0)
        ) + int(steady)
        self.stderr.write(f"scripting and creating {games} x {per_slot} games...")
        tables = loadtest.create_tables(games * per_slot, loadtest.script_games(games * per_slot))
        slots = [tables[i::games] for i in range(games)]
        report: dict[str, Any] = {
            "games": games,
            "think_s": think,
            "duration_s": duration,
            "steady": steady,
        }

        base_dir = Path(settings.BASE_DIR)
        for key, commit in floors:
            self.stderr.write(f"{key.replace('_', ' ')}: echo consumer...")
            floor, floor_usage = _measured(
                base_dir,
                database,
                loadtest.run_floor(
                    url, games, 10**9, think, duration, steady=steady, commit=commit
                ),
            )
            report[key] = floor.summary()
            if floor.moves:
                report[key]["server_cpu_ms_per_move"] = loadtest.server_cpu_ms_per_move(
                    floor_usage, floor.played
                )

        self.stderr.write("site: games...")
        site, report["processes"] = _measured(
            base_dir, database, loadtest.run_games(url, slots, think, duration, steady=steady)
        )
        report["site"] = site.summary()
        if site.moves:
            report["site"]["server_cpu_ms_per_move"] = loadtest.server_cpu_ms_per_move(
                report["processes"], site.played
            )
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
                loadtest.connect_watchers(url, [s[0].game_id for s in slots], options["watchers"])
            )
        self.stdout.write(json.dumps(report, indent=2))


def _measured(
    base_dir: Path, database: str, run: Coroutine[Any, Any, loadtest.Result]
) -> tuple[loadtest.Result, dict[str, dict[str, float]]]:
    """Play ``run`` and measure the stack's processes over it. Processes started during the run
    (PostgreSQL backends of a pool that grows under load) count in full."""
    processes = loadtest.stack_processes(base_dir, database)
    processes["load client"] = [psutil.Process()]  # this command: it shares the machine's cores
    cpu_start = loadtest.cpu_seconds(p for procs in processes.values() for p in procs)
    started = time.perf_counter()
    with loadtest.collector_paused():
        result = asyncio.run(run)
    elapsed = time.perf_counter() - started
    after = loadtest.stack_processes(base_dir, database)
    after["load client"] = processes["load client"]
    return result, loadtest.usage(processes, cpu_start, elapsed, after)

"""The engine pool's fairness: another user's small analysis, idle and while ten accounts from
one address flood the engine (docs/reliability.md, "Fair turns").

Run it against ``make up`` with the stack's environment (it creates its users in the site's
database)::

    DATABASE_URL=... REDIS_URL=... python bench/engine_fair.py --url http://127.0.0.1:9400

The flood comes from another loopback address than the measured user (``127.0.0.2`` against
``127.0.0.1``: the client binds its sockets to it; nginx passes it on as ``X-Forwarded-For``), so
the site sees two addresses, as it would two households. Phases come in pairs, one idle and one
loaded, in alternating order (idle first, then loaded first, ...) so that a drift of the shared
machine falls on both. In a loaded phase ten accounts, in a process of their own, each call
``POST /api/analysis/best/`` (count 10) back to back on a position whose search costs about
0.1 s, ``--threads`` threads each, waiting out every 429's ``Retry-After``; measuring starts
``--ramp`` seconds after they start, so it covers their burst (the address's full bucket) and
what follows. The measured user calls ``best/`` on a small position (count 3) every
``--every`` seconds, one call at a time. Prints one JSON object: per pair the two p50s (ms), their
ratio, the p90s, and what the flood got (answers, refusals by code).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing
import os
import statistics
import sys
import threading
import time
import urllib.parse
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "siesta_site.settings")

from bench.engine_budget import EXPENSIVE, run_until

ACCOUNTS = 10
SMALL = {"players": 2, "moves": ["SE6 RF6 HG6", "RG5 SG4 HG7"]}
"""The measured user's position: two turns in, a search of a few milliseconds."""


def tokens(count: int, tag: str) -> list[str]:
    """``count`` new users' API tokens."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    user_model = get_user_model()
    stamp = f"{int(time.time())}"
    return [
        Token.objects.create(user=user_model.objects.create(username=f"{tag}{stamp}_{i}")).key
        for i in range(count)
    ]


def post(
    url: str, source: str, token: str, body: dict[str, Any]
) -> tuple[int, dict[str, Any], float]:
    """POST ``best/`` from the address ``source``: the status, the JSON body, the seconds."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(
        parts.hostname or "127.0.0.1", parts.port or 80, timeout=90, source_address=(source, 0)
    )
    began = time.perf_counter()
    try:
        connection.request(
            "POST",
            "/api/analysis/best/",
            body=json.dumps(body),
            headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
        )
        response = connection.getresponse()
        data = response.read()
        elapsed = time.perf_counter() - began
        try:
            parsed = json.loads(data)
        except ValueError:
            parsed = {}
        if response.status == 429:
            parsed.setdefault("retry_after", float(response.getheader("Retry-After", "1")))
        return response.status, parsed if isinstance(parsed, dict) else {}, elapsed
    finally:
        connection.close()


def flood_process(
    url: str, source: str, keys: list[str], threads: int, stop: Any, results: Any
) -> None:
    """The flooding accounts' threads, until ``stop``: what they got, by status and code."""
    counts: Counter[str] = Counter()
    lock = threading.Lock()
    body = {"record": {"players": 2, "moves": EXPENSIVE}, "count": 10}

    def account(token: str) -> None:
        while not stop.is_set():
            try:
                status, answer, _ = post(url, source, token, body)
            except OSError as exc:
                with lock:
                    counts[f"error {type(exc).__name__}"] += 1
                stop.wait(1.0)
                continue
            with lock:
                counts[f"{status} {answer.get('code', '')}".strip()] += 1
            if status == 429:
                stop.wait(float(answer.get("retry_after", 1)))

    run_until(stop, account, [(key,) for key in keys for _ in range(threads)], 100)
    results.put(dict(counts))


class Flood:
    """Ten accounts from one address, in a process of their own (their threads would otherwise
    hold this client's GIL and delay the measured calls)."""

    def __init__(self, url: str, source: str, keys: list[str], threads: int) -> None:
        context = multiprocessing.get_context("spawn")
        self._context = context
        self._args = (url, source, keys, threads)
        self._stop = context.Event()
        self._results: Any = context.Queue()
        self._process: Any = None
        self.counts: Counter[str] = Counter()

    def __enter__(self) -> Flood:
        self._stop.clear()
        self._process = self._context.Process(
            target=flood_process, args=(*self._args, self._stop, self._results)
        )
        self._process.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self.counts.update(self._results.get(timeout=150))
        self._process.join(timeout=30)


def measure(url: str, source: str, token: str, duration: float, every: float) -> list[float]:
    """The measured user's small analyses for ``duration`` seconds: each one's milliseconds."""
    body = {"record": SMALL, "count": 3}
    times: list[float] = []
    refusals: Counter[str] = Counter()
    end = time.monotonic() + duration
    while time.monotonic() < end:
        status, answer, elapsed = post(url, source, token, body)
        if status == 200:
            times.append(elapsed * 1000)
        else:
            refusals[f"{status} {answer.get('code', '')}"] += 1
        time.sleep(every)
    if refusals:
        sys.stderr.write(f"the measured user was refused: {dict(refusals)}\n")
    return times


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:9400")
    parser.add_argument("--user-address", default="127.0.0.1")
    parser.add_argument("--flood-address", default="127.0.0.2")
    parser.add_argument("--threads", type=int, default=2, help="threads per flooding account")
    parser.add_argument("--duration", type=float, default=20.0, help="measured seconds per phase")
    parser.add_argument("--ramp", type=float, default=2.0, help="seconds of flood before")
    parser.add_argument("--rest", type=float, default=10.0, help="seconds between phases")
    parser.add_argument("--every", type=float, default=0.2, help="seconds between calls")
    parser.add_argument("--pairs", type=int, default=3, help="idle/loaded pairs")
    return parser.parse_args()


def main() -> None:
    import django

    options = arguments()
    django.setup()
    user = tokens(1, "fairuser")[0]
    flood_keys = tokens(ACCOUNTS, "flood")
    # Warm up: every web process starts its engine pool (about a second each).
    for _ in range(8):
        post(options.url, options.user_address, user, {"record": SMALL, "count": 3})

    pairs: list[dict[str, Any]] = []
    ratios: list[float] = []
    for index in range(options.pairs):
        p50: dict[str, float | None] = {}
        p90: dict[str, float | None] = {}
        calls: dict[str, int] = {}
        flood_counts: dict[str, int] = {}
        for kind in ("idle", "loaded") if index % 2 == 0 else ("loaded", "idle"):
            sys.stderr.write(f"pair {index + 1}: {kind}...\n")
            time.sleep(options.rest)  # the previous flood's searches end; buckets refill a bit
            flood = Flood(options.url, options.flood_address, flood_keys, options.threads)
            with flood if kind == "loaded" else contextlib.nullcontext():
                if kind == "loaded":
                    time.sleep(options.ramp)
                times = measure(
                    options.url, options.user_address, user, options.duration, options.every
                )
            p50[kind] = percentile(times, 0.5)
            p90[kind] = percentile(times, 0.9)
            calls[kind] = len(times)
            if kind == "loaded":
                flood_counts = dict(flood.counts)
        idle, loaded = p50["idle"], p50["loaded"]
        ratio = round(loaded / idle, 2) if idle and loaded else None
        if ratio is not None:
            ratios.append(ratio)
        pairs.append(
            {
                "order": "idle first" if index % 2 == 0 else "loaded first",
                "idle_p50_ms": idle,
                "loaded_p50_ms": loaded,
                "ratio": ratio,
                "idle_p90_ms": p90["idle"],
                "loaded_p90_ms": p90["loaded"],
                "calls": calls,
                "flood": flood_counts,
            }
        )

    report = {
        "accounts": ACCOUNTS,
        "threads_per_account": options.threads,
        "duration_s": options.duration,
        "pairs": pairs,
        "median_ratio": statistics.median(ratios) if ratios else None,
        "load_average": os.getloadavg(),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

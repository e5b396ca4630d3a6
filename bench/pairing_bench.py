"""The pairing benchmark: random Swiss events paired round after round, timed, with the seat spread.

``python -m bench.pairing_bench [--seats 2] [--players 30] [--rounds 8] [--events 20]``
prints, per table size, the rounds paired, the median and worst time per round, the rounds with
a rematch and how evenly seats were spread: for each player the most minus the fewest sittings in
a seat (seats 1..k), as a histogram over every player of every event. Pure, like
``tournaments.pairing`` (no Django); the tests run ``simulate`` on small events.

``python -m bench.pairing_bench --arena [--games 60] [--events 20]`` simulates arenas of 3..8
players (``simulate_arena``) and prints the seat spread, the most waves a free player was passed
over, the waits between games (mean, longest) and the fewest pairs met in one event.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field

from tournaments.arena import Waiting, arena_tables
from tournaments.pairing import PairingPlayer, RoundPairing, balance_seats, swiss_round


@dataclass
class EventReport:
    rounds: int = 0
    seconds: list[float] = field(default_factory=list)
    rematch_rounds: int = 0
    spreads: Counter[int] = field(default_factory=Counter)
    """Seat spread (most minus fewest sittings in a seat) → players."""
    seats: dict[int, list[int]] = field(default_factory=dict)
    """Per player of the last event, their seats in round order."""


def seat_spread(seats: list[int], table_size: int) -> int:
    """The most minus the fewest sittings over seats 1..table_size."""
    counts = [seats.count(s) for s in range(1, table_size + 1)]
    return max(counts) - min(counts)


def simulate(
    *, players: int, rounds: int, table_size: int, seed: int, report: EventReport | None = None
) -> EventReport:
    """One random event: ratings and table results drawn from ``seed`` (scores 0-4, ties
    sharing); each round paired by ``swiss_round`` from the standings so far."""
    rng = random.Random(seed)
    report = report or EventReport()
    rating = {p: rng.uniform(1200, 1800) for p in range(players)}
    points = dict.fromkeys(rating, 0.0)
    met: dict[int, set[int]] = {p: set() for p in rating}
    seats: dict[int, list[int]] = {p: [] for p in rating}
    byes = dict.fromkeys(rating, 0)
    for _ in range(rounds):
        order = sorted(rating, key=lambda p: (-points[p], -rating[p], p))
        field_ = [
            PairingPlayer(
                id=p,
                points=points[p],
                rating=rating[p],
                byes=byes[p],
                met=frozenset(met[p]),
                seats=tuple(seats[p]),
            )
            for p in order
        ]
        started = time.process_time()
        pairing = balance_seats(swiss_round(field_, table_size), seats)
        report.seconds.append(time.process_time() - started)
        report.rounds += 1
        rematch = False
        for table in pairing.tables:
            scores = {p: rng.randint(0, 4) for p in table}
            for seat, p in enumerate(table, start=1):
                seats[p].append(seat)
                others = [q for q in table if q != p]
                rematch = rematch or any(q in met[p] for q in others)
                met[p].update(others)
                wins = sum(
                    1.0 if scores[p] > scores[q] else 0.5 if scores[p] == scores[q] else 0.0
                    for q in others
                )
                points[p] += wins / len(others)
        for p in pairing.byes:
            byes[p] += 1
            points[p] += 1.0
        report.rematch_rounds += rematch
    for p in rating:
        report.spreads[seat_spread(seats[p], table_size)] += 1
    report.seats = seats
    return report


@dataclass
class ArenaReport:
    games: int = 0
    spreads: Counter[int] = field(default_factory=Counter)
    """Seat spread (most minus fewest sittings in a seat) → players."""
    most_skipped: int = 0
    """The most pairing waves in a row a free player was passed over while others were seated."""
    met: set[frozenset[int]] = field(default_factory=set)
    """The pairs of players who met at a table (over every event simulated into this report)."""
    fewest_met: int | None = None
    """The fewest pairs met in one event (the union above could hide an event where two
    players never meet)."""
    waits: list[float] = field(default_factory=list)
    """Each game's wait, per player: seconds from being free (the start, or the end of their
    previous game) to their next game."""
    games_of: Counter[int] = field(default_factory=Counter)


def simulate_arena(
    *, players: int, games: int, table_size: int, seed: int, report: ArenaReport | None = None
) -> ArenaReport:
    """One random arena, event by event: games last a random time, a game's end frees its
    players, and every free player is offered to ``arena_tables`` at once (as the service does:
    rematch allowed only when everyone is free, seats by ``balance_seats``). Stops after
    ``games`` games."""
    rng = random.Random(seed)
    report = report or ArenaReport()
    rating = {p: rng.uniform(1200, 1800) for p in range(players)}
    points = dict.fromkeys(rating, 0.0)
    last: dict[int, frozenset[int]] = {p: frozenset() for p in rating}
    seats: dict[int, list[int]] = {p: [] for p in rating}
    skipped = dict.fromkeys(rating, 0)
    free_since = dict.fromkeys(rating, 0.0)
    met: set[frozenset[int]] = set()
    free = set(rating)
    running: list[tuple[float, tuple[int, ...]]] = []
    now = 0.0
    played = 0
    while played < games:
        field_ = [Waiting(p, points[p], rating[p], last[p], skipped[p]) for p in sorted(free)]
        tables = arena_tables(field_, table_size, allow_rematch=len(free) == players)
        if tables:
            history = {p: tuple(s) for p, s in seats.items()}
            for table in balance_seats(RoundPairing(tuple(tables), ()), history).tables:
                for seat, p in enumerate(table, start=1):
                    seats[p].append(seat)
                    skipped[p] = 0
                    last[p] = frozenset(q for q in table if q != p)
                    free.discard(p)
                    report.games_of[p] += 1
                    report.waits.append(now - free_since[p])
                met.update(frozenset((a, b)) for a in table for b in table if a < b)
                running.append((now + rng.uniform(60, 300), table))
                played += 1
            for p in free:
                skipped[p] += 1
                report.most_skipped = max(report.most_skipped, skipped[p])
        running.sort()
        now, table = running.pop(0)
        winner = rng.choice(table)
        points[winner] += 1.0
        free.update(table)
        for p in table:
            free_since[p] = now
    report.games += played
    report.met |= met
    report.fewest_met = len(met) if report.fewest_met is None else min(report.fewest_met, len(met))
    for p in rating:
        report.spreads[seat_spread(seats[p], table_size)] += 1
    return report


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, nargs="*", default=[2, 3, 4])
    parser.add_argument("--players", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--events", type=int, default=20)
    args = parser.parse_args(argv)
    print(
        "| seats | rounds paired | median | worst | rounds with a rematch | seat spread: players |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for k in args.seats:
        report = EventReport()
        for seed in range(args.events):
            simulate(
                players=args.players + seed % 7,
                rounds=args.rounds,
                table_size=k,
                seed=seed,
                report=report,
            )
        spread = ", ".join(f"{s}: {c}" for s, c in sorted(report.spreads.items()))
        print(
            f"| {k} | {report.rounds} | {statistics.median(report.seconds) * 1000:.0f} ms "
            f"| {max(report.seconds) * 1000:.0f} ms | {report.rematch_rounds} | {spread} |"
        )


def arena_main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="The arena pairing: seat spread and waiting.")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--events", type=int, default=20)
    args = parser.parse_args(argv)
    print(
        "| players | games | seat spread: players | most waves passed over "
        "| wait (s): mean, longest | pairs met (fewest in an event) |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for n in range(3, 9):
        report = ArenaReport()
        for seed in range(args.events):
            simulate_arena(players=n, games=args.games, table_size=2, seed=seed, report=report)
        spread = ", ".join(f"{s}: {c}" for s, c in sorted(report.spreads.items()))
        pairs = f"{report.fewest_met}/{n * (n - 1) // 2}"
        wait = f"{sum(report.waits) / len(report.waits):.0f}, {max(report.waits):.0f}"
        print(f"| {n} | {report.games} | {spread} | {report.most_skipped} | {wait} | {pairs} |")


if __name__ == "__main__":
    import sys

    if "--arena" in sys.argv:
        sys.argv.remove("--arena")
        arena_main()
        raise SystemExit

    main()

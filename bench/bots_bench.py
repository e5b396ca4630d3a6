"""Bot-against-bot matches: win rates with a 95% confidence interval, and think times.

``python -m bench.bots_bench --games 200 --players 2 hard medium`` (or ``bench.botmatch``).
The first level named is the one measured; the others fill the remaining seats (the last one
repeated). Its seat rotates from game to game and variants alternate, so neither seat order nor
variant favours it. Games run in parallel processes. Pure Python: no Django needed.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import multiprocessing
import os
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.bots import LEVELS, HardSettings, choose_turn, easy_turn
from games.engine import Position
from games.engine.expert import ExpertSettings

VARIANTS = ("standard", "classic")


@dataclass(frozen=True)
class MatchGame:
    seed: int
    players: int
    variant: str
    levels: tuple[str, ...]
    """The level of each seat (seat 1 first)."""
    hard: tuple[tuple[str, float], ...] = ()
    """Settings of the hard bot that differ from the defaults (for tuning)."""
    expert: tuple[tuple[str, float], ...] = ()
    """Settings of the expert bot that differ from the defaults (for tuning)."""
    opening: int = 0
    """Turns played first by a random scoring turn (the easy bot), whoever sits there."""
    opening_seed: int = 0
    """The seed of those turns: the same for the games where the measured level takes each
    seat after the same opening."""


@dataclass
class GameResult:
    game: MatchGame
    scores: list[int]
    winners: list[int]
    turns: int
    think: dict[str, list[float]] = field(default_factory=dict)
    """Seconds per turn, by level (wall clock)."""
    think_cpu: dict[str, list[float]] = field(default_factory=dict)
    """CPU seconds per turn, by level."""


def play(game: MatchGame) -> GameResult:
    """Play one game to its end; bots choose with their own seeded random streams."""
    rng = random.Random(game.seed)
    pos = Position(game.players, game.variant)
    options: dict[str, Any] = dict(game.hard)
    hard = dataclasses.replace(HardSettings(), **options)
    tuned: dict[str, Any] = dict(game.expert)
    expert = dataclasses.replace(ExpertSettings(), **tuned)
    think: dict[str, list[float]] = {}
    think_cpu: dict[str, list[float]] = {}
    opening_rng = random.Random(game.opening_seed)
    for _ in range(game.opening):
        opening_turn = easy_turn(pos, opening_rng)
        if pos.over or opening_turn is None:
            break
        pos.play(opening_turn)
    while not pos.over:
        assert pos.to_move is not None
        level = game.levels[pos.to_move - 1]
        start, cpu_start = time.perf_counter(), time.thread_time()
        turn = choose_turn(pos, level, rng, hard, expert)
        think.setdefault(level, []).append(time.perf_counter() - start)
        think_cpu.setdefault(level, []).append(time.thread_time() - cpu_start)
        if turn is None:  # cannot happen: the game is over when no scoring turn is left
            raise RuntimeError(f"{level} found no turn in a game that is not over")
        pos.play(turn)
    return GameResult(game, list(pos.scores), pos.winners(), pos.ply, think, think_cpu)


def schedule(
    games: int,
    players: int,
    levels: Sequence[str],
    seed: int = 1,
    variant: str | None = None,
    hard: dict[str, float] | None = None,
    expert: dict[str, float] | None = None,
    opening: int = 0,
) -> list[MatchGame]:
    """The games of a match: the measured level (``levels[0]``) takes each seat in turn, after
    the same ``opening`` random turns (so that bots which choose alike from the same position
    still meet in varied games, and the seat is the only difference within a round)."""
    others = list(levels[1:]) or [levels[0]]
    field_levels = [others[min(i, len(others) - 1)] for i in range(players - 1)]
    result = []
    for index in range(games):
        seat = index % players
        seats = list(field_levels)
        seats.insert(seat, levels[0])
        chosen_variant = variant or VARIANTS[(index // players) % 2]
        result.append(
            MatchGame(
                seed * 1_000_003 + index,
                players,
                chosen_variant,
                tuple(seats),
                tuple(sorted((hard or {}).items())),
                tuple(sorted((expert or {}).items())),
                opening,
                seed * 1_000_003 + index // players,
            )
        )
    return result


def fresh_seed() -> int:
    """A seed no earlier run is likely to have used (a level tuned on some seeds must show its
    strength on others): from the operating system's randomness."""
    return int.from_bytes(os.urandom(4), "big")


def placing(scores: Sequence[int], seat: int) -> float:
    """``seat``'s place (1 = first); seats tied share the mean of the places they cover."""
    mine = scores[seat - 1]
    above = sum(1 for s in scores if s > mine)
    level = sum(1 for s in scores if s == mine)
    return above + (level + 1) / 2


def wilson(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% with the default ``z``)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - spread), min(1.0, centre + spread)


def mean_interval(values: Sequence[float], z: float = 1.96) -> tuple[float, float]:
    """The normal-approximation interval of a mean (95% with the default ``z``)."""
    if not values:
        return 0.0, 0.0
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, mean
    spread = z * statistics.stdev(values) / math.sqrt(len(values))
    return mean - spread, mean + spread


def _percentile(times: Sequence[float], share: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


@dataclass
class MatchSummary:
    level: str
    games: int
    wins: int
    """Games where the measured level alone had the highest score."""
    shared: int
    """Games where it shared the highest score."""
    interval: tuple[float, float]
    think_median: dict[str, float]
    think_cpu_median: dict[str, float]
    mean_margin: float
    mean_placing: float = 0.0
    """The measured level's mean place (1 = first; ties share)."""
    field_placing: float = 0.0
    """The other seats' mean place."""
    think_cpu_p99: dict[str, float] = field(default_factory=dict)
    seed: int = 0
    placing_interval: tuple[float, float] = (0.0, 0.0)
    """95% interval of the measured level's mean place."""
    field_interval: tuple[float, float] = (0.0, 0.0)
    """95% interval of the other seats' mean place (each game's mean over them counted once)."""
    gap_interval: tuple[float, float] = (0.0, 0.0)
    """95% interval of the measured level's place less the other seats' mean place, per game
    (below 0: it places better)."""

    def lines(self, players: int) -> list[str]:
        low, high = self.interval
        rate = self.wins / self.games if self.games else 0.0
        lines = [
            f"{self.level} first alone in {self.wins}/{self.games} games: {rate:.1%} "
            f"(95% CI {low:.1%}–{high:.1%}; fair share {1 / players:.1%}); "
            f"shared first in {self.shared}",
            f"mean score margin over the best other seat: {self.mean_margin:+.1f}",
            f"mean placing: {self.level} {self.mean_placing:.2f} "
            f"(95% CI {self.placing_interval[0]:.2f}–{self.placing_interval[1]:.2f}), "
            f"the others {self.field_placing:.2f} "
            f"({self.field_interval[0]:.2f}–{self.field_interval[1]:.2f}) (1 = first); "
            f"difference {self.mean_placing - self.field_placing:+.2f} "
            f"({self.gap_interval[0]:+.2f} to {self.gap_interval[1]:+.2f})",
        ]
        lines += [
            f"think time median {level}: {seconds * 1000:.0f} ms "
            f"({self.think_cpu_median[level] * 1000:.0f} ms CPU, "
            f"p99 {self.think_cpu_p99.get(level, 0.0) * 1000:.0f} ms CPU)"
            for level, seconds in sorted(self.think_median.items())
        ]
        lines.append(f"seed {self.seed}")
        return lines


def summarise(results: Sequence[GameResult], level: str, seed: int = 0) -> MatchSummary:
    wins = shared = 0
    margins = []
    placings: list[float] = []
    field_placings: list[float] = []
    field_means: list[float] = []
    think: dict[str, list[float]] = {}
    think_cpu: dict[str, list[float]] = {}
    for result in results:
        seat = result.game.levels.index(level) + 1
        if result.winners == [seat]:
            wins += 1
        elif seat in result.winners:
            shared += 1
        mine = result.scores[seat - 1]
        margins.append(mine - max(s for i, s in enumerate(result.scores, 1) if i != seat))
        placings.append(placing(result.scores, seat))
        others = [
            placing(result.scores, other)
            for other in range(1, len(result.scores) + 1)
            if other != seat
        ]
        field_placings.extend(others)
        field_means.append(statistics.fmean(others))
        for name, times in result.think.items():
            think.setdefault(name, []).extend(times)
        for name, times in result.think_cpu.items():
            think_cpu.setdefault(name, []).extend(times)
    return MatchSummary(
        level=level,
        games=len(results),
        wins=wins,
        shared=shared,
        interval=wilson(wins, len(results)),
        think_median={name: statistics.median(times) for name, times in think.items()},
        think_cpu_median={name: statistics.median(times) for name, times in think_cpu.items()},
        mean_margin=statistics.fmean(margins) if margins else 0.0,
        mean_placing=statistics.fmean(placings) if placings else 0.0,
        field_placing=statistics.fmean(field_placings) if field_placings else 0.0,
        think_cpu_p99={name: _percentile(times, 0.99) for name, times in think_cpu.items()},
        seed=seed,
        placing_interval=mean_interval(placings),
        field_interval=mean_interval(field_means),
        gap_interval=mean_interval([a - b for a, b in zip(placings, field_means, strict=True)]),
    )


def run(
    games: int,
    players: int,
    levels: Sequence[str],
    *,
    processes: int = 2,
    seed: int | None = None,
    variant: str | None = None,
    hard: dict[str, float] | None = None,
    expert: dict[str, float] | None = None,
    opening: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> MatchSummary:
    """Play the match; ``seed`` None draws a fresh one (printed with the summary)."""
    seed = fresh_seed() if seed is None else seed
    plan = schedule(games, players, levels, seed, variant, hard, expert, opening)
    results: list[GameResult] = []
    if processes <= 1:
        for game in plan:
            results.append(play(game))
            if progress:
                progress(len(results), games)
    else:
        with multiprocessing.get_context("spawn").Pool(processes) as pool:
            for result in pool.imap_unordered(play, plan):
                results.append(result)
                if progress:
                    progress(len(results), games)
    return summarise(results, levels[0], seed)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "levels", nargs="*", help=f"measured level, then others (of {', '.join(LEVELS)})"
    )
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument(
        "--seed", type=int, default=None, help="reproduce a run (default: a fresh seed)"
    )
    parser.add_argument(
        "--opening",
        type=int,
        default=3,
        help="turns played at random first, the same for each seat rotation (default 3)",
    )
    parser.add_argument("--variant", choices=VARIANTS, default=None, help="default: alternate")
    parser.add_argument(
        "--hard",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting of the hard bot (games.bots.HardSettings), for tuning",
    )
    parser.add_argument(
        "--expert",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting of the expert bot (games.engine.expert.ExpertSettings), for tuning",
    )


def settings_options(pairs: Sequence[str], settings: type[Any], flag: str) -> dict[str, float]:
    """``["width=6", "budget=0.4"]`` → ``{"width": 6, "budget": 0.4}``, names checked against
    the fields of ``settings`` (a dataclass); integer fields stay integers."""
    known = settings.__dataclass_fields__
    options: dict[str, float] = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        if name not in known or not value:
            raise ValueError(f"{flag} {pair}: expected NAME=VALUE with NAME one of {sorted(known)}")
        try:
            options[name] = int(value) if known[name].type == "int" else float(value)
        except ValueError:
            raise ValueError(f"{flag} {pair}: {value!r} is not a number") from None
    return options


def hard_options(pairs: Sequence[str]) -> dict[str, float]:
    """``["width=6", "budget=0.4"]`` → ``{"width": 6, "budget": 0.4}`` (checked names)."""
    return settings_options(pairs, HardSettings, "--hard")


def expert_options(pairs: Sequence[str]) -> dict[str, float]:
    """``["work=40000"]`` → ``{"work": 40000}`` (checked names)."""
    return settings_options(pairs, ExpertSettings, "--expert")


@dataclass
class SpeedSummary:
    positions: int
    expert_cpu: list[float]
    """CPU seconds of each expert turn."""
    expert_work: list[int]
    """Placements tried in each expert turn."""
    best_cpu: list[float]
    """CPU seconds of each exact best-turn search on the same positions."""

    def lines(self) -> list[str]:
        work_rate = sum(self.expert_work) / sum(self.expert_cpu)
        return [
            f"expert turn on {self.positions} mid-game positions: median "
            f"{statistics.median(self.expert_cpu) * 1000:.0f} ms CPU, "
            f"p99 {_percentile(self.expert_cpu, 0.99) * 1000:.0f} ms CPU; "
            f"{statistics.median(self.expert_work):.0f} placements tried (median), "
            f"{work_rate:,.0f} placements per CPU second",
            f"exact best turn on the same: {len(self.best_cpu) / sum(self.best_cpu):.1f} positions "
            f"per CPU second (median {statistics.median(self.best_cpu) * 1000:.0f} ms)",
        ]


def speed(positions: int = 30, settings: ExpertSettings | None = None) -> SpeedSummary:
    """The expert's think time and search rate, in CPU time of this thread (a loaded machine
    stretches the wall clock, not this), on fixed mid-game positions of 2-4 players."""
    from games.engine.bench import midgame_positions
    from games.engine.expert import Expert
    from games.engine.search import best_turn

    expert_cpu, expert_work, best_cpu = [], [], []
    for index, pos in enumerate(midgame_positions(positions)):
        start = time.thread_time()
        expert = Expert(pos, random.Random(index), settings)
        expert.choose()
        expert_cpu.append(time.thread_time() - start)
        expert_work.append(expert.work.spent)
        start = time.thread_time()
        best_turn(pos)
        best_cpu.append(time.thread_time() - start)
    return SpeedSummary(positions, expert_cpu, expert_work, best_cpu)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bots_bench", description=__doc__)
    add_arguments(parser)
    parser.add_argument(
        "--speed",
        action="store_true",
        help="measure the expert's think time and search rate instead of playing a match",
    )
    args = parser.parse_args(argv)
    if args.speed:
        options: dict[str, Any] = dict(expert_options(args.expert))
        tuned = dataclasses.replace(ExpertSettings(), **options)
        for line in speed(settings=tuned).lines():
            print(line)
        return
    unknown = [level for level in args.levels if level not in LEVELS]
    if unknown or not args.levels:
        parser.error(f"name the measured level, then the others, of {', '.join(LEVELS)}")
    started = time.perf_counter()
    summary = run(
        args.games,
        args.players,
        args.levels,
        processes=args.processes,
        seed=args.seed,
        variant=args.variant,
        hard=hard_options(args.hard),
        expert=expert_options(args.expert),
        opening=args.opening,
    )
    for line in summary.lines(args.players):
        print(line)
    print(f"{args.games} games in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()

"""``python -m games.engine bench``: timings of the exact search, printed as medians.

Positions: the rules cases' ``best.json`` (when ``../shared`` is there) and mid-game positions of
whole games played by two best-turn players with a fixed seed; then whole best-vs-best games.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from pathlib import Path

from games.engine.position import Position
from games.engine.record import GameRecord, replay
from games.engine.search import best_turn, has_scoring_turn, scoring_turns

DEFAULT_CASES = Path(__file__).resolve().parents[2].parent / "shared" / "rules-cases" / "best.json"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def midgame_positions(count: int, seed: int = 7) -> list[Position]:
    """Positions after 6–20 turns of varied games (2–4 players, both variants)."""
    rng = random.Random(seed)
    positions: list[Position] = []
    while len(positions) < count:
        pos = Position(rng.choice((2, 3, 4)), rng.choice(("standard", "classic")))
        for _ in range(rng.randint(6, 20)):
            if pos.over:
                break
            turns = scoring_turns(pos, rng)
            turns.sort(key=lambda item: -item[0])
            pos.play(rng.choice(turns[:3])[1])
        if not pos.over:
            positions.append(pos)
    return positions


def time_best(positions: list[Position]) -> list[float]:
    times = []
    for pos in positions:
        start = time.perf_counter()
        best_turn(pos)
        times.append(time.perf_counter() - start)
    return times


def run(games: int = 5, cases_path: str | None = None) -> None:
    path = Path(cases_path) if cases_path else DEFAULT_CASES
    if path.exists():
        cases = json.loads(path.read_text())
        positions = [replay(GameRecord.from_json(case["record"])).position for case in cases]
        times = time_best(positions)
        print(
            f"best on {path.name} ({len(times)} positions): "
            f"median {_ms(statistics.median(times))}, worst {_ms(max(times))}"
        )
    positions = midgame_positions(60)
    times = time_best(positions)
    print(
        f"best on {len(times)} mid-game positions: median {_ms(statistics.median(times))}, "
        f"worst {_ms(max(times))}"
    )
    times = []
    for pos in positions:
        start = time.perf_counter()
        has_scoring_turn(pos)
        times.append(time.perf_counter() - start)
    print(f"has_scoring_turn on the same: median {_ms(statistics.median(times))}")
    game_times, turn_counts = [], []
    for index in range(games):
        pos = Position(2 + index % 3, ("standard", "classic")[index % 2])
        start = time.perf_counter()
        while not pos.over:
            pos.play(best_turn(pos).turn or "")
        game_times.append(time.perf_counter() - start)
        turn_counts.append(pos.ply)
    print(
        f"whole best-vs-best games ({games}, 2-4 players, {min(turn_counts)}-{max(turn_counts)} "
        f"turns): median {statistics.median(game_times):.2f} s, worst {max(game_times):.2f} s"
    )

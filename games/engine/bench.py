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
from games.engine.scoring import has_scoring_turn
from games.engine.search import best_turn, random_turn, scoring_turns

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


def recorded_games(count: int, seed: int = 5) -> list[GameRecord]:
    """Whole games (2-4 players, both variants) of players picking a random scoring turn, or one
    of the best few, as records."""
    rng = random.Random(seed)
    records = []
    for _ in range(count):
        players, variant = rng.choice((2, 3, 4)), rng.choice(("standard", "classic"))
        pos = Position(players, variant)
        moves = []
        while not pos.over:
            turn = random_turn(pos, rng) if rng.random() < 0.7 else None
            if turn is None:
                choices = sorted(scoring_turns(pos, rng), key=lambda item: -item[0])[:3]
                turn = rng.choice(choices)[1] if choices else best_turn(pos).turn
            assert turn is not None
            pos.play(turn)
            moves.append(str(turn))
        records.append(GameRecord(players=players, variant=variant, moves=moves))
    return records


def time_has_scoring_turn(games: int) -> None:
    """``has_scoring_turn`` on every position of ``games`` recorded games (the check every move
    makes): p50, p99 and worst, in CPU time (a shared, busy machine stalls wall-clock timings)."""
    times = []
    for record in recorded_games(games):
        pos = Position(record.players, record.variant)
        for move in [*record.moves, None]:  # the position after the last move too
            if pos.over:
                break
            start = time.process_time()
            has_scoring_turn(pos)
            times.append(time.process_time() - start)
            if move is not None:
                pos.play(move, check_end=False)
    times.sort()
    print(
        f"has_scoring_turn on {len(times)} positions of {games} games (CPU time): "
        f"p50 {_ms(times[len(times) // 2])}, p99 {times[int(len(times) * 0.99)] * 1000:.2f} ms, "
        f"worst {_ms(times[-1])}"
    )

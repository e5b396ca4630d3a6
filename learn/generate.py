"""Puzzles from bot-against-bot games, for a fresh site (``manage.py make_puzzles``).

Each game is fixed by its seed (players, variant, bot levels and every choice come from it), so a
run repeated with the same seeds plays the same games and finds the same positions: the puzzle
keys make the generation idempotent. The games are played and searched in worker processes; the
database is written by the calling process only.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from games.bots import choose_turn
from games.engine import Position

LEVELS = ("easy", "easy", "medium")
"""Seat levels are drawn from these: easy bots miss the most, which makes the puzzles."""


@dataclass(frozen=True)
class BotGame:
    seed: int
    players: int
    variant: str
    levels: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"bots {'-'.join(self.levels)}, seed {self.seed}"


def bot_games(count: int, seed: int, players: Sequence[int]) -> list[BotGame]:
    games = []
    for index in range(count):
        game_seed = seed + index
        rng = random.Random(game_seed * 7919)
        n = players[index % len(players)]
        variant = "standard" if index % 3 else "classic"
        games.append(BotGame(game_seed, n, variant, tuple(rng.choice(LEVELS) for _ in range(n))))
    return games


def pool_game(seed: int) -> BotGame:
    """The pool's game of ``seed``: 2, 3 or 4 players, either variant, drawn from the seed."""
    rng = random.Random(seed * 7919)
    n = rng.choice((2, 2, 3, 3, 4))
    variant = rng.choice(("standard", "standard", "classic"))
    return BotGame(seed, n, variant, tuple(rng.choice(LEVELS) for _ in range(n)))


def play(game: BotGame) -> dict[str, Any]:
    """Play a bot game to its end; returns its record."""
    rng = random.Random(game.seed)
    pos = Position(game.players, game.variant)
    moves = []
    while not pos.over:
        assert pos.to_move is not None
        turn = choose_turn(pos, game.levels[pos.to_move - 1], rng)
        if turn is None:  # cannot happen: the game is over when no scoring turn is left
            break
        pos.play(turn)
        moves.append(str(turn))
    return {"players": game.players, "variant": game.variant, "moves": moves}


def search(game: BotGame) -> tuple[BotGame, dict[str, Any], list[dict[str, Any]]]:
    """Play, analyse and search one game (in a worker process)."""
    from games.analysis import analysis_compute
    from learn.puzzles import find_puzzles

    record = play(game)
    turns = analysis_compute(record)["turns"]
    found = find_puzzles(record, turns)
    return game, record, [dataclasses.asdict(candidate) for candidate in found]


def run(
    games: Sequence[BotGame],
    processes: int = 2,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[tuple[BotGame, dict[str, Any], list[dict[str, Any]]]]:
    """Search the games in ``processes`` worker processes (1: in this process)."""
    done = 0
    if processes <= 1:
        results: Iterator[Any] = map(search, games)
        for result in results:
            done += 1
            if progress:
                progress(done, len(games))
            yield result
        return
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        for result in pool.imap_unordered(search, games):
            done += 1
            if progress:
                progress(done, len(games))
            yield result

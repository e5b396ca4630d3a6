"""Recorded games for the learn tests: a bot game fixed by its seed, cut to its first turns."""

from __future__ import annotations

from typing import Any

from learn import generate


def recorded(seed: int = 2, turns: int = 8) -> dict[str, Any]:
    game = generate.bot_games(1, seed, [2])[0]
    record = generate.play(game)
    record["moves"] = record["moves"][:turns]
    return record

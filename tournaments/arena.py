"""The arena's pure logic: streak scoring, pairing the players who wait, standings.

An arena runs for a fixed time; a player whose game ends waits and is paired again at once with
others who wait, of similar standing. No database here: ``tournaments.services`` gathers the
rows and applies the result (as ``tournaments.pairing`` for Swiss and round robin).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from ratings.elo import START_RATING
from tournaments.pairing import Standing, TableResult

STREAK_AFTER = 2
"""Wins in a row after which each further win counts double."""
WIN = 1.0
DEFAULT_RATING = START_RATING
"""Of a player without a rating in the tournament's pool: the ratings' starting rating."""


def streak_points(game_points: Sequence[float]) -> tuple[float, int]:
    """A player's arena points from their games' points in the order played, and their current
    run of wins. After ``STREAK_AFTER`` wins in a row every further win counts double, until a
    game that is not a win."""
    total = 0.0
    run = 0
    for points in game_points:
        won = points >= WIN
        total += points * 2 if won and run >= STREAK_AFTER else points
        run = run + 1 if won else 0
    return total, run


def on_streak(run: int) -> bool:
    """Whether the next win counts double."""
    return run >= STREAK_AFTER


@dataclass(frozen=True)
class Waiting:
    """A player waiting for a game: their arena points and rating (similar standing), the
    opponents of their previous game (not met again at once when another choice exists), and
    ``skipped``: the pairing waves that seated others while this player was free (they are
    seated first, so nobody waits more than one game while another player is free)."""

    id: int
    points: float
    rating: float
    last_opponents: frozenset[int] = field(default_factory=frozenset)
    skipped: int = 0


def _table_sizes(count: int, table_size: int, exact: bool) -> list[int]:
    """How ``count`` waiting players sit: tables of ``table_size`` while enough wait, the rest
    at tables of 2 (or 3), never leaving one alone when a smaller table avoids it. ``exact``
    (teams): only full tables."""
    if exact:
        return [table_size] * (count // table_size)
    sizes = []
    left = count
    while left >= 2:
        size = min(table_size, left)
        if left - size == 1 and size > 2:
            size -= 1
        sizes.append(size)
        left -= size
    return sizes


def _fits(table: Sequence[Waiting], candidate: Waiting) -> bool:
    return all(
        candidate.id not in seated.last_opponents and seated.id not in candidate.last_opponents
        for seated in table
    )


def arena_tables(
    waiting: Sequence[Waiting], table_size: int, *, exact: bool = False, allow_rematch: bool = True
) -> list[tuple[int, ...]]:
    """Tables for the players who wait, best standing first; each seats neighbours in the
    standing, skipping a player's previous opponents. ``allow_rematch`` False: a player who
    could only meet a previous opponent again waits (another game may end soon); True: they
    meet again rather than wait (nobody else could come). Leftover players wait. A player
    already passed over once (``skipped``) comes before the standing: fairness first."""

    def rank(w: Waiting) -> tuple[bool, float, float, int]:
        return (w.skipped == 0, -w.points, -w.rating, w.id)

    order = sorted(waiting, key=rank)
    sizes = _table_sizes(len(order), table_size, exact)
    tables: list[tuple[int, ...]] = []
    pool = list(order)
    for size in sizes:
        if len(pool) < size:
            break
        first = pool.pop(0)
        table = [first]
        for candidate in list(pool):
            if len(table) == size:
                break
            if _fits(table, candidate):
                table.append(candidate)
                pool.remove(candidate)
        if len(table) < size and allow_rematch:
            while len(table) < size and pool:
                table.append(pool.pop(0))
        if len(table) < size:
            pool.extend(table[1:])
            pool.sort(key=rank)
            if len(pool) < size:
                break
            continue
        tables.append(tuple(w.id for w in table))
    return tables


def _opponents(result: TableResult, player: int) -> list[int]:
    """``player``'s opponents at a table (a teammate is none)."""
    team_of = {m: t for t, team in enumerate(result.teams or ()) for m in team}
    mine = team_of.get(player)
    return [q for q in result.players if q != player and (mine is None or team_of.get(q) != mine)]


def _key(value: float) -> float:
    return round(value, 9)


def arena_standings(
    player_ids: Sequence[int],
    results: Sequence[TableResult],
    ratings: dict[int, float],
) -> list[Standing]:
    """Standings of an arena. ``results``: the finished tables in the order they ended.
    Ordered by arena points (streaks doubled), then performance (the mean rating of the
    opponents met), then total score; equal on all three share a rank. ``Standing.buchholz``
    carries the sum of the opponents' arena points, as for the other formats."""
    game_points: dict[int, list[float]] = {}
    scores: dict[int, int] = {}
    opponents: dict[int, list[int]] = {}
    for result in results:
        for p in result.players:
            game_points.setdefault(p, []).append(float(result.points.get(p, 0.0)))
            scores[p] = scores.get(p, 0) + int(result.scores.get(p, 0))
            opponents.setdefault(p, []).extend(_opponents(result, p))
    points = {p: streak_points(values)[0] for p, values in game_points.items()}
    performance_of = performances(player_ids, results, ratings)
    rows = []
    for p in player_ids:
        buchholz = math.fsum(points.get(q, 0.0) for q in opponents.get(p, []))
        rows.append((points.get(p, 0.0), performance_of[p], scores.get(p, 0), buchholz, p))
    rows.sort(key=lambda r: (-_key(r[0]), -_key(r[1]), -r[2]))
    out: list[Standing] = []
    previous: tuple[float, float, int] | None = None
    for position, (pts, performance, score, buchholz, p) in enumerate(rows):
        key = (_key(pts), _key(performance), score)
        rank = out[-1].rank if out and key == previous else position + 1
        previous = key
        out.append(
            Standing(
                rank=rank,
                player=p,
                points=pts,
                buchholz=buchholz,
                score=score,
                games=len(game_points.get(p, [])),
            )
        )
    return out


def performances(
    player_ids: Sequence[int], results: Sequence[TableResult], ratings: dict[int, float]
) -> dict[int, float]:
    """Each player's performance: the mean rating of the opponents met (0 before any game)."""
    met: dict[int, list[float]] = {p: [] for p in player_ids}
    for result in results:
        for p in result.players:
            if p in met:
                met[p].extend(ratings.get(q, DEFAULT_RATING) for q in _opponents(result, p))
    return {p: (math.fsum(values) / len(values) if values else 0.0) for p, values in met.items()}

"""Scoring of one line (a row or a column), and the two Double Siesta variants.

A board's worth to a player is a sum over its 24 lines, plus (``standard`` only) a term for
horizontal and vertical siestas that cross on a shadow. Siestas never span an empty cell, so one
line's contribution depends on that line's content alone; it is memoised per content.

Cell codes inside a line: 0 empty, 1 sun, 2 shadow, 3 + seat index (0-based) for a roof.
"""

from __future__ import annotations

from typing import NamedTuple

from games.engine.errors import EngineError

EMPTY, SUN, SHADOW, ROOF0 = 0, 1, 2, 3
MAX_SEATS = 4
_CACHE_LIMIT = 500_000


class LineScore(NamedTuple):
    """What one line is worth, per seat (0-based), plus the masks the crossing bonus needs."""

    points: tuple[int, int, int, int]
    in_siesta: int
    """Bit i set: cell i of the line is a shadow in at least one siesta (of anybody)."""
    covered1: tuple[int, int, int, int]
    """Per seat, bit i set: cell i is a shadow in at least one siesta that seat owns."""
    covered2: tuple[int, int, int, int]
    """Per seat, bit i set: cell i is a shadow in two siestas that seat owns (both directions)."""


class Siesta(NamedTuple):
    """A siesta in a line: its shadow run ``[first, last]`` and the owners as a seat bitmask."""

    first: int
    last: int
    owners: int


def line_siestas(line: tuple[int, ...]) -> list[Siesta]:
    """Every siesta of the line, read in both directions.

    Each maximal run of roofs makes at most one siesta: with a sun on one side and a shadow run on
    the other.

    >>> line_siestas((1, 3, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0))
    [Siesta(first=2, last=3, owners=1)]
    """
    return [siesta for siesta, _ in _siestas_and_spans(line)]


def line_siesta_spans(line: tuple[int, ...]) -> list[tuple[int, int]]:
    """Every siesta of the line as the cells it is made of, ``(first, last)``: its run of suns,
    its roofs and its shadows (what the board says of a cell without sight, ``siesta_counts``).

    >>> line_siesta_spans((1, 1, 3, 2, 2, 0, 1, 4, 2, 0, 0, 0))
    [(0, 4), (6, 8)]
    """
    return [span for _, span in _siestas_and_spans(line)]


def _siestas_and_spans(line: tuple[int, ...]) -> list[tuple[Siesta, tuple[int, int]]]:
    n = len(line)
    found: list[tuple[Siesta, tuple[int, int]]] = []
    i = 0
    while i < n:
        if line[i] < ROOF0:
            i += 1
            continue
        start, owners = i, 0
        while i < n and line[i] >= ROOF0:
            owners |= 1 << (line[i] - ROOF0)
            i += 1
        end = i - 1
        before = line[start - 1] if start > 0 else EMPTY
        after = line[end + 1] if end + 1 < n else EMPTY
        if before == SUN and after == SHADOW:
            last = end + 1
            while last + 1 < n and line[last + 1] == SHADOW:
                last += 1
            suns = start - 1
            while suns > 0 and line[suns - 1] == SUN:
                suns -= 1
            found.append((Siesta(end + 1, last, owners), (suns, last)))
        elif after == SUN and before == SHADOW:
            first = start - 1
            while first > 0 and line[first - 1] == SHADOW:
                first -= 1
            suns = end + 1
            while suns + 1 < n and line[suns + 1] == SUN:
                suns += 1
            found.append((Siesta(first, start - 1, owners), (first, suns)))
    return found


class Rules:
    """The scoring rules of a variant. Subclasses decide the Double Siesta bonus."""

    name = ""
    crossing_bonus = False
    """Whether a horizontal and a vertical siesta crossing on a shadow form a Double Siesta."""

    def __init__(self) -> None:
        self._cache: dict[tuple[int, ...], LineScore] = {}
        self._interned: dict[LineScore, LineScore] = {}

    def __reduce__(self) -> tuple[object, tuple[str]]:
        """Pickled by name: a position sent to another process (the engine pool) refers to that
        process's own rules object, without this one's memo. The memo is shared by every thread
        of the process (and grows while one thread would pickle it), and holds up to
        ``_CACHE_LIMIT`` lines."""
        return rules_for, (self.name,)

    def double_bonus_seats(self, first_owners: int, second_owners: int) -> int:
        """Seats (bitmask) that score +2 for two siestas of one line sharing a shadow run."""
        raise NotImplementedError

    def score_line(self, line: tuple[int, ...]) -> LineScore:
        cached = self._cache.get(line)
        if cached is not None:
            return cached
        if len(self._cache) > _CACHE_LIMIT:
            self._cache.clear()
        # Equal scores share one object, so callers can skip unchanged lines with ``is``.
        result = self._score_line(line)
        result = self._interned.setdefault(result, result)
        self._cache[line] = result
        return result

    def _score_line(self, line: tuple[int, ...]) -> LineScore:
        points = [0] * MAX_SEATS
        covered1 = [0] * MAX_SEATS
        covered2 = [0] * MAX_SEATS
        in_siesta = 0
        by_run: dict[int, int] = {}
        for siesta in line_siestas(line):
            shadows = siesta.last - siesta.first + 1
            run = ((1 << shadows) - 1) << siesta.first
            in_siesta |= run
            for seat in range(MAX_SEATS):
                if siesta.owners >> seat & 1:
                    points[seat] += shadows
                    covered2[seat] |= covered1[seat] & run
                    covered1[seat] |= run
            if siesta.first in by_run:
                bonus = self.double_bonus_seats(by_run[siesta.first], siesta.owners)
                for seat in range(MAX_SEATS):
                    if bonus >> seat & 1:
                        points[seat] += 2
            else:
                by_run[siesta.first] = siesta.owners
        return LineScore(
            (points[0], points[1], points[2], points[3]),
            in_siesta,
            (covered1[0], covered1[1], covered1[2], covered1[3]),
            (covered2[0], covered2[1], covered2[2], covered2[3]),
        )


class StandardRules(Rules):
    """This site's rules: any two siestas sharing a shadow; +2 to everyone who owns both."""

    name = "standard"
    crossing_bonus = True

    def double_bonus_seats(self, first_owners: int, second_owners: int) -> int:
        return first_owners & second_owners


class ClassicRules(Rules):
    """The Goldsieber rulebook: only S R H R S in one line, and only with a single roof owner."""

    name = "classic"
    crossing_bonus = False

    def double_bonus_seats(self, first_owners: int, second_owners: int) -> int:
        owners = first_owners | second_owners
        return owners if owners.bit_count() == 1 else 0


VARIANTS: dict[str, Rules] = {"standard": StandardRules(), "classic": ClassicRules()}


def rules_for(variant: str) -> Rules:
    """The (shared, memoising) rules object of a variant name."""
    try:
        return VARIANTS[variant]
    except KeyError:
        raise EngineError(f"unknown variant {variant!r}: use 'standard' or 'classic'") from None

"""Tournament pairing and standings: pure functions, no Django.

Player identities are plain ints (the caller's TournamentPlayer ids). Everything here is
deterministic: the same input always gives the same pairing.

- `round_robin_rounds`: the circle method (2 seats).
- `swiss_round`: one Swiss round. 2 seats: a maximum-weight matching (networkx) over score
  differences, a rematch costing more than every other term together. 3-4 seats: a budgeted exact
  search (branch and bound over the ranked list, then a most-constrained-first search with a table
  of failed states) that finds a rematch-free split whenever one exists within its node budget,
  else the split with the fewest rematches it found.
- `seat_order`, `balance_seats`: the seat order within a table that spreads each player's seats
  most evenly over the event (for Swiss rounds; the round robin's circle balances by itself).
- `standings`: points, Buchholz, total score and shared competition ranks.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations

import networkx as nx

# Points are compared on a grid fine enough for every share a table can give (halves, quarters,
# sixths): 1200 = lcm(2, 4, 6) * 100.
_POINT_GRID = 1200
# Node budgets of the 3-4 seat search (docs/tournaments.md has the time they take).
# A node is one step of a search (a seat tried or a table checked), a few microseconds.
TOTAL_BUDGET = 60_000  # every search of one round together
ORDERED_BUDGET = 8_000  # a first rematch-free split in rank order, fewest tables
IMPROVE_BUDGET = 6_000  # nodes then spent improving on it, before the local swaps
FEASIBILITY_BUDGET = 35_000  # the most-constrained-first searches, all table counts together
FALLBACK_BUDGET = 20_000  # per table count, when some rematch is unavoidable
IMPROVE_SWEEPS = 8  # sweeps of the local search over every pair of tables


@dataclass(frozen=True)
class PairingPlayer:
    id: int
    points: float  # tournament points so far (byes included)
    rating: float  # the pool rating, for round 1 and tie-breaks
    byes: int = 0  # byes received so far
    met: frozenset[int] = frozenset()  # everyone already seated at a table with this player
    seats: tuple[int, ...] = ()  # the seat numbers of the games played so far, in round order


@dataclass(frozen=True)
class RoundPairing:
    tables: tuple[tuple[int, ...], ...]  # each table's ids, in seat order
    byes: tuple[int, ...]


@dataclass(frozen=True)
class TableResult:
    players: tuple[int, ...]
    points: Mapping[int, float]  # per player, in [0, 1]
    scores: Mapping[int, int]  # Siesta score per player
    teams: tuple[tuple[int, ...], ...] | None = None  # teams mode: teammates are not opponents


@dataclass(frozen=True)
class Standing:
    rank: int  # competition ranking: equal on points, buchholz and score share a rank (1, 1, 3)
    player: int
    points: float  # game points + 1 per bye
    buchholz: float  # sum of the final points of every opponent met (once per meeting)
    score: int  # total Siesta score
    games: int  # games played (byes not counted)


# --------------------------------------------------------------------------- round robin


def round_robin_rounds(player_ids: Sequence[int]) -> list[RoundPairing]:
    """Circle method, 2 seats: every pair meets exactly once; odd count -> one bye per round,
    each player's bye exactly once. Seats alternate fairly: over the whole event everyone sits in
    seat 1 and seat 2 equally often, give or take one.

    With n players (n + 1 when odd, the extra slot being the bye) the last slot stays fixed and the
    others turn: in round r the fixed slot meets rotating[r] (seat order alternating with r) and
    rotating[r + j] meets rotating[r - j] with rotating[r + j] in seat 1, so every rotating player
    is in seat 1 for half of its other games and in seat 2 for the other half.
    """
    ids = list(player_ids)
    _check_unique(ids)
    if not ids:
        return []
    slots: list[int | None] = [*ids, None] if len(ids) % 2 else list(ids)
    size = len(slots)
    fixed = slots[-1]
    rotating = slots[:-1]
    turn = size - 1
    rounds = []
    for r in range(turn):
        pairs: list[tuple[int | None, int | None]] = []
        first = rotating[r]
        pairs.append((first, fixed) if r % 2 == 0 else (fixed, first))
        for j in range(1, size // 2):
            pairs.append((rotating[(r + j) % turn], rotating[(r - j) % turn]))
        tables: list[tuple[int, ...]] = []
        byes: list[int] = []
        for a, b in pairs:
            if a is None:
                byes.extend([b] if b is not None else [])
            elif b is None:
                byes.append(a)
            else:
                tables.append((a, b))
        rounds.append(RoundPairing(tables=tuple(tables), byes=tuple(byes)))
    return rounds


# --------------------------------------------------------------------------- swiss: the plan


@dataclass(frozen=True)
class _Plan:
    """How many byes and which table counts a field of n allows (fewest byes first)."""

    byes: int
    table_counts: tuple[int, ...]  # every valid number of tables, fewest first
    exact: bool = False  # every table has k seats

    def sizes(self, n: int, k: int, tables: int) -> tuple[int, int]:
        """(tables of k seats, tables of k - 1 seats) for `tables` tables."""
        seated = n - self.byes
        if k == 2 or self.exact:
            return tables, 0
        return seated - tables * (k - 1), tables * k - seated


def _plan(n: int, k: int, exact: bool = False) -> _Plan:
    """The fewest byes such that the rest sits at tables of k or k - 1 seats (never fewer than 2;
    `exact`: of k seats).

    A field smaller than any allowed table (2 players, 4 seats) sits at one table rather than
    getting a round of byes (not when `exact`)."""
    if exact:
        return _Plan(n % k, (n // k,), exact=True) if n >= k else _Plan(n, ())
    for byes in range(n + 1):
        seated = n - byes
        if seated == 0:
            break
        if k == 2:
            counts = [seated // 2] if seated % 2 == 0 else []
        else:
            counts = [t for t in range(1, seated + 1) if t * (k - 1) <= seated <= t * k]
        if counts:
            return _Plan(byes, tuple(counts))
    if n >= 2:
        return _Plan(0, (1,))
    return _Plan(n, ())


def bye_rule(players: Sequence[PairingPlayer], count: int) -> tuple[list[int], list[int]]:
    """Who must and who may get the round's `count` byes, as indices into `players`.

    Nobody gets a bye while someone with fewer byes plays: players below the threshold (the
    count-th smallest bye count) must get one, players at it may (the search prefers the
    lowest-ranked of them), players above it may not. Returns (forced, candidates)."""
    if count == 0:
        return [], []
    threshold = sorted(p.byes for p in players)[count - 1]
    forced = [i for i, p in enumerate(players) if p.byes < threshold]
    candidates = [i for i, p in enumerate(players) if p.byes == threshold]
    return forced, candidates


# --------------------------------------------------------------------------- swiss: entry point


def swiss_round(players: Sequence[PairingPlayer], table_size: int) -> RoundPairing:
    """`players` in ranking order, best first (for round 1 the caller passes them by rating).
    Tables of table_size or table_size - 1 seats (never fewer than 2), as few byes as possible; a
    bye goes to the lowest-ranked player with the fewest byes. Equal/near points seated together;
    never a repeat meeting when some split avoids it (2 seats: networkx max-weight matching; 3-4
    seats: exact search for a repeat-free split for fields up to a few dozen, else fewest
    repeats; at 2 seats, the matching then avoids seating together two players due the same seat,
    before the score). Tables are listed best-ranked first, each in ranking order: `balance_seats`
    then orders the seats."""
    return _swiss(players, table_size, exact=False)


def swiss_round_exact(players: Sequence[PairingPlayer], table_size: int) -> RoundPairing:
    """`swiss_round` with every table of exactly `table_size` seats (team games need 4): the
    remainder of the field rests, by the same bye rule."""
    return _swiss(players, table_size, exact=True)


def _swiss(players: Sequence[PairingPlayer], table_size: int, *, exact: bool) -> RoundPairing:
    if table_size < 2:
        raise ValueError(f"table_size must be at least 2, not {table_size}")
    _check_unique([p.id for p in players])
    n = len(players)
    if n == 0:
        return RoundPairing(tables=(), byes=())
    plan = _plan(n, table_size, exact)
    if not plan.table_counts:
        return RoundPairing(tables=(), byes=tuple(p.id for p in players))
    if n - plan.byes < table_size - 1:  # a tiny field: one table of everyone
        tables, byes = [list(range(n - plan.byes))], list(range(n - plan.byes, n))
    elif table_size == 2:
        tables, byes = _swiss_two(players, plan)
    else:
        tables, byes = _Search(players, table_size, plan).run()
    return _as_pairing(players, tables, byes)


def _as_pairing(
    players: Sequence[PairingPlayer], tables: Sequence[Sequence[int]], byes: Sequence[int]
) -> RoundPairing:
    ordered = sorted(sorted(t) for t in tables)
    return RoundPairing(
        tables=tuple(tuple(players[i].id for i in t) for t in ordered),
        byes=tuple(players[i].id for i in sorted(byes)),
    )


# --------------------------------------------------------------------------- seats


def balance_seats(pairing: RoundPairing, history: Mapping[int, Sequence[int]]) -> RoundPairing:
    """`pairing` with each table's seats put in `seat_order` (the players at each table stay)."""
    return RoundPairing(
        tables=tuple(
            seat_order(table, history, turn=number) for number, table in enumerate(pairing.tables)
        ),
        byes=pairing.byes,
    )


def seat_order(
    table: Sequence[int], history: Mapping[int, Sequence[int]], *, turn: int = 0
) -> tuple[int, ...]:
    """The players of one table (in ranking order) in seat order, seat 1 first, spreading each
    player's seats over the event as evenly as possible. `history`: each player's seats so far.

    Most important first: the fewest earlier sittings in the seats given (the sum over the table;
    at 2 seats, seat 1 to the player who had it less, like colours in a chess Swiss); then seats
    sat longest ago (alternate, rotate); then the ranking order rotated by `turn` (the table's
    number, so that in round 1 the better-ranked player is not always seat 1)."""
    size = len(table)
    rotated = tuple(table[(i + turn) % size] for i in range(size))

    def key(order: tuple[int, ...]) -> tuple[int, int, int, bool]:
        sat = [(seat, history.get(player, ())) for seat, player in enumerate(order, start=1)]
        excess = sum(_excess(seats, seat, size) ** 2 for seat, seats in sat)
        count = sum(seats.count(seat) for seat, seats in sat)
        recency = sum(_last_at(seats, seat) for seat, seats in sat)
        return excess, count, recency, order != rotated

    return min(permutations(table), key=key)


def _excess(seats: Sequence[int], seat: int, size: int) -> int:
    """How many more times `seats` sat in `seat` than in its least-used seat of 1..size."""
    return seats.count(seat) - min(seats.count(s) for s in range(1, size + 1))


def _last_at(seats: Sequence[int], seat: int) -> int:
    """1 + the index of the last time in `seats` at `seat`, 0 if never."""
    for index in range(len(seats) - 1, -1, -1):
        if seats[index] == seat:
            return index + 1
    return 0


def seat_imbalance(seats: Sequence[int]) -> int:
    """Seat 1 minus seat 2 sittings: the colour balance of a 2-seat event."""
    return seats.count(1) - seats.count(2)


def seat_conflict(a: Sequence[int], b: Sequence[int]) -> int:
    """How much seating two players at one 2-seat table unbalances a seat history: both due the
    same seat (imbalance of the same sign) costs twice the smaller imbalance; both balanced but
    last in the same seat costs 1."""
    da, db = seat_imbalance(a), seat_imbalance(b)
    if da * db > 0:
        return 2 * min(abs(da), abs(db))
    if da == db == 0 and a and b and a[-1] == b[-1]:
        return 1
    return 0


def _quantised(players: Sequence[PairingPlayer]) -> list[int]:
    return [round(p.points * _POINT_GRID) for p in players]


def _met_masks(players: Sequence[PairingPlayer]) -> list[int]:
    """Bit j of entry i is set when players i and j met (either side recording it is enough)."""
    index = {p.id: i for i, p in enumerate(players)}
    masks = [0] * len(players)
    for i, p in enumerate(players):
        for other in p.met:
            j = index.get(other)
            if j is not None and j != i:
                masks[i] |= 1 << j
                masks[j] |= 1 << i
    return masks


# --------------------------------------------------------------------------- swiss: 2 seats


def _swiss_two(players: Sequence[PairingPlayer], plan: _Plan) -> tuple[list[list[int]], list[int]]:
    """Max-weight perfect matching; the weights encode, most important first: no rematch, the bye
    to the lowest-ranked candidate, not two players due the same seat (`seat_conflict`: one would
    sit there twice more than in the other), small score differences, not two balanced players
    last in the same seat, then top half against bottom half
    within a score group (the classic Swiss "slide", which is also round 1 by rating)."""
    n = len(players)
    pts = _quantised(players)
    met = _met_masks(players)
    group_start: list[int] = []
    group_size: list[int] = []
    for i in range(n):
        start = i
        while start > 0 and pts[start - 1] == pts[i]:
            start -= 1
        end = i
        while end + 1 < n and pts[end + 1] == pts[i]:
            end += 1
        group_start.append(start)
        group_size.append(end - start + 1)

    seat_unit = n * n + 1  # above the sum of every slide term
    conflicts = {
        (i, j): seat_conflict(players[i].seats, players[j].seats)
        for i in range(n)
        for j in range(i + 1, n)
    }
    # Two players due the same seat (one would sit there twice more than in the other) weigh
    # more than any score difference; two balanced players last in the same seat less.
    mild = {pair: c for pair, c in conflicts.items() if c == 1}
    slide_unit = (n // 2 + 1) * 2 * seat_unit  # above the sum of every mild and slide term
    spread = (max(pts, default=0) - min(pts, default=0)) ** 2
    severe_unit = (n // 2 + 1) * (spread + 1) * slide_unit  # above every score term together

    def cost(i: int, j: int) -> int:
        slide = 0
        if pts[i] == pts[j]:
            slide = abs(2 * abs(i - j) - group_size[i])  # ideal distance: half the group
        severe = conflicts[i, j] if (i, j) not in mild else 0
        return (
            severe * severe_unit
            + (pts[i] - pts[j]) ** 2 * slide_unit
            + mild.get((i, j), 0) * seat_unit
            + slide
        )

    pair_costs = {(i, j): cost(i, j) for i in range(n) for j in range(i + 1, n)}
    c_max = (n // 2 + 1) * (max(pair_costs.values(), default=0) + 1)
    bye_unit = c_max
    rematch = (n + 1) * bye_unit
    base = rematch * (n + 2)

    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(range(n))
    for (i, j), c in pair_costs.items():
        penalty = rematch if met[i] >> j & 1 else 0
        graph.add_edge(i, j, weight=base - penalty - c)
    if plan.byes:
        _, candidates = bye_rule(players, plan.byes)
        for i in candidates:
            graph.add_edge(i, n, weight=base - (n - 1 - i) * bye_unit)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    tables: list[list[int]] = []
    byes: list[int] = []
    for a, b in matching:
        if n in (a, b):
            byes.append(min(a, b))
        else:
            tables.append(sorted((a, b)))
    return tables, byes


# --------------------------------------------------------------------------- swiss: 3-4 seats


class _OutOfBudget(Exception):
    pass


class _Search:
    """Tables of k or k - 1 seats for a ranked field (players are indices, 0 = best).

    Objective, most important first: fewest rematches; fewest tables (by the order in which
    `run` tries the table counts); the byes (`bye_cost`); the score cost, the sum over tables of
    the squared point differences of every pair at the table, then (tiny) each table's rank span.
    All terms but the table count are integers weighted so that the lexicographic order is one
    integer comparison.
    """

    def __init__(self, players: Sequence[PairingPlayer], k: int, plan: _Plan) -> None:
        self.n = n = len(players)
        self.k = k
        self.plan = plan
        self.pts = _quantised(players)
        self.met = _met_masks(players)
        everyone = (1 << n) - 1
        self.compat = [everyone & ~self.met[i] & ~(1 << i) for i in range(n)]
        forced, candidates = bye_rule(players, plan.byes)
        self.forced = _mask(forced)
        self.candidates = _mask(candidates)
        self.bye_ok = self.forced | self.candidates
        spread = max(self.pts, default=0) - min(self.pts, default=0)
        self.rank_unit = n * n + 1
        max_tables = max(plan.table_counts)
        pair_count = k * (k - 1) // 2
        self.mid = max_tables * pair_count * spread * spread * self.rank_unit + n * n + 1
        self.big = (n + 1) * (1 << n) * self.mid
        # pair[i][j]: what seating i with j costs (the rank span is added per table).
        self.pair = [
            [
                (self.pts[i] - self.pts[j]) ** 2 * self.rank_unit
                + (self.big if self.met[i] >> j & 1 else 0)
                for j in range(n)
            ]
            for i in range(n)
        ]
        self.nodes = 0
        self.budget = 0
        self.spent = 0  # nodes used by finished searches

    # ---- objective pieces

    def table_cost(self, table: Sequence[int]) -> int:
        pts = self.pts
        squares = sum((pts[a] - pts[b]) ** 2 for a, b in combinations(table, 2))
        return squares * self.rank_unit + (max(table) - min(table))

    def bye_cost(self, i: int) -> int:
        """2^n - 2^i: the byes compare lexicographically from the bottom of the ranking (the
        lowest-ranked candidate rests if any split allows it, then the next lowest, ...)."""
        return 0 if self.forced >> i & 1 else ((1 << self.n) - (1 << i)) * self.mid

    def rematches(self, table: Sequence[int]) -> int:
        return sum(1 for a, b in combinations(table, 2) if self.met[a] >> b & 1)

    def table_value(self, table: Sequence[int]) -> int:
        pair = self.pair
        return sum(pair[a][b] for a, b in combinations(table, 2)) + max(table) - min(table)

    def objective(self, tables: Sequence[Sequence[int]], byes: Sequence[int]) -> int:
        return (
            sum(self.rematches(t) for t in tables) * self.big
            + sum(self.bye_cost(i) for i in byes)
            + sum(self.table_cost(t) for t in tables)
        )

    # ---- driver

    def run(self) -> tuple[list[list[int]], list[int]]:
        """Rematch-free if a search finds it, fewest tables preferred: first the ranked search
        with the fewest tables (cheap when it succeeds, and the best seating); else the
        most-constrained-first search over every table count, which also proves when there is
        none. Else the fewest rematches found. Every search draws on TOTAL_BUDGET, so the time is
        bounded."""
        counts = self.plan.table_counts
        found = self.ordered(*self.sizes(counts[0]), strict=True, budget=ORDERED_BUDGET)
        if found is not None:
            return self.improve(*found)
        # Table counts in turn with a budget growing fourfold per pass: an easy count is not
        # starved by a hard one, and a count proven impossible drops out.
        feasibility = FEASIBILITY_BUDGET
        pending = list(counts)
        dead: dict[int, set[tuple[int, int, int, int]]] = {t: set() for t in pending}
        step = 1_000
        while pending and feasibility > 0:
            for tables in list(pending):
                better, settled = self.constrained(
                    *self.sizes(tables), budget=min(step, feasibility), dead=dead[tables]
                )
                feasibility -= self.nodes
                if better is not None:
                    # The ranked search again, to beat it (byes, seating) within its budget.
                    ranked = self.ordered(
                        *self.sizes(tables), strict=True, budget=ORDERED_BUDGET, incumbent=better
                    )
                    return self.improve(*(ranked or better))
                if settled:
                    pending.remove(tables)
                elif self.spent + self.nodes >= TOTAL_BUDGET:
                    pending = []  # out of budget: on to the fallback
                    break
            step *= 4
        best: tuple[list[list[int]], list[int]] | None = None
        best_rematches = math.inf
        for tables in counts:
            greedy = self.greedy(*self.sizes(tables))
            searched = self.ordered(
                *self.sizes(tables), strict=False, budget=FALLBACK_BUDGET, incumbent=greedy
            )
            split = self.improve(*(searched if searched is not None else greedy))
            count = sum(self.rematches(t) for t in split[0])
            if count < best_rematches:
                best, best_rematches = split, count
        assert best is not None  # there is at least one table count
        return best

    def sizes(self, tables: int) -> tuple[int, int]:
        return self.plan.sizes(self.n, self.k, tables)

    def start(self, budget: int) -> None:
        """Open a search of at most `budget` nodes, within what TOTAL_BUDGET has left."""
        self.spent += self.nodes
        self.nodes = 0
        self.budget = max(0, min(budget, TOTAL_BUDGET - self.spent))

    def greedy(self, a: int, b: int) -> tuple[list[list[int]], list[int]]:
        """Byes to the forced and the lowest-ranked candidates, then consecutive tables."""
        need = self.plan.byes - self.forced.bit_count()
        byes = _bits(self.forced)
        byes += sorted(_bits(self.candidates & ~self.forced), reverse=True)[:need]
        rest = [i for i in range(self.n) if i not in byes]
        sizes = [self.k] * a + [self.k - 1] * b
        tables = []
        start = 0
        for size in sizes:
            tables.append(rest[start : start + size])
            start += size
        return tables, byes

    # ---- search 1: branch and bound over the ranked list

    def ordered(
        self,
        a: int,
        b: int,
        *,
        strict: bool,
        budget: int,
        incumbent: tuple[list[list[int]], list[int]] | None = None,
    ) -> tuple[list[list[int]], list[int]] | None:
        """The best split with the best-ranked free player leading each next table, its mates
        tried nearest in rank first (so the first leaf is the plain consecutive split). `strict`:
        rematches forbidden. Returns the best found within `budget` nodes, or None."""
        self.start(budget)
        self.best: tuple[list[list[int]], list[int]] | None = incumbent
        self.best_value = self.objective(*incumbent) if incumbent else math.inf
        self.improving = not strict  # the fallback keeps its whole budget
        everyone = (1 << self.n) - 1
        with contextlib.suppress(_OutOfBudget):
            self._ordered(everyone, self.plan.byes, a, b, 0, [], [], strict)
        return self.best

    def _ordered(
        self,
        free: int,
        byes_left: int,
        a: int,
        b: int,
        value: int,
        tables: list[list[int]],
        byes: list[int],
        strict: bool,
    ) -> None:
        self.nodes += 1
        if self.nodes > self.budget:
            raise _OutOfBudget
        if value >= self.best_value:
            return
        if free == 0:
            self.best_value = value
            self.best = ([list(t) for t in tables], list(byes))
            if not self.improving:
                self.improving = True
                self.budget = min(self.nodes + IMPROVE_BUDGET, TOTAL_BUDGET - self.spent)
            return
        if strict:
            if not self._viable(free, byes_left, b > 0):
                return
        elif value + self._rematch_bound(free, byes_left, b > 0) * self.big >= self.best_value:
            return
        leader = (free & -free).bit_length() - 1
        rest = free & ~(1 << leader)
        forced_left = (self.forced & free).bit_count()
        if not self.forced >> leader & 1:
            pool = rest & self.compat[leader] if strict else rest
            for size, left in ((self.k, a), (self.k - 1, b)):
                if left == 0 or size < 2:
                    continue
                a2, b2 = a - (size == self.k), b - (size != self.k)
                # Every later table spans at least its size - 1 ranks.
                base = value + a2 * (self.k - 1) + b2 * (self.k - 2)
                for table, cost in self._tables([leader], 0, pool, size - 1, base, strict):
                    tables.append(table)
                    self._ordered(
                        free & ~_mask(table), byes_left, a2, b2, value + cost, tables, byes, strict
                    )
                    tables.pop()
        if self.bye_ok >> leader & 1 and byes_left > forced_left - (self.forced >> leader & 1):
            byes.append(leader)
            self._ordered(
                rest, byes_left - 1, a, b, value + self.bye_cost(leader), tables, byes, strict
            )
            byes.pop()

    def _tables(
        self, members: list[int], partial: int, pool: int, need: int, base: int, strict: bool
    ) -> Iterator[tuple[list[int], int]]:
        """Tables completing `members` from `pool`, lowest indices first, with their value;
        a partial table already as dear as the best split (with `base`) is not extended."""
        if need == 0:
            yield members, partial + members[-1] - members[0]
            return
        for i in _bits(pool):
            self.nodes += 1
            if self.nodes > self.budget:
                raise _OutOfBudget
            row = self.pair[i]
            cost = partial + sum(row[m] for m in members)
            if base + cost + i - members[0] >= self.best_value:
                continue
            later = pool >> (i + 1) << (i + 1)
            rest = later & self.compat[i] if strict else later
            if rest.bit_count() < need - 1:
                continue
            yield from self._tables([*members, i], cost, rest, need - 1, base, strict)

    def _rematch_bound(self, free: int, byes_left: int, small_left: bool) -> int:
        """Rematches seating `free` makes at least: a player who cannot rest and has d < need
        rematch-free partners left sits with need - d players met before; a rematch involves two."""
        need = max(self.k - 2 if small_left else self.k - 1, 1)
        may_rest = self.bye_ok if byes_left else 0
        compat = self.compat
        short = 0
        for i in _bits(free & ~may_rest):
            degree = (compat[i] & free).bit_count()
            if degree < need:
                short += need - degree
        return (short + 1) // 2

    def _viable(self, free: int, byes_left: int, small_left: bool) -> bool:
        """Every free player who cannot take a bye still has enough rematch-free partners."""
        need = self.k - 2 if small_left else self.k - 1
        need = max(need, 1)
        may_rest = self.bye_ok if byes_left else 0
        compat = self.compat
        return all((compat[i] & free).bit_count() >= need for i in _bits(free & ~may_rest))

    # ---- search 2: most constrained first, for feasibility

    def constrained(
        self, a: int, b: int, budget: int, dead: set[tuple[int, int, int, int]]
    ) -> tuple[tuple[list[list[int]], list[int]] | None, bool]:
        """(A rematch-free split or None, whether the search was complete: None and complete
        means there is none). Branches on the free player with the fewest rematch-free partners;
        `dead` collects the states proven to have no completion (kept between calls)."""
        self.start(budget)
        self.dead = dead
        tables: list[list[int]] = []
        byes: list[int] = []
        try:
            if self._constrained((1 << self.n) - 1, self.plan.byes, a, b, tables, byes):
                return (tables, byes), True
        except _OutOfBudget:
            return None, False
        return None, True

    def _constrained(
        self, free: int, byes_left: int, a: int, b: int, tables: list[list[int]], byes: list[int]
    ) -> bool:
        if free == 0:
            return True
        key = (free, byes_left, a, b)
        if key in self.dead:
            return False
        self.nodes += 1
        if self.nodes > self.budget:
            raise _OutOfBudget
        forced_left = (self.forced & free).bit_count()
        may_rest = self.bye_ok if byes_left else 0
        need = max(self.k - 2 if b else self.k - 1, 1)
        compat, forced, n = self.compat, self.forced, self.n
        pick = -1
        pick_degree = 2 * n + 1
        left = free
        while left:
            low = left & -left
            left ^= low
            i = low.bit_length() - 1
            if forced & low:
                pick, pick_degree = i, -1
                continue
            degree = (compat[i] & free).bit_count()
            if may_rest & low:
                degree += n  # can always rest: branch on it last
            elif degree < need:
                self.dead.add(key)  # nobody left to seat i with
                return False
            if degree < pick_degree:
                pick, pick_degree = i, degree
        rest = free & ~(1 << pick)
        if not self.forced >> pick & 1:
            pool = rest & self.compat[pick]
            for size, left in ((self.k, a), (self.k - 1, b)):
                if left == 0 or size < 2:
                    continue
                for mates in _cliques(pool, size - 1, self.compat):
                    self.nodes += 1
                    if self.nodes > self.budget:
                        raise _OutOfBudget
                    table = [pick, *mates]
                    tables.append(table)
                    after = free & ~_mask(table)
                    a2, b2 = a - (size == self.k), b - (size != self.k)
                    if self._constrained(after, byes_left, a2, b2, tables, byes):
                        return True
                    tables.pop()
        if self.bye_ok >> pick & 1 and byes_left > forced_left - (self.forced >> pick & 1):
            byes.append(pick)
            if self._constrained(rest, byes_left - 1, a, b, tables, byes):
                return True
            byes.pop()
        self.dead.add(key)
        return False

    def improve(
        self, tables: list[list[int]], byes: list[int]
    ) -> tuple[list[list[int]], list[int]]:
        """Local search: swap two players of different tables, move a player from a full table to
        a short one, or swap a seated bye candidate with a resting one, while that lowers the
        objective (a new rematch costs more than anything it could gain)."""
        tables = [list(t) for t in tables]
        byes = list(byes)
        for _ in range(IMPROVE_SWEEPS):
            changed = self._improve_tables(tables)
            changed = self._improve_byes(tables, byes) or changed
            if not changed:
                break
        return tables, byes

    def _improve_tables(self, tables: list[list[int]]) -> bool:
        """One sweep over every pair of tables, applying each improvement found."""
        changed = False
        for x in range(len(tables)):
            for y in range(x + 1, len(tables)):
                while (better := self._better_pair(tables[x], tables[y])) is not None:
                    tables[x], tables[y] = better
                    changed = True
        return changed

    def _better_pair(self, tx: list[int], ty: list[int]) -> tuple[list[int], list[int]] | None:
        value = self.table_value
        before = value(tx) + value(ty)
        for i in range(len(tx)):
            for j in range(len(ty)):
                new_x = [*tx[:i], ty[j], *tx[i + 1 :]]
                new_y = [*ty[:j], tx[i], *ty[j + 1 :]]
                if value(new_x) + value(new_y) < before:
                    return new_x, new_y
        if len(tx) != len(ty):
            big, small = (tx, ty) if len(tx) > len(ty) else (ty, tx)
            for i in range(len(big)):
                new_big = big[:i] + big[i + 1 :]
                new_small = [*small, big[i]]
                if value(new_big) + value(new_small) < before:
                    return (new_big, new_small) if big is tx else (new_small, new_big)
        return None

    def _improve_byes(self, tables: list[list[int]], byes: list[int]) -> bool:
        for x, tx in enumerate(tables):
            for bi, resting in enumerate(byes):
                if self.forced >> resting & 1:
                    continue
                for i, seated in enumerate(tx):
                    if not self.candidates >> seated & 1:
                        continue
                    new = [*tx[:i], resting, *tx[i + 1 :]]
                    delta = (
                        self.table_value(new)
                        + self.bye_cost(seated)
                        - self.table_value(tx)
                        - self.bye_cost(resting)
                    )
                    if delta < 0:
                        tables[x] = new
                        byes[bi] = seated
                        return True
        return False


def _cliques(pool: int, need: int, compat: Sequence[int] | None) -> Iterator[tuple[int, ...]]:
    """Sets of `need` players from `pool`, lowest indices first; with `compat`, only sets whose
    members are pairwise compatible."""
    if need == 0:
        yield ()
        return
    for i in _bits(pool):
        if need == 1:
            yield (i,)
            continue
        later = pool >> (i + 1) << (i + 1)
        sub = later & compat[i] if compat is not None else later
        if sub.bit_count() < need - 1:
            continue
        for more in _cliques(sub, need - 1, compat):
            yield (i, *more)


def _mask(indices: Sequence[int]) -> int:
    m = 0
    for i in indices:
        m |= 1 << i
    return m


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _check_unique(ids: Sequence[int]) -> None:
    if len(set(ids)) != len(ids):
        raise ValueError("player ids must be unique")


# --------------------------------------------------------------------------- standings


def _key(value: float) -> float:
    """Comparison key tolerant of float noise (sums of thirds and sixths)."""
    return round(value, 9)


def standings(
    player_ids: Sequence[int], results: Sequence[TableResult], byes: Sequence[int]
) -> list[Standing]:
    """`byes`: one entry per bye given (a player id may repeat). Ordered by points, buchholz, score
    (descending); ties keep a stable order by the given player_ids order.

    Points and opponents are gathered for everyone appearing in the results (so a withdrawn
    player's points still count in their opponents' Buchholz); only `player_ids` are listed."""
    ids = list(player_ids)
    _check_unique(ids)
    game_points: dict[int, list[float]] = {}
    scores: dict[int, int] = {}
    games: dict[int, int] = {}
    opponents: dict[int, list[int]] = {}
    for result in results:
        team_of: dict[int, int] = {}
        for t, team in enumerate(result.teams or ()):
            for member in team:
                team_of[member] = t
        for p in result.players:
            game_points.setdefault(p, []).append(float(result.points.get(p, 0.0)))
            scores[p] = scores.get(p, 0) + int(result.scores.get(p, 0))
            games[p] = games.get(p, 0) + 1
            for q in result.players:
                if q == p or (p in team_of and team_of.get(q) == team_of[p]):
                    continue
                opponents.setdefault(p, []).append(q)
    for p in byes:
        game_points.setdefault(p, []).append(1.0)
    points = {p: math.fsum(values) for p, values in game_points.items()}
    rows = []
    for p in ids:
        buchholz = math.fsum(points.get(q, 0.0) for q in opponents.get(p, ()))
        rows.append((points.get(p, 0.0), buchholz, scores.get(p, 0), games.get(p, 0), p))
    rows.sort(key=lambda r: (-_key(r[0]), -_key(r[1]), -r[2]))  # stable: player_ids order
    out: list[Standing] = []
    for position, (pts, buchholz, score, played, p) in enumerate(rows):
        rank = position + 1
        if out:
            prev = out[-1]
            if (_key(prev.points), _key(prev.buchholz), prev.score) == (
                _key(pts),
                _key(buchholz),
                score,
            ):
                rank = prev.rank
        out.append(Standing(rank, p, pts, buchholz, score, played))
    return out

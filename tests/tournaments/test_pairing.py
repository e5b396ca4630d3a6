"""Pairing and standings as pure functions (no database)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments import pairing as pairing_module
from tournaments.pairing import (
    PairingPlayer,
    RoundPairing,
    Standing,
    TableResult,
    round_robin_rounds,
    standings,
    swiss_round,
    swiss_round_exact,
)

# --------------------------------------------------------------------------- helpers


def table_sizes(k: int, exact: bool) -> list[int]:
    return [k] if exact else [s for s in (k, k - 1) if s >= 2]


def fewest_byes(n: int, k: int, exact: bool = False) -> int:
    """Independent of the implementation: the smallest bye count leaving a field that sits at
    tables of k or k - 1 seats (never fewer than 2); a field smaller than k - 1 sits together.
    `exact`: tables of k seats only, and no table at all for fewer than k players."""
    if exact:
        return n % k if n >= k else n
    sizes = table_sizes(k, exact)
    for byes in range(n + 1):
        seated = n - byes
        if seated and _representable(seated, sizes):
            return byes
    return 0 if n >= 2 else n


def _representable(m: int, sizes: list[int]) -> bool:
    return m == 0 or any(m >= s and _representable(m - s, sizes) for s in sizes)


def splits(ids: list[int], sizes: list[int]) -> Iterator[list[tuple[int, ...]]]:
    """Every partition of ids into tables whose sizes are in `sizes`."""
    if not ids:
        yield []
        return
    first, rest = ids[0], ids[1:]
    for size in sizes:
        if size - 1 > len(rest):
            continue
        for mates in combinations(rest, size - 1):
            left = [i for i in rest if i not in mates]
            for more in splits(left, sizes):
                yield [(first, *mates), *more]


def rematches(tables: Sequence[Sequence[int]], met: dict[int, set[int]]) -> int:
    return sum(1 for t in tables for a, b in combinations(t, 2) if b in met[a])


def allowed_bye_sets(players: Sequence[PairingPlayer], count: int) -> list[tuple[int, ...]]:
    """Bye sets in which nobody rests while someone with fewer byes plays."""
    ids = [p.id for p in players]
    byes = {p.id: p.byes for p in players}
    out = []
    for chosen in combinations(ids, count):
        others = [i for i in ids if i not in chosen]
        if not chosen or not others or max(byes[i] for i in chosen) <= min(byes[i] for i in others):
            out.append(chosen)
    return out


def bye_ranks(players: Sequence[PairingPlayer], byes: Sequence[int]) -> list[int]:
    """Ranks (0 = best) of the resting players, lowest-ranked first."""
    rank = {p.id: r for r, p in enumerate(players)}
    return sorted((rank[i] for i in byes), reverse=True)


def best_split(
    players: Sequence[PairingPlayer], k: int, exact: bool = False
) -> tuple[int, list[int]]:
    """Exhaustive search over every allowed split (small fields only): the fewest rematches, then
    the byes on the lowest-ranked players allowed."""
    met = {p.id: set(p.met) for p in players}
    count = fewest_byes(len(players), k, exact)
    sizes = table_sizes(k, exact)
    best: tuple[int, list[int]] | None = None
    for chosen in allowed_bye_sets(players, count):
        seated = [p.id for p in players if p.id not in chosen]
        if not seated:
            return 0, bye_ranks(players, chosen)
        if len(seated) < min(sizes):  # a tiny field sits together
            return rematches([seated], met), []
        ranks = [-r for r in bye_ranks(players, chosen)]
        for split in splits(seated, sizes):
            value = (rematches(split, met), ranks)
            if best is None or value < best:
                best = value
    assert best is not None
    return best[0], [-r for r in best[1]]


def check_round(
    players: Sequence[PairingPlayer], k: int, pairing: RoundPairing, exact: bool = False
) -> None:
    """Everyone once; table sizes; fewest byes; byes only to those with the fewest."""
    ids = [p.id for p in players]
    seated = [i for t in pairing.tables for i in t]
    assert sorted(seated + list(pairing.byes)) == sorted(ids)
    n = len(players)
    assert len(pairing.byes) == fewest_byes(n, k, exact)
    for table in pairing.tables:
        if n - len(pairing.byes) >= k - 1:
            assert len(table) in table_sizes(k, exact)
        assert len(table) >= 2
    if pairing.byes:
        byes = {p.id: p.byes for p in players}
        playing = [byes[i] for i in seated]
        if playing:
            assert max(byes[i] for i in pairing.byes) <= min(playing)


def table_points(table: Sequence[int], scores: dict[int, int]) -> dict[int, float]:
    """The share of table opponents a player outscored, a tie counting half (API.md)."""
    out = {}
    for p in table:
        others = [q for q in table if q != p]
        won = sum(
            1.0 if scores[p] > scores[q] else 0.5 if scores[p] == scores[q] else 0.0 for q in others
        )
        out[p] = won / len(others)
    return out


def simulate(
    n: int, k: int, rounds: int, rng: random.Random, exhaustive: bool, exact: bool = False
) -> Iterator[tuple[list[PairingPlayer], RoundPairing]]:
    """Play a random Swiss event; yields each round's ranked field and pairing."""
    ratings = {i: rng.randint(1200, 1800) for i in range(1, n + 1)}
    points = dict.fromkeys(ratings, 0.0)
    byes = dict.fromkeys(ratings, 0)
    met: dict[int, set[int]] = {i: set() for i in ratings}
    for _ in range(rounds):
        order = sorted(ratings, key=lambda i: (-points[i], -ratings[i]))
        field = [PairingPlayer(i, points[i], ratings[i], byes[i], frozenset(met[i])) for i in order]
        pairing = swiss_round_exact(field, k) if exact else swiss_round(field, k)
        check_round(field, k, pairing, exact)
        if exhaustive:
            found = (rematches(pairing.tables, met), bye_ranks(field, pairing.byes))
            assert found == best_split(field, k, exact)
        yield field, pairing
        for table in pairing.tables:
            # Small score range so ties (half points) happen.
            scores = {p: rng.randint(0, 4) for p in table}
            for p, share in table_points(table, scores).items():
                points[p] += share
            for a, b in combinations(table, 2):
                met[a].add(b)
                met[b].add(a)
        for p in pairing.byes:
            points[p] += 1.0
            byes[p] += 1


# --------------------------------------------------------------------------- round robin


@pytest.mark.parametrize("n", range(2, 17))
def test_round_robin_every_pair_once_fair_byes_and_seats(n: int) -> None:
    ids = [10 * i + 3 for i in range(n)]
    rounds = round_robin_rounds(ids)
    assert len(rounds) == (n if n % 2 else n - 1)
    pairs: Counter[frozenset[int]] = Counter()
    byes: Counter[int] = Counter()
    first: Counter[int] = Counter()
    second: Counter[int] = Counter()
    for rnd in rounds:
        seen = [i for t in rnd.tables for i in t] + list(rnd.byes)
        assert sorted(seen) == sorted(ids)  # everyone exactly once per round
        assert len(rnd.byes) == n % 2
        for a, b in rnd.tables:
            pairs[frozenset((a, b))] += 1
            first[a] += 1
            second[b] += 1
        byes.update(rnd.byes)
    assert set(pairs) == {frozenset(p) for p in combinations(ids, 2)}
    assert set(pairs.values()) == {1}
    assert byes == (Counter(ids) if n % 2 else Counter())
    for i in ids:
        assert abs(first[i] - second[i]) <= 1


def test_round_robin_small_and_invalid() -> None:
    assert round_robin_rounds([]) == []
    assert round_robin_rounds([7]) == [RoundPairing(tables=(), byes=(7,))]
    with pytest.raises(ValueError, match="unique"):
        round_robin_rounds([1, 2, 1])


# --------------------------------------------------------------------------- swiss basics


def _field(n: int, points: Sequence[float] | None = None) -> list[PairingPlayer]:
    return [PairingPlayer(i, points[i - 1] if points else 0.0, 2000 - i) for i in range(1, n + 1)]


def test_swiss_round_one_two_seats_top_half_against_bottom_half() -> None:
    pairing = swiss_round(_field(8), 2)
    assert pairing == RoundPairing(tables=((1, 5), (2, 6), (3, 7), (4, 8)), byes=())


def test_swiss_round_one_odd_field_gives_the_bye_to_the_last() -> None:
    pairing = swiss_round(_field(7), 2)
    assert pairing.byes == (7,)
    assert len(pairing.tables) == 3


@pytest.mark.parametrize(
    ("n", "k", "sizes", "byes"),
    [
        (12, 4, [4, 4, 4], 0),
        (10, 4, [4, 3, 3], 0),
        (9, 4, [3, 3, 3], 0),
        (5, 4, [4], 1),
        (2, 4, [2], 0),
        (10, 3, [3, 3, 2, 2], 0),
        (7, 3, [3, 2, 2], 0),
        (1, 3, [], 1),
        (11, 2, [2] * 5, 1),
    ],
)
def test_swiss_table_sizes_round_one(n: int, k: int, sizes: list[int], byes: int) -> None:
    pairing = swiss_round(_field(n), k)
    assert [len(t) for t in pairing.tables] == sizes
    assert len(pairing.byes) == byes
    # Round 1 with 3-4 seats: consecutive players by rating, best tables first.
    if k > 2:
        seated = [i for t in pairing.tables for i in t]
        assert seated == sorted(seated)
        assert all(b > s for b in pairing.byes for s in seated)


def test_swiss_groups_equal_points() -> None:
    points = [3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1]
    pairing = swiss_round(_field(12, points), 4)
    assert pairing.tables == ((1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12))


def test_swiss_avoids_a_rematch_the_consecutive_split_would_make() -> None:
    field = _field(8, [2, 2, 2, 2, 1, 1, 1, 1])
    met = {1: {2}, 2: {1}}
    field = [
        PairingPlayer(p.id, p.points, p.rating, met=frozenset(met.get(p.id, ()))) for p in field
    ]
    pairing = swiss_round(field, 4)
    assert rematches(pairing.tables, {p.id: set(p.met) for p in field}) == 0
    # The cheapest fix swaps one player between neighbouring score groups.
    assert sorted(len(set(t) & {1, 2, 3, 4}) for t in pairing.tables) == [1, 3]


def test_swiss_bye_to_lowest_ranked_among_fewest_byes() -> None:
    field = [PairingPlayer(i, 5 - i, 1500, byes=1 if i in (4, 5) else 0) for i in range(1, 6)]
    pairing = swiss_round(field, 2)
    assert pairing.byes == (3,)


def test_swiss_second_byes_only_when_everyone_had_one() -> None:
    field = [PairingPlayer(i, 5 - i, 1500, byes=1) for i in range(1, 6)]
    assert swiss_round(field, 2).byes == (5,)


def test_swiss_met_recorded_on_one_side_or_with_absent_players() -> None:
    # 1 recorded meeting 2 (2 did not), and both met 99, who has withdrawn.
    field = [
        PairingPlayer(1, 0, 0, met=frozenset({2, 99})),
        PairingPlayer(2, 0, 0, met=frozenset({99})),
        PairingPlayer(3, 0, 0),
        PairingPlayer(4, 0, 0),
    ]
    for k in (2, 3):
        result = swiss_round(field, k)
        assert all({1, 2} - set(t) for t in result.tables)


def test_swiss_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="table_size"):
        swiss_round(_field(4), 1)
    with pytest.raises(ValueError, match="unique"):
        swiss_round([*_field(3), PairingPlayer(1, 0, 0)], 2)
    assert swiss_round([], 3) == RoundPairing(tables=(), byes=())


# --------------------------------------------------------------------------- swiss, random events


def events(
    players: tuple[int, int], seats: tuple[int, int], rounds: tuple[int, int]
) -> st.SearchStrategy[tuple[int, int, int, int]]:
    """(field size, table size, rounds, seed) of a random event."""
    return st.tuples(
        st.integers(*players),
        st.integers(*seats),
        st.integers(*rounds),
        st.integers(0, 2**32 - 1),
    )


def _settings(examples: int) -> settings:
    """Derandomised, so that every run checks the same events."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )


@_settings(60)
@given(events((2, 9), (2, 4), (1, 6)))
def test_swiss_small_fields_match_exhaustive_search(event: tuple[int, int, int, int]) -> None:
    n, k, rounds, seed = event
    for _ in simulate(n, k, rounds, random.Random(seed), exhaustive=True):
        pass


@_settings(25)
@given(events((2, 11), (3, 4), (1, 5)))
def test_swiss_exact_tables_match_exhaustive_search(event: tuple[int, int, int, int]) -> None:
    n, k, rounds, seed = event
    for _ in simulate(n, k, rounds, random.Random(seed), exhaustive=True, exact=True):
        pass


def test_swiss_exact_tables_for_teams() -> None:
    pairing = swiss_round_exact(_field(11), 4)
    assert pairing == RoundPairing(tables=((1, 2, 3, 4), (5, 6, 7, 8)), byes=(9, 10, 11))
    assert swiss_round_exact(_field(3), 4) == RoundPairing(tables=(), byes=(1, 2, 3))
    field = [PairingPlayer(i, 0, 0, byes=1 if i > 4 else 0) for i in range(1, 7)]
    assert swiss_round_exact(field, 4).byes == (3, 4)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_swiss_larger_fields_stay_rematch_free_early(k: int) -> None:
    rng = random.Random(k)
    for n in (17, 24, 33):
        for field, pairing in simulate(n, k, 4, rng, exhaustive=False):
            met = {p.id: set(p.met) for p in field}
            assert rematches(pairing.tables, met) == 0


@_settings(15)
@given(events((10, 26), (2, 4), (2, 6)))
def test_swiss_mid_fields_keep_the_rules(event: tuple[int, int, int, int]) -> None:
    n, k, rounds, seed = event
    for _ in simulate(n, k, rounds, random.Random(seed), exhaustive=False):
        pass  # simulate checks every round: everyone once, sizes, fewest byes, bye order


def planted_field(n: int, k: int, density: float, rng: random.Random) -> list[PairingPlayer]:
    """A field whose met graph is dense and random except for one hidden rematch-free split
    (tables of k then k - 1, as many full ones as possible)."""
    ids = list(range(1, n + 1))
    tables = -(-n // k)
    sizes = [k] * (n - tables * (k - 1)) + [k - 1] * (tables * k - n)
    shuffled = rng.sample(ids, n)
    hidden: set[frozenset[int]] = set()
    start = 0
    for size in sizes:
        hidden.update(frozenset(p) for p in combinations(shuffled[start : start + size], 2))
        start += size
    met: dict[int, set[int]] = {i: set() for i in ids}
    for a, b in combinations(ids, 2):
        if frozenset((a, b)) not in hidden and rng.random() < density:
            met[a].add(b)
            met[b].add(a)
    points = {i: rng.randint(0, 8) / 2 for i in ids}
    order = sorted(ids, key=lambda i: -points[i])
    return [PairingPlayer(i, points[i], 1500, 0, frozenset(met[i])) for i in order]


@pytest.mark.parametrize("k", [3, 4])
@pytest.mark.parametrize("density", [0.6, 0.8])
def test_swiss_finds_a_hidden_rematch_free_split(k: int, density: float) -> None:
    rng = random.Random(int(density * 10) + k)
    for n in (21, 28, 34):
        field = planted_field(n, k, density, rng)
        result = swiss_round(field, k)
        check_round(field, k, result)
        assert rematches(result.tables, {p.id: set(p.met) for p in field}) == 0


def test_swiss_out_of_budget_still_pairs_by_the_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no search budget at all the greedy split is used: still a valid round."""
    monkeypatch.setattr(pairing_module, "TOTAL_BUDGET", 0)
    field = planted_field(30, 4, 0.7, random.Random(1))
    result = swiss_round(field, 4)
    check_round(field, 4, result)
    met = {p.id: set(p.met) for p in field}
    consecutive = [[p.id for p in field[i : i + 4]] for i in range(0, 24, 4)]
    consecutive += [[p.id for p in field[24:27]], [p.id for p in field[27:]]]
    assert rematches(result.tables, met) <= rematches(consecutive, met)


@pytest.mark.parametrize(("n", "k"), [(5, 4), (1, 2), (9, 2), (13, 2)])
def test_swiss_round_one_bye_goes_to_the_last(n: int, k: int) -> None:
    assert swiss_round(_field(n), k).byes == (n,)


def test_swiss_rematches_only_when_unavoidable() -> None:
    # 1-2, 3-4 and 1-3 already played: the only rematch-free pairing is 1-4, 2-3.
    met = {1: {2, 3}, 2: {1}, 3: {4, 1}, 4: {3}}
    field = [PairingPlayer(i, 0, 0, met=frozenset(met[i])) for i in range(1, 5)]
    assert swiss_round(field, 2).tables == ((1, 4), (2, 3))
    # Everyone met everyone: two rematches whatever happens, so nearest points: 1-2, 3-4.
    field = [PairingPlayer(i, 4 - i, 0, met=frozenset({1, 2, 3, 4} - {i})) for i in range(1, 5)]
    assert swiss_round(field, 2).tables == ((1, 2), (3, 4))


# --------------------------------------------------------------------------- standings


def _result(
    table: Sequence[int],
    points: Sequence[float],
    scores: Sequence[int],
    teams: tuple[tuple[int, ...], ...] | None = None,
) -> TableResult:
    return TableResult(
        players=tuple(table),
        points=dict(zip(table, points, strict=True)),
        scores=dict(zip(table, scores, strict=True)),
        teams=teams,
    )


def test_standings_two_seats_hand_computed() -> None:
    # Round 1: 1 beats 2, 3 draws 4, 5 rests. Round 2: 1 beats 3, 5 beats 4, 2 rests.
    results = [
        _result((1, 2), (1, 0), (30, 20)),
        _result((3, 4), (0.5, 0.5), (25, 25)),
        _result((1, 3), (1, 0), (28, 18)),
        _result((5, 4), (1, 0), (22, 21)),
    ]
    table = standings([1, 2, 3, 4, 5], results, byes=[5, 2])
    # points: 1=2, 2=1, 3=0.5, 4=0.5, 5=2
    # buchholz: 1 = p2 + p3 = 1.5; 5 = p4 = 0.5; 2 = p1 = 2; 3 = p4 + p1 = 2.5; 4 = p3 + p5 = 2.5
    assert table == [
        Standing(1, 1, 2.0, 1.5, 58, 2),
        Standing(2, 5, 2.0, 0.5, 22, 1),
        Standing(3, 2, 1.0, 2.0, 20, 1),
        Standing(4, 4, 0.5, 2.5, 46, 2),
        Standing(5, 3, 0.5, 2.5, 43, 2),
    ]


def test_standings_shared_ranks_keep_the_given_order() -> None:
    results = [
        _result((1, 2), (0.5, 0.5), (20, 20)),
        _result((3, 4), (0.5, 0.5), (20, 20)),
    ]
    table = standings([4, 3, 2, 1], results, byes=[])
    assert [(s.rank, s.player) for s in table] == [(1, 4), (1, 3), (1, 2), (1, 1)]
    table = standings([4, 3, 2, 1, 9], [*results, _result((9, 1), (1, 0), (30, 10))], byes=[])
    # 9: 1 point; then 2 (0.5, buchholz 0.5, 20), 3 and 4 (0.5, 0.5, 20), 1 (0.5, 1.5, 30)
    assert [(s.rank, s.player) for s in table] == [(1, 9), (2, 1), (3, 4), (3, 3), (3, 2)]


def test_standings_four_seats_thirds_and_a_bye() -> None:
    # Scores 40 > 30 = 30 > 10: shares 1, 1/2 each, 0.
    results = [_result((1, 2, 3, 4), (1, 0.5, 0.5, 0), (40, 30, 30, 10))]
    results.append(_result((4, 3, 2), (1, 0.5, 0.5), (33, 20, 20)))
    table = standings([1, 2, 3, 4, 5], results, byes=[5, 1])
    points = {s.player: s.points for s in table}
    assert points == {1: 2.0, 2: 1.0, 3: 1.0, 4: 1.0, 5: 1.0}
    buchholz = {s.player: s.buchholz for s in table}
    # 1 met 2, 3, 4 once: 3. 2 met 1, 3, 4 then 4, 3: 2 + 1 + 1 + 1 + 1 = 6 (same for 3).
    # 4 met 1, 2, 3 then 3, 2: 2 + 1 + 1 + 1 + 1 = 6. 5 met nobody: 0.
    assert buchholz == {1: 3.0, 2: 6.0, 3: 6.0, 4: 6.0, 5: 0.0}
    assert [(s.rank, s.player, s.score, s.games) for s in table] == [
        (1, 1, 40, 1),
        (2, 2, 50, 2),
        (2, 3, 50, 2),
        (4, 4, 43, 2),
        (5, 5, 0, 0),
    ]


def test_standings_teammates_are_not_opponents() -> None:
    teams = ((1, 3), (2, 4))
    results = [_result((1, 2, 3, 4), (1, 0, 1, 0), (30, 20, 25, 15), teams=teams)]
    table = standings([1, 2, 3, 4], results, byes=[])
    buchholz = {s.player: s.buchholz for s in table}
    assert buchholz == {1: 0.0, 2: 2.0, 3: 0.0, 4: 2.0}
    assert [(s.rank, s.player) for s in table] == [(1, 1), (2, 3), (3, 2), (4, 4)]


def test_standings_float_noise_still_ties() -> None:
    # 0.1 + 0.2 is 0.30000000000000004 in floats: still a tie with 0.3.
    results = [
        _result((1, 5), (0.1, 0), (0, 0)),
        _result((1, 5), (0.2, 0), (0, 0)),
        _result((2, 6), (0.3, 0), (0, 0)),
    ]
    table = standings([1, 2], results, byes=[])
    assert [(s.rank, s.player) for s in table] == [(1, 1), (1, 2)]

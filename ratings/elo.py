"""The rating formula, pure and without Django: the site's live rating and the replay of
``recompute_ratings`` both call these functions, so the same float operations happen in the same
order and replaying every counted game from 1500 reproduces the stored ratings exactly.

Every person of a rated game is an entrant; one who asked for a hint is passed with ``counts``
false: their own rating does not move, but the others are rated against it, so a hint never cancels
an opponent's result. Entrants are always taken in seat order, so sums are added in the same order
every time.

>>> a = Entrant(seat=1, rating=1500, games=0, score=30)
>>> b = Entrant(seat=2, rating=1500, games=0, score=20)
>>> [(c.delta, str(c.result)) for c in ffa_changes([a, b])]
[(20.0, 'win'), (-20.0, 'loss')]
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from games.engine.outcome import Verdict, compare, verdict_of

START_RATING = 1500.0
PROVISIONAL_GAMES = 20
"""Players with fewer counted games than this are provisional ("?") and change with K_NEW."""
K_NEW = 40
K_ESTABLISHED = 20


Result = Verdict
"""A player's result against all the others they are rated against: win, draw or loss."""


def k_factor(games: int) -> int:
    """K for a player with ``games`` counted games before this one."""
    return K_NEW if games < PROVISIONAL_GAMES else K_ESTABLISHED


def is_provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES


def expected_score(rating: float, opponent: float) -> float:
    """E = 1 / (1 + 10^((R_B − R_A) / 400)).

    >>> expected_score(1500, 1500)
    0.5
    >>> round(expected_score(1900, 1500), 4)
    0.9091
    """
    return 1 / (1 + 10 ** ((opponent - rating) / 400))


@dataclass(frozen=True)
class Entrant:
    """A person in a rated game, as the formula sees them."""

    seat: int
    rating: float
    games: int
    """Counted games in this pool before this one (decides K)."""
    score: int = 0
    out: bool = False
    """Resigned or timed out."""
    team: int | None = None
    counts: bool = True
    """False for a player who asked for a hint: an opponent of the others, but unchanged."""


@dataclass(frozen=True)
class Change:
    seat: int
    before: float
    after: float
    delta: float
    k: int
    result: Result


def duel_score(a: Entrant, b: Entrant) -> float:
    """A's result against B in free-for-all, by the games' one rule (``games.engine.outcome``):
    a player who is out loses to everyone who is not; otherwise more points = 1, equal = ½."""
    return compare(a.out, a.score, b.out, b.score)


def _change(entrant: Entrant, delta: float, result: Result) -> Change:
    return Change(
        seat=entrant.seat,
        before=entrant.rating,
        after=entrant.rating + delta,
        delta=delta,
        k=k_factor(entrant.games),
        result=result,
    )


def ffa_changes(entrants: Sequence[Entrant]) -> list[Change]:
    """Free-for-all with n people: every pair is a duel, and each counting player's change is
    K / (n − 1) × Σ over the others (S − E). The result is a win when the player beat every other
    person, a draw when they lost to none (shared first place), else a loss."""
    players = sorted(entrants, key=lambda e: e.seat)
    n = len(players)
    if n < 2:
        raise ValueError("A rated game needs at least two people.")
    changes = []
    for player in players:
        if not player.counts:
            continue
        others = [other for other in players if other.seat != player.seat]
        scores = [duel_score(player, other) for other in others]
        total = 0.0
        for score, other in zip(scores, others, strict=True):
            total += score - expected_score(player.rating, other.rating)
        delta = k_factor(player.games) / (n - 1) * total
        changes.append(_change(player, delta, verdict_of(scores)))
    return changes


def team_score(team: int, team_scores: Mapping[int, int], teams_out: Collection[int] = ()) -> float:
    """Team ``team``'s result against the other, by the games' one rule: a team with a member out
    loses to one without; otherwise the higher score sum wins and equal sums draw."""
    other = 2 if team == 1 else 1
    return compare(team in teams_out, team_scores[team], other in teams_out, team_scores[other])


def team_changes(
    entrants: Sequence[Entrant],
    *,
    team_scores: Mapping[int, int],
    teams_out: Collection[int] = (),
) -> list[Change]:
    """Teams: a team's rating is the mean of its people's ratings (hinters included); each counting
    player changes by their own K × (S − E), S the team's result and E from the two team means.

    ``team_scores`` are the sums of all members' scores (counting or not) and ``teams_out`` the
    teams with a member who resigned or timed out."""
    players = sorted(entrants, key=lambda e: e.seat)
    means: dict[int, float] = {}
    for team in (1, 2):
        ratings = [p.rating for p in players if p.team == team]
        if not ratings:
            raise ValueError("A rated team game needs a person in each team.")
        means[team] = sum(ratings) / len(ratings)
    if any(p.team not in means for p in players):
        raise ValueError("Every player of a team game belongs to team 1 or 2.")
    changes = []
    for player in players:
        if not player.counts:
            continue
        assert player.team is not None
        other = 2 if player.team == 1 else 1
        score = team_score(player.team, team_scores, teams_out)
        expected = expected_score(means[player.team], means[other])
        delta = k_factor(player.games) * (score - expected)
        changes.append(_change(player, delta, verdict_of([score])))
    return changes


def game_changes(
    mode: str,
    entrants: Sequence[Entrant],
    *,
    team_scores: Mapping[int, int] | None = None,
    teams_out: Collection[int] = (),
) -> list[Change]:
    """The changes of a counted game of ``mode`` ("ffa" or "teams")."""
    if mode == "teams":
        if team_scores is None:
            raise ValueError("A team game needs its team scores.")
        return team_changes(entrants, team_scores=team_scores, teams_out=teams_out)
    if mode == "ffa":
        return ffa_changes(entrants)
    raise ValueError(f"Unknown mode {mode!r}.")


# -- bot performance -----------------------------------------------------------------------------
# Bots have no rating and change nobody's (RULES.md, "Hints, ratings"). What the leaderboard shows
# of a bot level is its *performance*: the rating at which its expected score against the people
# it met, at their ratings of the time, equals the score it made. Nothing reads it back into a
# rating.

PERFORMANCE_REACH = 800.0
"""A performance lies within this many points of the opponents met: a perfect score shows this
much above the strongest of them, a score of nothing this much below the weakest."""


def performance(results: Iterable[tuple[float, int, float]]) -> float:
    """The Elo performance of ``results``: (opponent rating, duels at that rating, score made in
    them), the rating R at which Σ duels × E(R, opponent) equals the total score.

    >>> performance([(1500, 2, 1.0)])
    1500.0
    >>> round(performance([(1400, 1, 1.0), (1600, 1, 0.0)]), 6)
    1500.0
    >>> round(performance([(1500, 10, 9.0)]))
    1882
    >>> performance([(1500, 3, 3.0)]), performance([(1400, 1, 0.0), (1700, 1, 0.0)])
    (2300.0, 600.0)
    """
    groups = [(rating, duels, score) for rating, duels, score in results if duels > 0]
    if not groups:
        raise ValueError("A performance needs at least one result.")
    total = sum(score for _, _, score in groups)
    low = min(rating for rating, _, _ in groups) - PERFORMANCE_REACH
    high = max(rating for rating, _, _ in groups) + PERFORMANCE_REACH

    def expected(at: float) -> float:
        return sum(duels * expected_score(at, rating) for rating, duels, _ in groups)

    if total <= expected(low):
        return low
    if total >= expected(high):
        return high
    # The expected score rises with R: halve the bracket until it is far below a hundredth.
    for _ in range(60):
        middle = (low + high) / 2
        if expected(middle) < total:
            low = middle
        else:
            high = middle
    return (low + high) / 2

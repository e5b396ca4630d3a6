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

import enum
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

START_RATING = 1500.0
PROVISIONAL_GAMES = 20
"""Players with fewer counted games than this are provisional ("?") and change with K_NEW."""
K_NEW = 40
K_ESTABLISHED = 20


class Result(enum.StrEnum):
    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


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
    """A's result against B in free-for-all: a player who is out loses to everyone who is not;
    otherwise (and between two who are out) more points = 1, equal = ½, fewer = 0."""
    if a.out != b.out:
        return 0.0 if a.out else 1.0
    if a.score == b.score:
        return 0.5
    return 1.0 if a.score > b.score else 0.0


def _result(scores: Sequence[float]) -> Result:
    if all(s == 1.0 for s in scores):
        return Result.WIN
    if all(s > 0.0 for s in scores):
        return Result.DRAW
    return Result.LOSS


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
        changes.append(_change(player, delta, _result(scores)))
    return changes


def team_score(team: int, team_scores: Mapping[int, int], teams_out: Collection[int] = ()) -> float:
    """Team ``team``'s result against the other: a team with a member out loses to one without;
    otherwise (and when both have one) the higher score sum wins and equal sums draw."""
    other = 2 if team == 1 else 1
    if (team in teams_out) != (other in teams_out):
        return 0.0 if team in teams_out else 1.0
    if team_scores[team] == team_scores[other]:
        return 0.5
    return 1.0 if team_scores[team] > team_scores[other] else 0.0


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
        changes.append(_change(player, delta, _result([score])))
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

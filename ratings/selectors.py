"""Reads of ratings: leaderboards, a player's standings and history, the rating chart."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery, Sum, Window
from django.db.models.functions import Coalesce, Rank, Round

from games.models import Game, Seat
from games.selectors import bot_label
from games.state import SeatRating
from ratings import elo
from ratings.models import BotResult, Pool, Rating, RatingChange, Reason

LEADERBOARD_PAGE_SIZE = 25


def leaderboard_min_games() -> int:
    """Counted games a player needs to appear (setting ``RATINGS_LEADERBOARD_MIN_GAMES``)."""
    return max(1, int(getattr(settings, "RATINGS_LEADERBOARD_MIN_GAMES", 1)))


def pool_parse(value: str | None, *, default: str = Pool.FFA) -> str:
    """The pool named by a ``mode`` parameter; ``ValueError`` for anything but ffa or teams."""
    if value is None or value == "":
        return default
    if value not in Pool.values:
        raise ValueError(value)
    return value


# -- hints ---------------------------------------------------------------------------------------
# RULES.md leaves a player who took a hint out of that game's rating; their share of such games is
# shown beside their rating (the profile, the leaderboard, the API), so that hinting only when
# behind cannot hide. One definition, here.

AT_STAKE = (Reason.RATED, Reason.HINT)
"""The game reasons of the games in which ratings were at stake: rated, played to the end with
every player having moved, two or more people (``hint`` when every person hinted). Casual,
aborted and one-person games are not."""

TOOK_A_HINT = Q(reason=Reason.HINT)
"""A person's history row of such a game says ``hint`` when they asked for one."""


def _hint_counts(**match: Any) -> dict[str, Any]:
    """Annotations ``rated_games`` and ``hinted_games``: the history rows that ``match`` (with
    ``OuterRef``s to the annotated row) of games where ratings were at stake, and those of them in
    which the person took a hint. Correlated subqueries: one query for a whole leaderboard page."""
    rows = RatingChange.objects.filter(rated_game__reason__in=AT_STAKE, **match)
    by_user = rows.order_by().values("user_id")

    def count(condition: Q | None = None) -> Any:
        counted = by_user.annotate(n=Count("pk", filter=condition)).values("n")
        return Coalesce(Subquery(counted), 0)

    return {"rated_games": count(), "hinted_games": count(TOOK_A_HINT)}


@dataclass(frozen=True)
class HintShare:
    """Of a player's rated games played to the end, those in which they took a hint."""

    hinted_games: int
    rated_games: int

    @classmethod
    def of(cls, row: Any) -> HintShare:
        """From a row annotated by ``leaderboard`` or ``hint_share``."""
        return cls(hinted_games=row.hinted_games, rated_games=row.rated_games)

    @property
    def share(self) -> float | None:
        """Between 0 and 1; None before the first rated game."""
        return self.hinted_games / self.rated_games if self.rated_games else None

    @property
    def counted_games(self) -> int:
        """The rated games that counted for the player's rating: those without a hint."""
        return self.rated_games - self.hinted_games

    @property
    def percent(self) -> int | None:
        return None if self.share is None else round(100 * self.share)


def hint_share(*, user: User) -> HintShare:
    """``user``'s hinted share over both pools."""
    row = (
        get_user_model()
        .objects.filter(pk=user.pk)
        .annotate(**_hint_counts(user_id=OuterRef("pk")))
        .get()
    )
    return HintShare.of(row)


def leaderboard(*, pool: str) -> QuerySet[Rating]:
    """Players with enough counted games, best first, each with ``rank`` (equal ratings share a
    rank) and their hinted share in this pool (``rated_games``, ``hinted_games``:
    ``HintShare.of``)."""
    return (
        Rating.objects.filter(pool=pool, games__gte=leaderboard_min_games())
        .select_related("user")
        .annotate(rank=Window(expression=Rank(), order_by=F("rating").desc()))
        .annotate(**_hint_counts(user_id=OuterRef("user_id"), pool=OuterRef("pool")))
        .order_by("-rating", "user__username")
    )


@dataclass(frozen=True)
class LeaderboardPosition:
    rank: int
    page: int
    rating: Rating


def leaderboard_position(
    *, user: User | AnonymousUser, pool: str, page_size: int = LEADERBOARD_PAGE_SIZE
) -> LeaderboardPosition | None:
    """Where ``user`` stands on the leaderboard of ``pool``: None when not on it."""
    if not user.is_authenticated:
        return None
    mine = Rating.objects.filter(
        user_id=user.pk, pool=pool, games__gte=leaderboard_min_games()
    ).first()
    if mine is None:
        return None
    board = Rating.objects.filter(pool=pool, games__gte=leaderboard_min_games())
    higher = board.filter(rating__gt=mine.rating).count()
    ahead = (
        higher + board.filter(rating=mine.rating, user__username__lt=user.get_username()).count()
    )
    return LeaderboardPosition(rank=higher + 1, page=ahead // page_size + 1, rating=mine)


# -- bots ----------------------------------------------------------------------------------------
# Bots have no rating and change nobody's (RULES.md, "Hints, ratings"). Each level shows its
# performance against people instead (``elo.performance``), beside the leaderboard, never in it.

BOT_PERFORMANCE_MIN_GAMES = 10
"""A bot level's performance is shown once it has finished this many games against people."""


@dataclass(frozen=True)
class BotPerformance:
    """How a bot level has fared against people in one pool."""

    level: str
    games: int
    """Finished games (not aborted) with at least one person."""
    duels: int
    """Results against people: one per bot and person in free-for-all, one per bot against the
    other team in teams."""
    score: float
    """The sum of those results (win 1, draw ½, loss 0)."""
    performance: float | None
    """The Elo performance; None before ``BOT_PERFORMANCE_MIN_GAMES`` games."""


def bot_performances(*, pool: str) -> list[BotPerformance]:
    """Every bot level's performance against people in ``pool``, weakest level first. The
    opponents' ratings are taken to the whole point, so the work is bounded by the spread of
    ratings, not by the number of games: two grouped queries."""
    rows = BotResult.objects.filter(pool=pool).order_by()
    totals: dict[str, dict[str, Any]] = {
        row["level"]: dict(row)
        for row in rows.values("level").annotate(
            games=Count("rated_game", distinct=True), duels=Count("pk"), scored=Sum("score")
        )
    }
    groups: dict[str, list[tuple[float, int, float]]] = {}
    for row in rows.values("level", rating=Round("opponent_rating")).annotate(
        duels=Count("pk"), scored=Sum("score")
    ):
        groups.setdefault(row["level"], []).append((row["rating"], row["duels"], row["scored"]))
    performances = []
    for level in Seat.BotLevel.values:
        total = totals.get(level, {})
        games = total.get("games", 0)
        performances.append(
            BotPerformance(
                level=level,
                games=games,
                duels=total.get("duels", 0),
                score=total.get("scored") or 0.0,
                performance=elo.performance(groups[level])
                if games >= BOT_PERFORMANCE_MIN_GAMES
                else None,
            )
        )
    return performances


def user_get(*, username: str) -> User:
    """The user called ``username``; ``DoesNotExist`` if none."""
    return get_user_model().objects.get(username=username)


def user_standings(*, user: User) -> list[Rating]:
    """``user``'s rating in each pool, in pool order; an unsaved 1500 row for a pool without
    counted games."""
    rows = {r.pool: r for r in Rating.objects.filter(user_id=user.pk)}
    return [rows.get(pool) or Rating(user_id=user.pk, pool=pool) for pool in Pool.values]


def rating_history(*, user: User, pool: str | None = None) -> QuerySet[RatingChange]:
    """``user``'s history rows, oldest first (finish time, then game id)."""
    rows = RatingChange.objects.filter(user_id=user.pk).select_related("rated_game")
    if pool:
        rows = rows.filter(pool=pool)
    return rows.order_by("at", "game_id")


def opponents_of(change: RatingChange) -> list[dict[str, Any]]:
    """The other seats of the game of ``change``: username or bot level, team, score."""
    return [
        {
            "seat": p["seat"],
            "username": p.get("username"),
            "bot": p.get("bot"),
            "bot_label": bot_label(p.get("bot")),
            "team": p.get("team"),
            "teammate": bool(change.team and p.get("team") == change.team),
            "score": p.get("score"),
        }
        for p in change.rated_game.participants
        if p["seat"] != change.seat
    ]


# -- chart -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChartPoint:
    x: float
    y: float
    rating: float
    at: datetime | None
    game_id: int | None


@dataclass(frozen=True)
class ChartTick:
    y: float
    label: int


@dataclass(frozen=True)
class Chart:
    """An SVG line chart of a rating over counted games, laid out for the template."""

    pool: str
    label: str
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    points: list[ChartPoint]
    ticks: list[ChartTick]

    @property
    def polyline(self) -> str:
        return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in self.points)

    @property
    def first(self) -> ChartPoint:
        return self.points[0]

    @property
    def last(self) -> ChartPoint:
        return self.points[-1]


def _nice_step(span: float) -> int:
    for step in (5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if span / step <= 5:
            return step
    return 2000


def chart_layout(
    ratings: list[tuple[float, datetime | None, int | None]],
    *,
    pool: str = Pool.FFA,
    label: str = "",
    width: int = 640,
    height: int = 220,
) -> Chart | None:
    """Lay out ``(rating, at, game id)`` points, oldest first, left to right at equal spacing;
    the y axis spans the ratings with a margin and carries round-numbered ticks."""
    if not ratings:
        return None
    left, right, top, bottom = 48, width - 12, 12, height - 24
    values = [r for r, _, _ in ratings]
    low, high = min(values), max(values)
    step = _nice_step(max(high - low, 10.0))
    low_tick = int(low // step) * step
    high_tick = int(-(-high // step)) * step
    if high_tick == low_tick:
        high_tick += step
    span = high_tick - low_tick

    def y_of(value: float) -> float:
        return bottom - (value - low_tick) / span * (bottom - top)

    count = len(ratings)
    points = [
        ChartPoint(
            x=left + (index / (count - 1) if count > 1 else 0.5) * (right - left),
            y=y_of(rating),
            rating=rating,
            at=at,
            game_id=game_id,
        )
        for index, (rating, at, game_id) in enumerate(ratings)
    ]
    ticks = [ChartTick(y=y_of(v), label=v) for v in range(low_tick, high_tick + 1, step)]
    return Chart(
        pool=pool,
        label=label,
        width=width,
        height=height,
        left=left,
        right=right,
        top=top,
        bottom=bottom,
        points=points,
        ticks=ticks,
    )


def rating_chart(*, user: User, pool: str) -> Chart | None:
    """The chart of ``user``'s rating in ``pool``: 1500 at the start, then after each counted
    game. None before the first counted game."""
    counted = rating_history(user=user, pool=pool).filter(counted=True)
    rows = list(counted.values_list("after", "at", "game_id"))
    if not rows:
        return None
    return chart_layout(
        [(elo.START_RATING, None, None), *rows], pool=pool, label=str(Pool(pool).label)
    )


def ratings_of(*, user_ids: Iterable[int], pool: str) -> dict[int, int]:
    """Each user's rating in ``pool``, rounded as the pages show ratings, in one query; a rating
    not yet earned reads 1500 (a user of ``user_ids`` is always in the answer)."""
    wanted = set(user_ids)
    if not wanted:
        return {}
    rows = Rating.objects.filter(user_id__in=wanted, pool=pool).values_list("user_id", "rating")
    found = {user_id: round(rating) for user_id, rating in rows}
    return {user_id: found.get(user_id, round(elo.START_RATING)) for user_id in wanted}


def game_seat_ratings(game: Game, seats: Sequence[Seat]) -> dict[int, SeatRating]:
    """Each person's rating in the game's pool, for the game state (``games.selectors``). Once
    the game is rated: the rating it started from, the change (rounded as the pages show
    ratings) and the reason it counted or not. A rating not yet earned reads 1500."""
    people = {s.seat: s.user_id for s in seats if s.user_id and not s.bot_level}
    if not people:
        return {}
    pool = Pool.TEAMS if game.mode == Pool.TEAMS else Pool.FFA
    changes = {
        c.user_id: c
        for c in RatingChange.objects.filter(game_id=game.pk, pool=pool)
        if game.status == Game.Status.FINISHED
    }
    ratings = dict(
        Rating.objects.filter(user_id__in=people.values(), pool=pool).values_list(
            "user_id", "rating"
        )
    )
    found: dict[int, SeatRating] = {}
    for seat, user_id in people.items():
        change = changes.get(user_id)
        if change is None:
            rating = round(ratings.get(user_id, elo.START_RATING))
            found[seat] = {"rating": rating, "rating_change": None, "rating_reason": None}
            continue
        found[seat] = {
            "rating": round(change.before),
            "rating_change": round(change.after) - round(change.before) if change.counted else None,
            "rating_reason": change.reason,
        }
    return found

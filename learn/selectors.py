"""Reads of the learn app: puzzles, the next puzzle for a player, histories, game lines."""

from __future__ import annotations

import random
from collections.abc import Collection
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Case, Count, Exists, OuterRef, QuerySet, Value, When

from games.engine import Position
from games.models import Analysis, Game
from learn.models import Puzzle, PuzzleAttempt, PuzzlePlayer, ScannedGame
from ratings.elo import START_RATING

DEFAULT_RATING = START_RATING
"""Of a player signed out or without puzzle attempts: the ratings' starting rating."""
NEAREST = 12
"""The next puzzle is drawn from this many unsolved puzzles nearest the player's rating."""


def puzzle_position(puzzle: Puzzle) -> Position:
    """The puzzle's position, its mover to play."""
    return Position(
        puzzle.players,
        puzzle.variant,
        puzzle.board,
        to_move=puzzle.to_move,
        suns=puzzle.supply["suns"],
        shadows=puzzle.supply["shadows"],
        roofs=puzzle.supply["roofs"],
        scores=puzzle.scores,
        check_start=False,
    )


def puzzle_get(puzzle_id: int) -> Puzzle | None:
    return Puzzle.objects.filter(pk=puzzle_id).select_related("source_game").first()


def puzzle_tried(user: User | AnonymousUser, puzzle: Puzzle) -> bool:
    """Whether a signed-in player already has a result on ``puzzle`` (their next is practice)."""
    return user.is_authenticated and PuzzleAttempt.objects.filter(puzzle=puzzle, user=user).exists()


def puzzle_player(user: User | AnonymousUser) -> PuzzlePlayer | None:
    if not user.is_authenticated:
        return None
    return PuzzlePlayer.objects.filter(user=user).first()


def puzzles_filtered(
    *, theme: str | None = None, difficulty: int | None = None, kind: str | None = None
) -> QuerySet[Puzzle]:
    puzzles = Puzzle.objects.all()
    if kind:
        puzzles = puzzles.filter(kind=kind)
    if theme:
        puzzles = puzzles.filter(themes__contains=f",{theme},")
    if difficulty:
        puzzles = puzzles.filter(difficulty=difficulty)
    return puzzles


def puzzle_list(
    *,
    user: User | AnonymousUser | None = None,
    theme: str | None = None,
    difficulty: int | None = None,
    kind: str | None = None,
) -> QuerySet[Puzzle]:
    """Puzzles for the list, easiest first; each with ``mine``: the reader's best result on it
    (2 solved, 1 tried, 0 not yet; always 0 signed out). Nothing of the answers."""
    puzzles = puzzles_filtered(theme=theme, difficulty=difficulty, kind=kind).order_by(
        "rating", "id"
    )
    if user is not None and user.is_authenticated:
        rows = PuzzleAttempt.objects.filter(puzzle=OuterRef("pk"), user=user)
        return puzzles.annotate(
            mine=Case(
                When(Exists(rows.filter(solved=True)), then=Value(2)),
                When(Exists(rows), then=Value(1)),
                default=Value(0),
            )
        )
    return puzzles.annotate(mine=Value(0))


def puzzle_next(
    *,
    user: User | AnonymousUser | None = None,
    exclude: Collection[int] = (),
    theme: str | None = None,
    difficulty: int | None = None,
    kind: str | None = None,
    rng: random.Random | None = None,
) -> Puzzle | None:
    """A puzzle the player has not tried, near their rating (signed out: near 1500), among the
    chosen theme, difficulty and kind; None when none is left."""
    rng = rng or random.Random()
    puzzles = puzzles_filtered(theme=theme, difficulty=difficulty, kind=kind).exclude(
        pk__in=list(exclude)
    )
    rating = DEFAULT_RATING
    if user is not None and user.is_authenticated:
        puzzles = puzzles.exclude(attempt_rows__user=user)
        player = PuzzlePlayer.objects.filter(user=user).first()
        if player is not None:
            rating = player.rating
    above = list(puzzles.filter(rating__gte=rating).order_by("rating")[:NEAREST])
    below = list(puzzles.filter(rating__lt=rating).order_by("-rating")[:NEAREST])
    nearest = sorted(above + below, key=lambda p: abs(p.rating - rating))[:NEAREST]
    return rng.choice(nearest) if nearest else None


def attempts_of(user: User, limit: int = 50) -> QuerySet[PuzzleAttempt]:
    return PuzzleAttempt.objects.filter(user=user).select_related("puzzle")[:limit]


def games_awaiting_puzzles(*, limit: int = 10) -> list[int]:
    """Analysed finished games not yet searched for puzzles, oldest first."""
    scanned = ScannedGame.objects.values("game_id")
    return list(
        Game.objects.filter(status=Game.Status.FINISHED, analysis__status=Analysis.Status.DONE)
        .exclude(pk__in=scanned)
        .order_by("finished_at", "pk")
        .values_list("pk", flat=True)[:limit]
    )


def puzzle_counts() -> dict[str, Any]:
    return {"total": Puzzle.objects.count()}


BANDS = {"easy": (1, 2), "medium": (3,), "hard": (4, 5)}
"""The pool's difficulty bands (difficulty 1–5)."""


def band(difficulty: int) -> str:
    return next((name for name, levels in BANDS.items() if difficulty in levels), "hard")


def pool_waiting() -> dict[str, int]:
    """The waiting puzzles (tried by nobody yet) of each difficulty band."""
    counts = dict.fromkeys(BANDS, 0)
    rows = Puzzle.objects.filter(attempts=0).values_list("difficulty").annotate(n=Count("id"))
    for difficulty, n in rows:
        counts[band(difficulty)] += n
    return counts

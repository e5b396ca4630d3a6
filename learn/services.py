"""Writes of the learn app: puzzles found in games, attempts with their rating changes, the daily
puzzle. Engine work runs outside transactions; every write is one ``transaction.atomic`` with
the rows it changes locked."""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import logging
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core.errors import ApplicationError, ErrorKind
from games import engine_budget
from games.engine import EngineError, IllegalMoveError
from games.engine_messages import engine_error_message
from games.models import Analysis, Game
from games.selectors import game_record
from learn.models import (
    DailyPuzzle,
    PoolGame,
    Puzzle,
    PuzzleAttempt,
    PuzzlePlayer,
    ScannedGame,
)
from learn.puzzles import PuzzleCandidate, find_puzzles, solves, solves_best_turn
from learn.selectors import band, games_awaiting_puzzles, pool_waiting, puzzle_position

logger = logging.getLogger(__name__)

PLAYER_K_NEW = 40.0
PLAYER_K = 20.0
NEW_PLAYER_ATTEMPTS = 20
PUZZLE_K = 16.0


class PuzzleError(ApplicationError):
    """A refused attempt (an illegal turn); ``cell`` names the cell at fault, if any."""

    kind = ErrorKind.INVALID

    def __init__(self, message: str, cell: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.cell = cell
        self.code = code

    @property
    def extra(self) -> dict[str, Any]:
        """The cell at fault and, when the engine refused the turn, its code (as the game's)."""
        return {"cell": self.cell, **({"code": self.code} if self.code else {})}


class PuzzleNotFound(PuzzleError):
    kind = ErrorKind.NOT_FOUND


# -- creating puzzles ---------------------------------------------------------------------------


def puzzle_create(
    *,
    candidate: PuzzleCandidate,
    source_record: dict[str, Any],
    source_game_id: int | None = None,
    source_label: str = "",
) -> tuple[Puzzle, bool]:
    """Store a found puzzle unless its position is already a puzzle (the key is unique)."""
    defaults = {
        "players": candidate.players,
        "variant": candidate.variant,
        "board": candidate.board,
        "to_move": candidate.to_move,
        "supply": candidate.supply,
        "scores": candidate.scores,
        "best_points": candidate.best_points,
        "solution": candidate.solution,
        "cores": candidate.cores,
        "obvious_points": candidate.obvious_points,
        "played_move": candidate.played_move,
        "played_points": candidate.played_points,
        "themes": Puzzle.themes_text(candidate.themes),
        "difficulty": candidate.difficulty,
        "kind": candidate.kind,
        "solution_value": candidate.solution_value,
        "rating": candidate.rating,
        "source_game_id": source_game_id,
        "source_ply": candidate.ply,
        "source_record": source_record,
        "source_label": source_label,
    }
    try:
        with transaction.atomic():
            return Puzzle.objects.get_or_create(key=candidate.key, defaults=defaults)
    except IntegrityError:  # created meanwhile by another worker
        return Puzzle.objects.get(key=candidate.key), False


def puzzles_from_game(*, game_id: int) -> int | None:
    """Search an analysed finished game for puzzles, once. Returns how many new puzzles it gave,
    or None when the game is not ready (not finished, or its analysis is not stored yet). A
    private game (``Game.private``) gives none: it is marked searched."""
    if ScannedGame.objects.filter(game_id=game_id).exists():
        return 0
    game = Game.objects.filter(pk=game_id, status=Game.Status.FINISHED).first()
    analysis = Analysis.objects.filter(game_id=game_id, status=Analysis.Status.DONE).first()
    if game is None or analysis is None:
        return None
    if game.private:  # a game of an invitation-only tournament: no puzzle points to it
        ScannedGame.objects.get_or_create(game_id=game_id)
        return 0
    record = game_record(game)
    try:
        candidates = find_puzzles(record, analysis.data.get("turns", []))
    except (EngineError, KeyError, TypeError) as exc:
        logger.warning("game %s could not be searched for puzzles: %s", game_id, exc)
        candidates = []
    record.pop("hints", None)
    record.pop("teams", None)
    created = 0
    with transaction.atomic():
        scanned, new = ScannedGame.objects.get_or_create(game_id=game_id)
        if not new:
            return 0
        for candidate in candidates:
            _puzzle, made = puzzle_create(
                candidate=candidate, source_record=record, source_game_id=game_id
            )
            created += made
        scanned.puzzles = created
        scanned.save(update_fields=["puzzles"])
    return created


# -- the pool ---------------------------------------------------------------------------------

POOL_SEED_BASE = 1_000_000
"""Pool games are seeded from here on (``make_puzzles`` starts at 1), one seed per game."""


@dataclass(frozen=True)
class TopUp:
    """What one top-up run did: games searched (site and bot), puzzles stored, and the waiting
    puzzles after it."""

    site_games: int = 0
    bot_games: int = 0
    created: int = 0
    waiting: int = 0


def puzzle_pool_top_up(*, target: int, games: int) -> TopUp:
    """Add puzzles until ``target`` are waiting (untried by anyone), at most ``games`` games of
    engine work per run: first the analysed finished games of the site not searched yet, then
    bot-against-bot games on new seeds. A puzzle whose difficulty band already holds half the
    target is left out, so the pool spreads over easy, medium and hard (``selectors.BANDS``)."""
    from learn import generate

    waiting = pool_waiting()
    if sum(waiting.values()) >= target:
        return TopUp(waiting=sum(waiting.values()))
    site = bots = created = 0
    for game_id in games_awaiting_puzzles(limit=games):
        created += puzzles_from_game(game_id=game_id) or 0
        site += 1
    cap = -(-target // 2)
    while site + bots < games and sum(pool_waiting().values()) < target:
        last = PoolGame.objects.order_by("-seed").values_list("seed", flat=True).first()
        seed = max(POOL_SEED_BASE, (last or 0) + 1)
        game = generate.pool_game(seed)
        _game, record, candidates = generate.search(game)
        bots += 1
        made = 0
        waiting = pool_waiting()
        for data in candidates:
            candidate = PuzzleCandidate(**data)
            level = band(candidate.difficulty)
            if waiting[level] >= cap:
                continue
            _puzzle, new = puzzle_create(
                candidate=candidate, source_record=record, source_label=game.label
            )
            made += new
            waiting[level] += new
        PoolGame.objects.get_or_create(seed=seed, defaults={"puzzles": made})
        created += made
    return TopUp(site, bots, created, sum(pool_waiting().values()))


# -- solving ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AttemptResult:
    """The outcome of an attempt or a give-up. ``practice``: not the caller's first result on
    the puzzle (it moves no rating and no streak). ``revealed``: the answer may be shown (a solve
    or a give-up; never after a wrong turn)."""

    puzzle: Puzzle
    move: str
    points: int
    solved: bool
    rated: bool
    practice: bool = False
    gave_up: bool = False
    rating_before: float | None = None
    rating_after: float | None = None
    streak: int | None = None

    @property
    def revealed(self) -> bool:
        return self.solved or self.gave_up


def expected(rating: float, opponent: float) -> float:
    """Elo's expected score of ``rating`` against ``opponent``."""
    return float(1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0)))


def _puzzle_or_not_found(puzzle_id: int) -> Puzzle:
    puzzle = Puzzle.objects.filter(pk=puzzle_id).first()
    if puzzle is None:
        raise PuzzleNotFound(_("There is no puzzle %(id)s.") % {"id": puzzle_id})
    return puzzle


def puzzle_attempt_make(
    *,
    puzzle_id: int,
    move: str,
    user: User | None = None,
    seen: bool = False,
    budget: engine_budget.Caller | str | None = None,
) -> AttemptResult:
    """Check a turn against a puzzle: solved when it scores the maximum (any maximal turn).

    Signed in, the attempt is stored; the player's first result on a puzzle (an attempt or a
    give-up) is rated (Elo against the puzzle's rating, which moves the other way) and moves the
    streaks; later ones are practice. ``seen``: the caller's browser already had a result on this
    puzzle (perhaps signed out, its answer shown): practice too. An illegal turn raises
    :class:`PuzzleError` naming the cell and changes nothing. The check draws from the engine
    budget ``budget`` (``engine_budget.request_caller``; the user's when None)."""
    puzzle = _puzzle_or_not_found(puzzle_id)
    pos = puzzle_position(puzzle)
    if budget is None and user is not None:
        budget = engine_budget.user_ident(user)
    try:
        # A check is one turn played (for a 'best turn' puzzle, plus its line followed to the
        # mover's next turn, a few searches): it runs here, charged its CPU time.
        with engine_budget.spending(budget) if budget else contextlib.nullcontext():
            if puzzle.kind == Puzzle.Kind.BEST_TURN and puzzle.solution_value is not None:
                points, solved = solves_best_turn(pos, move, puzzle.solution_value)
            else:
                points, solved = solves(pos, move, puzzle.best_points)
    except EngineError as exc:  # in the reader's language, as the game page says it
        cell = exc.cell if isinstance(exc, IllegalMoveError) else None
        raise PuzzleError(engine_error_message(exc), cell, exc.code or None) from None
    text = " ".join(move.upper().split())
    return _result_record(puzzle, user, seen, text, points, solved, gave_up=False)


def puzzle_give_up(
    *, puzzle_id: int, user: User | None = None, seen: bool = False
) -> AttemptResult:
    """Show the answer. Signed in, a give-up is stored and, as the first result on the puzzle,
    rated as a loss (so asking first and solving after never gains a rating); signed out it
    rates nothing."""
    puzzle = _puzzle_or_not_found(puzzle_id)
    return _result_record(puzzle, user, seen, "", 0, False, gave_up=True)


def _result_record(
    puzzle: Puzzle,
    user: User | None,
    seen: bool,
    move: str,
    points: int,
    solved: bool,
    *,
    gave_up: bool,
) -> AttemptResult:
    """Count a result on the puzzle and, signed in, store it and rate it if it is the first."""
    if user is None or not user.is_authenticated:
        with transaction.atomic():
            locked = Puzzle.objects.select_for_update().get(pk=puzzle.pk)
            locked.attempts += 1
            locked.solved += solved
            locked.save(update_fields=["attempts", "solved"])
        return AttemptResult(locked, move, points, solved, False, seen, gave_up)
    with transaction.atomic():
        PuzzlePlayer.objects.get_or_create(user=user)
        player = PuzzlePlayer.objects.select_for_update().get(user=user)
        locked = Puzzle.objects.select_for_update().get(pk=puzzle.pk)
        rated = not seen and not PuzzleAttempt.objects.filter(puzzle=locked, user=user).exists()
        attempt = PuzzleAttempt(
            puzzle=locked,
            user=user,
            move=move,
            points=points,
            solved=solved,
            rated=rated,
            gave_up=gave_up,
        )
        locked.attempts += 1
        locked.solved += solved
        fields = ["attempts", "solved"]
        if rated:
            _rate(player, locked, attempt, solved)
            fields += ["rating", "rated_attempts"]
        player.save()
        locked.save(update_fields=fields)
        attempt.save()
    return AttemptResult(
        locked,
        move,
        points,
        solved,
        rated,
        not rated,
        gave_up,
        attempt.rating_before,
        attempt.rating_after,
        player.streak,
    )


def _rate(player: PuzzlePlayer, puzzle: Puzzle, attempt: PuzzleAttempt, solved: bool) -> None:
    """A first result: Elo for both sides, the streak, and the daily streak for a solve of
    today's puzzle (in memory; the caller saves)."""
    score = 1.0 if solved else 0.0
    chance = expected(player.rating, puzzle.rating)
    k = PLAYER_K_NEW if player.rated < NEW_PLAYER_ATTEMPTS else PLAYER_K
    attempt.rating_before = player.rating
    attempt.puzzle_rating_before = puzzle.rating
    player.rating = round(player.rating + k * (score - chance), 1)
    puzzle.rating = round(puzzle.rating - PUZZLE_K * (score - chance), 1)
    attempt.rating_after = player.rating
    attempt.puzzle_rating_after = puzzle.rating
    player.rated += 1
    player.solved += solved
    player.streak = player.streak + 1 if solved else 0
    player.best_streak = max(player.best_streak, player.streak)
    puzzle.rated_attempts += 1
    today = timezone.localdate()
    daily = DailyPuzzle.objects.filter(date=today).values_list("puzzle_id", flat=True).first()
    if solved and daily == puzzle.pk and player.last_daily != today:
        yesterday = today - datetime.timedelta(days=1)
        player.daily_streak = player.daily_streak + 1 if player.last_daily == yesterday else 1
        player.last_daily = today


# -- the daily puzzle ---------------------------------------------------------------------------


def daily_puzzle_for(*, day: datetime.date) -> Puzzle | None:
    """The puzzle of ``day``: chosen once (a medium one where there are any) and kept."""
    chosen = DailyPuzzle.objects.filter(date=day).select_related("puzzle").first()
    if chosen is not None:
        return chosen.puzzle
    pool = Puzzle.objects.filter(difficulty__gte=2, difficulty__lte=4)
    if not pool.exists():
        pool = Puzzle.objects.all()
    count = pool.count()
    if count == 0:
        return None
    index = int(hashlib.sha256(day.isoformat().encode()).hexdigest(), 16) % count
    puzzle = pool.order_by("id")[index]
    try:
        with transaction.atomic():
            DailyPuzzle.objects.create(date=day, puzzle=puzzle)
    except IntegrityError:  # another request chose it first
        return DailyPuzzle.objects.select_related("puzzle").get(date=day).puzzle
    return puzzle

"""Puzzles, attempts at them, puzzle ratings, the daily puzzle, and the games already searched
for puzzles. Rows change only through ``learn.services``."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from games.models import Game
from ratings.elo import START_RATING


class Puzzle(models.Model):
    """A position from a game where the best turn scored clearly more than the turn played."""

    class Theme(models.TextChoices):
        DOUBLE_SIESTA = "double_siesta", _("Double Siesta")
        CROSSING = "crossing", _("crossing")
        BLOCKING = "blocking", _("blocking the next player")
        LAST_SUN = "last_sun", _("last sun")
        END_OF_GAME = "end_of_game", _("end of game")

    class Kind(models.TextChoices):
        MOST_POINTS = "most_points", _("most points now")
        BEST_TURN = "best_turn", _("best turn")

    key = models.CharField(max_length=40, unique=True, help_text="Identifies the position.")
    kind = models.CharField(
        max_length=12,
        choices=Kind.choices,
        default=Kind.MOST_POINTS,
        help_text="most_points: exact, the most points now; best_turn: the expert's look-ahead.",
    )
    solution_value = models.FloatField(
        null=True,
        blank=True,
        help_text="best_turn: the solution's line value (games.engine.expert.line_value).",
    )
    players = models.PositiveSmallIntegerField()
    variant = models.CharField(max_length=10, choices=Game.Variant.choices)
    board = models.JSONField()
    to_move = models.PositiveSmallIntegerField()
    supply = models.JSONField(help_text='{"suns", "shadows", "roofs": [...]}')
    scores = models.JSONField()
    best_points = models.PositiveSmallIntegerField()
    solution = models.CharField(max_length=20, help_text="One turn that scores best_points.")
    cores = models.JSONField(default=list, help_text="The distinct sets of scoring placements.")
    obvious_points = models.PositiveSmallIntegerField(default=0)
    played_move = models.CharField(max_length=20)
    played_points = models.PositiveSmallIntegerField()
    themes = models.CharField(
        max_length=100, blank=True, help_text="Theme names, each between commas: ',a,b,'."
    )
    difficulty = models.PositiveSmallIntegerField(default=1)
    rating = models.FloatField(default=START_RATING)
    rated_attempts = models.PositiveIntegerField(default=0)
    attempts = models.PositiveIntegerField(default=0)
    solved = models.PositiveIntegerField(default=0)
    source_game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    source_ply = models.PositiveIntegerField(help_text="Turns played before the position.")
    source_record = models.JSONField(help_text="The game it came from, as a game record.")
    source_label = models.CharField(max_length=80, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["rating"])]

    def __str__(self) -> str:
        return f"Puzzle {self.pk} ({self.best_points} points)"

    @property
    def theme_list(self) -> list[str]:
        return [name for name in self.themes.split(",") if name]

    @staticmethod
    def themes_text(themes: list[str]) -> str:
        return "," + ",".join(themes) + "," if themes else ""


class PuzzlePlayer(models.Model):
    """A signed-in player's puzzle rating (Elo) and streaks."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="puzzle_player"
    )
    rating = models.FloatField(default=START_RATING)
    rated = models.PositiveIntegerField(default=0, help_text="Rated attempts.")
    solved = models.PositiveIntegerField(default=0)
    streak = models.PositiveIntegerField(default=0, help_text="Puzzles solved in a row.")
    best_streak = models.PositiveIntegerField(default=0)
    daily_streak = models.PositiveIntegerField(default=0, help_text="Daily puzzles in a row.")
    last_daily = models.DateField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.rating:.0f}"


class PuzzleAttempt(models.Model):
    """One submitted turn, or a give-up (``gave_up``, no move: the answer was shown). A player's
    first result on a puzzle is the rated one; later ones are practice."""

    puzzle = models.ForeignKey(Puzzle, on_delete=models.CASCADE, related_name="attempt_rows")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="puzzle_attempts",
    )
    move = models.CharField(max_length=20)
    points = models.PositiveSmallIntegerField()
    solved = models.BooleanField()
    rated = models.BooleanField(default=False)
    gave_up = models.BooleanField(default=False, help_text="Asked for the answer (a loss).")
    rating_before = models.FloatField(null=True, blank=True)
    rating_after = models.FloatField(null=True, blank=True)
    puzzle_rating_before = models.FloatField(null=True, blank=True)
    puzzle_rating_after = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["puzzle", "user"], condition=Q(rated=True), name="one_rated_attempt"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} on {self.puzzle_id}: {self.points}"


class DailyPuzzle(models.Model):
    date = models.DateField(unique=True)
    puzzle = models.ForeignKey(Puzzle, on_delete=models.CASCADE, related_name="+")

    def __str__(self) -> str:
        return f"{self.date}: {self.puzzle_id}"


class ScannedGame(models.Model):
    """A finished game already searched for puzzles (so the task searches each game once)."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="+")
    puzzles = models.PositiveSmallIntegerField(default=0)
    scanned_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.game_id}: {self.puzzles}"


class PoolGame(models.Model):
    """A bot-against-bot game played for the puzzle pool (``services.puzzle_pool_top_up``),
    by its seed: the next run plays the next seed, never one already played."""

    seed = models.PositiveBigIntegerField(unique=True)
    puzzles = models.PositiveSmallIntegerField(default=0)
    played_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"seed {self.seed}: {self.puzzles}"

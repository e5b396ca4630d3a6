"""Ratings: one row per player and pool, one marker per finished game, one history row per person
and game. Rows change only through ``ratings.services``.

Ratings are stored as double precision floats, unrounded: replaying the history with
``ratings.elo`` from 1500 reproduces them exactly (``manage.py recompute_ratings``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.engine import GameOutcome, SeatResult
from games.models import Seat
from ratings import elo


class Pool(models.TextChoices):
    FFA = "ffa", _("free-for-all")
    TEAMS = "teams", _("teams")


class Reason(models.TextChoices):
    """Why a history row counted or not (the ``reason`` of the API)."""

    RATED = "rated", _("counted")
    HINT = "hint", _("not counted: asked for a hint")
    CASUAL = "casual", _("not counted: casual game")
    TOO_FEW = "too_few_rated_players", _("not counted: fewer than two people in the game")
    ABORTED = "aborted", _("not counted: the game ended before everyone had moved")


class Result(models.TextChoices):
    WIN = elo.Result.WIN.value, _("win")
    DRAW = elo.Result.DRAW.value, _("draw")
    LOSS = elo.Result.LOSS.value, _("loss")


class Rating(models.Model):
    """A player's standing in one pool. Created with their first counted game."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    pool = models.CharField(max_length=5, choices=Pool.choices)
    rating = models.FloatField(default=elo.START_RATING)
    peak = models.FloatField(default=elo.START_RATING)
    games = models.PositiveIntegerField(default=0, help_text="Counted games.")
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["pool", "-rating"]
        constraints = [
            models.UniqueConstraint(fields=["user", "pool"], name="rating_one_per_user_pool"),
        ]
        indexes = [models.Index(fields=["pool", "-rating"], name="rating_pool_rating_idx")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.pool} {self.rating:.1f}"

    @property
    def provisional(self) -> bool:
        return elo.is_provisional(self.games)


class RatedGame(models.Model):
    """Marks a finished game as handled by ratings (counted or not): unique per game, so nothing
    can rate a game twice. Keeps what the replay and the history pages need of the outcome."""

    game = models.OneToOneField("games.Game", on_delete=models.CASCADE, related_name="+")
    pool = models.CharField(max_length=5, choices=Pool.choices)
    at = models.DateTimeField(help_text="When the game finished.")
    counted = models.BooleanField(help_text="Ratings changed.")
    reason = models.CharField(max_length=24, choices=Reason.choices)
    participants = models.JSONField(
        default=list,
        help_text="Every seat: seat, username, bot, team, score, hinted, out.",
    )
    team_scores = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["at", "game_id"]

    def __str__(self) -> str:
        return f"game {self.game_id} ({self.reason})"

    @property
    def outcome(self) -> GameOutcome:
        """Who beat whom, rebuilt from the snapshot of the seats."""
        return GameOutcome(
            tuple(
                SeatResult(seat=p["seat"], score=p["score"], out=p["out"], team=p.get("team"))
                for p in sorted(self.participants, key=lambda p: p["seat"])
            )
        )


class RatingChange(models.Model):
    """One person's rating history entry for one finished game, counted or not."""

    rated_game = models.ForeignKey(RatedGame, on_delete=models.CASCADE, related_name="changes")
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    pool = models.CharField(max_length=5, choices=Pool.choices)
    at = models.DateTimeField(help_text="When the game finished.")
    seat = models.PositiveSmallIntegerField()
    team = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.IntegerField()
    out = models.BooleanField(default=False, help_text="Resigned or timed out.")
    before = models.FloatField()
    after = models.FloatField()
    delta = models.FloatField()
    k = models.PositiveSmallIntegerField(null=True, blank=True)
    counted = models.BooleanField()
    reason = models.CharField(max_length=24, choices=Reason.choices)
    result = models.CharField(max_length=4, choices=Result.choices, blank=True)

    class Meta:
        ordering = ["at", "game_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "user", "pool"], name="ratingchange_one_per_game_user_pool"
            ),
        ]
        indexes = [models.Index(fields=["user", "pool", "at"], name="ratingchange_user_idx")]

    def __str__(self) -> str:
        return f"{self.user_id} game {self.game_id}: {self.delta:+.1f}"


class BotResult(models.Model):
    """A bot's result in a finished game against one person (free-for-all) or against the other
    team's people (teams): what a bot level's performance is computed from. Bots have no rating
    and change nobody's; these rows only describe how a level has fared against people."""

    rated_game = models.ForeignKey(RatedGame, on_delete=models.CASCADE, related_name="bot_results")
    pool = models.CharField(max_length=5, choices=Pool.choices)
    level = models.CharField(max_length=6, choices=Seat.BotLevel.choices)
    bot_seat = models.PositiveSmallIntegerField()
    against = models.PositiveSmallIntegerField(
        help_text="The person's seat (free-for-all) or the other team (teams)."
    )
    opponent_rating = models.FloatField(
        help_text="The person's rating when the game ended, before any change it made (teams: "
        "the mean of the other team's people's)."
    )
    score = models.FloatField(help_text="The bot's result: 1, 0.5 or 0.")
    at = models.DateTimeField(help_text="When the game finished.")

    class Meta:
        ordering = ["at", "rated_game_id", "bot_seat", "against"]
        constraints = [
            models.UniqueConstraint(
                fields=["rated_game", "bot_seat", "against"], name="botresult_one_per_duel"
            ),
        ]
        indexes = [models.Index(fields=["pool", "level"], name="botresult_pool_level_idx")]

    def __str__(self) -> str:
        return f"{self.level} game {self.rated_game_id} v {self.against}: {self.score}"

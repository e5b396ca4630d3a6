"""Tournaments, their players, rounds and pairings, and the recurring schedules that create them.

Rows change only through ``tournaments.services``. A round is created once per tournament and
number, and a player is paired at most once per round: unique constraints stand behind the row
locks, so two sweeps or two workers can never pair a round twice.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.dates import WEEKDAYS
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.models import Game


class Format(models.TextChoices):
    ROUND_ROBIN = "round_robin", _("round robin")
    SWISS = "swiss", _("Swiss")
    ARENA = "arena", _("arena")


class Visibility(models.TextChoices):
    PUBLIC = "public", _("public: listed for everyone")
    INVITE = "invite", _("by invitation: only with its link")


class Recurrence(models.TextChoices):
    HOURLY = "hourly", _("every hour")
    DAILY = "daily", _("every day")
    WEEKLY = "weekly", _("every week")


SCHEDULED_NAMES = {
    "hourly_quick_swiss": _("Hourly quick Swiss"),
    "daily_swiss": _("Daily Swiss"),
    "weekly_four": _("Weekly four at a table"),
}
"""The names of scheduled tournaments, by key: shown in the reader's language (the stored name
is the fallback when the key is unknown)."""


def tournament_display_name(name: str, name_key: str = "") -> str:
    """A tournament's name in the active language: a scheduled tournament's translated name
    (by its key), else the name as written. Every place that shows a tournament's name to a
    person uses it: pages, notices and their e-mails, the standings after a tournament game."""
    label = SCHEDULED_NAMES.get(name_key)
    return str(label) if label is not None else name


class TournamentSettings(models.Model):
    """What a tournament is played with; shared by tournaments and their schedules."""

    MAX_ROUNDS = 30
    """Of a Swiss tournament."""
    MAX_PLAYERS = 256
    MIN_ARENA_MINUTES = 10
    MAX_ARENA_MINUTES = 24 * 60

    name = models.CharField(_("name"), max_length=100)
    format = models.CharField(_("format"), max_length=12, choices=Format.choices)
    table_size = models.PositiveSmallIntegerField(
        _("seats per table"), default=2, validators=[MinValueValidator(2), MaxValueValidator(4)]
    )
    mode = models.CharField(_("mode"), max_length=5, choices=Game.Mode.choices, default="ffa")
    variant = models.CharField(
        _("variant"), max_length=10, choices=Game.Variant.choices, default="standard"
    )
    rounds = models.PositiveSmallIntegerField(
        _("rounds"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_ROUNDS)],
        help_text=_("Swiss only; a round robin plays every pair once."),
    )
    duration_minutes = models.PositiveSmallIntegerField(
        _("duration in minutes"),
        null=True,
        blank=True,
        validators=[MinValueValidator(MIN_ARENA_MINUTES), MaxValueValidator(MAX_ARENA_MINUTES)],
        help_text=_("Arena only: how long new games are started."),
    )
    turn_seconds = models.PositiveIntegerField(
        _("seconds per turn"),
        default=Game.DEFAULT_TURN_SECONDS,
        validators=[
            MinValueValidator(Game.MIN_TURN_SECONDS),
            MaxValueValidator(Game.MAX_TURN_SECONDS),
        ],
    )
    max_players = models.PositiveSmallIntegerField(
        _("most players"),
        default=16,
        validators=[MinValueValidator(2), MaxValueValidator(MAX_PLAYERS)],
    )
    min_players = models.PositiveSmallIntegerField(
        _("fewest players"),
        default=2,
        validators=[MinValueValidator(2), MaxValueValidator(MAX_PLAYERS)],
    )
    name_key = models.CharField(
        _("translated name"),
        max_length=40,
        blank=True,
        choices=[(key, label) for key, label in SCHEDULED_NAMES.items()],
        help_text=_("Shown instead of the name, in the reader's language."),
    )

    class Meta:
        abstract = True

    @property
    def display_name(self) -> str:
        """The name in the active language when it has a key, else the name as written."""
        return tournament_display_name(self.name, self.name_key)


class Schedule(TournamentSettings):
    """A recurring tournament: every hour (at ``time``'s minute), day (at ``time``, UTC) or week
    (on ``weekday`` at ``time``) the sweep creates the next one ahead of its start (an hour ahead
    for an hourly one, a day for the others), so that the list always shows what is coming."""

    every = models.CharField(
        _("repeats"), max_length=6, choices=Recurrence.choices, default=Recurrence.DAILY
    )
    time = models.TimeField(
        _("time of day (UTC)"), help_text=_("For an hourly schedule only the minutes count.")
    )
    weekday = models.PositiveSmallIntegerField(
        _("day of the week"),
        null=True,
        blank=True,
        choices=sorted(WEEKDAYS.items()),
        help_text=_("Weekly schedules only."),
    )
    active = models.BooleanField(_("active"), default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["time", "id"]
        verbose_name = _("tournament schedule")
        verbose_name_plural = _("tournament schedules")

    def __str__(self) -> str:
        return f"{self.name} ({self.every} {self.time:%H:%M} UTC)"


class Tournament(TournamentSettings):
    class Status(models.TextChoices):
        SCHEDULED = "scheduled", pgettext_lazy("tournament", "scheduled")
        RUNNING = "running", pgettext_lazy("tournament", "running")
        FINISHED = "finished", pgettext_lazy("tournament", "finished")
        CANCELLED = "cancelled", pgettext_lazy("tournament", "cancelled")

    starts_at = models.DateTimeField(_("starts at"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SCHEDULED)
    current_round = models.PositiveSmallIntegerField(null=True, blank=True)
    cancel_reason = models.CharField(max_length=200, blank=True)
    schedule = models.ForeignKey(
        Schedule, null=True, blank=True, on_delete=models.SET_NULL, related_name="tournaments"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    visibility = models.CharField(
        _("visibility"), max_length=6, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    password = models.CharField(
        max_length=128, blank=True, help_text="A hash (make_password); empty: none."
    )
    invite_token = models.CharField(max_length=43, blank=True, db_index=True)
    featured = models.BooleanField(_("featured"), default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    version = models.PositiveIntegerField(default=0, help_text="Rises by one per change.")

    class Meta:
        ordering = ["-starts_at", "-id"]
        indexes = [models.Index(fields=["status", "starts_at"])]
        constraints = [
            models.CheckConstraint(
                condition=~Q(format="round_robin") | Q(table_size=2),
                name="tournament_round_robin_2_seats",
            ),
            models.CheckConstraint(
                condition=~Q(mode="teams") | Q(table_size=4), name="tournament_teams_4_seats"
            ),
            models.UniqueConstraint(
                fields=["schedule", "starts_at"],
                condition=Q(schedule__isnull=False),
                name="tournament_one_per_schedule_time",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.status})"


class TournamentPlayer(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_entries"
    )
    joined_at = models.DateTimeField(auto_now_add=True)
    withdrawn = models.BooleanField(default=False)
    paused = models.BooleanField(
        default=False, help_text="Arena: not paired again until they join again."
    )
    rank = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Final place.")

    class Meta:
        ordering = ["tournament", "joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="tournament_player_once"),
        ]

    def __str__(self) -> str:
        return f"{self.tournament_id}: {self.user_id}"


class Round(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="round_once"),
        ]

    def __str__(self) -> str:
        return f"{self.tournament_id} round {self.number}"


class Pairing(models.Model):
    """One player in one round: their game and seat, or a bye. ``points``, ``score`` and
    ``forfeit`` are filled in when the game ends (a bye is worth 1 point at once)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="pairings")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="pairings")
    player = models.ForeignKey(TournamentPlayer, on_delete=models.CASCADE, related_name="pairings")
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.CASCADE, related_name="tournament_pairings"
    )
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    points = models.FloatField(null=True, blank=True)
    score = models.IntegerField(null=True, blank=True)
    forfeit = models.BooleanField(
        default=False, help_text="The player missed their first turn (filled in with the points)."
    )

    class Meta:
        ordering = ["round", "game", "seat", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "round", "player"], name="pairing_once_per_round"
            ),
            models.UniqueConstraint(
                fields=["game", "seat"], condition=Q(game__isnull=False), name="pairing_seat_once"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.round}: {self.player_id} in {self.game_id or 'bye'}"

    @property
    def is_bye(self) -> bool:
        return self.game_id is None

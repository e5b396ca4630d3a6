"""Games, their seats and their turns.

The position of an active game is stored on the rows (board, supplies, scores, roofs left), so a
move rebuilds the engine position without replaying the game. Rows change only through
``games.services``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext, pgettext_lazy

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from games.engine import notation

EMPTY_BOARD = list(notation.EMPTY_BOARD)

TURN_TIME_CHOICES = [  # what the forms offer; the API takes any time within Game's limits
    (30, _("30 seconds")),
    (60, _("1 minute")),
    (120, _("2 minutes")),
    (300, _("5 minutes")),
    (600, _("10 minutes")),
    (86400, _("1 day")),
]


def turn_time_label(seconds: int) -> str:
    """Words for a turn time: the form's label when it is one of its choices."""
    labels = dict(TURN_TIME_CHOICES)
    if seconds in labels:
        return str(labels[seconds])
    if seconds % 86400 == 0:
        days = seconds // 86400
        return ngettext("%(count)s day", "%(count)s days", days) % {"count": days}
    if seconds % 60 == 0:
        minutes = seconds // 60
        return ngettext("%(count)s minute", "%(count)s minutes", minutes) % {"count": minutes}
    return ngettext("%(count)s second", "%(count)s seconds", seconds) % {"count": seconds}


T = TypeVar("T")


class _FromSettings(Generic[T]):
    """A class constant whose value comes from a setting, read each time it is used (so that an
    override, in the environment or in a test, applies)."""

    def __init__(self, name: str, convert: Callable[[Any], T]) -> None:
        self.name = name
        self.convert = convert

    def __get__(self, instance: object, owner: type | None = None) -> T:
        return self.convert(getattr(settings, self.name))


def empty_board() -> list[str]:
    return list(EMPTY_BOARD)


class Game(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("open")
        ACTIVE = "active", _("active")
        FINISHED = "finished", _("finished")
        CANCELLED = "cancelled", pgettext_lazy("game", "cancelled")

    class Mode(models.TextChoices):
        FFA = "ffa", _("free-for-all")
        TEAMS = "teams", _("teams")

    class Variant(models.TextChoices):
        STANDARD = "standard", _("standard")
        CLASSIC = "classic", _("classic")

    class EndReason(models.TextChoices):
        LAST_SUN = "last_sun", _("the last sun was placed")
        LAST_SHADOW = "last_shadow", _("the last shadow was placed")
        LAST_ROOF = "last_roof", _("a player placed their last roof")
        NO_SCORING_MOVE = "no_scoring_move", _("the player to move had no scoring turn")
        RESIGNED = "resigned", _("resignation")
        TIMEOUT = "timeout", _("time ran out")
        FORFEIT = "forfeit", _("a player missed their first turn")
        CANCELLED = "cancelled", _("cancelled by its creator")
        EXPIRED = "expired", _("nobody joined in time")

    # The limits of a game, each named once.
    MIN_TURN_SECONDS = 10
    MAX_TURN_SECONDS = 7 * 24 * 3600
    """The 7-day turn limit: no game (or tournament) gives more time per turn."""
    DEFAULT_TURN_SECONDS = 120
    MAX_OPEN_GAMES = _FromSettings("SIESTA_MAX_OPEN_GAMES", int)
    """Per user: open games waiting for players."""
    MAX_BOT_GAMES = _FromSettings("SIESTA_MAX_BOT_GAMES", int)
    """Per user: unfinished games with bots (created or joined, and not out of them)."""
    OPEN_GAME_LIFETIME = _FromSettings(
        "SIESTA_OPEN_GAME_MINUTES", lambda minutes: timedelta(minutes=minutes)
    )
    """An open game nobody completes within this is cancelled (``game_open_expire``)."""

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    players = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(2), MaxValueValidator(4)]
    )
    mode = models.CharField(max_length=5, choices=Mode.choices, default=Mode.FFA)
    variant = models.CharField(max_length=10, choices=Variant.choices, default=Variant.STANDARD)
    rated = models.BooleanField(default=True)
    turn_seconds = models.PositiveIntegerField(
        default=DEFAULT_TURN_SECONDS,
        validators=[MinValueValidator(MIN_TURN_SECONDS), MaxValueValidator(MAX_TURN_SECONDS)],
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    ply = models.PositiveIntegerField(default=0, help_text="Turns played.")
    version = models.PositiveIntegerField(default=0, help_text="Rises by one per change.")
    to_move = models.PositiveSmallIntegerField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    board = models.JSONField(default=empty_board)
    suns = models.PositiveSmallIntegerField(default=25)
    shadows = models.PositiveSmallIntegerField(default=75)
    end_reason = models.CharField(max_length=20, choices=EndReason.choices, blank=True)
    winners = models.JSONField(default=list, blank=True)
    private = models.BooleanField(
        default=False,
        help_text="Seen only by its players, staff and whom the app that made it lets in (a game "
        "of an invitation-only tournament); never listed to anyone else.",
    )
    grace_seconds = models.PositiveIntegerField(
        default=0,
        help_text="Tournament games: each seat's first turn may start this long after the game "
        "did, and a seat that misses its first turn forfeits (0: no grace, a plain timeout).",
    )
    bot_since = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Set while a bot is to move: since when (the re-enqueue sweep's due time).",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["status", "deadline"]),
            models.Index(
                fields=["bot_since"], condition=Q(bot_since__isnull=False), name="game_bot_since"
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(players__gte=2) & Q(players__lte=4), name="game_players_2_to_4"
            ),
            models.CheckConstraint(
                condition=~Q(mode="teams") | Q(players=4), name="game_teams_need_4_players"
            ),
        ]

    def __str__(self) -> str:
        return f"Game {self.pk} ({self.status})"

    @property
    def first_turn_forfeits(self) -> bool:
        """Whether the seat to move forfeits if its time runs out: a game with a grace period,
        still in its first round of turns (the seats move in order, one turn each)."""
        return bool(self.grace_seconds) and self.to_move is not None and self.ply < self.players

    def seat_to_move(self, seats: Iterable[Seat] | None = None) -> Seat | None:
        """The seat whose turn it is (None when no one is to move): one of ``seats`` (e.g. the
        locked ones), else of the game's seats (their prefetch when there is one)."""
        if self.to_move is None:
            return None
        seats = self.seats.all() if seats is None else seats
        return next((s for s in seats if s.seat == self.to_move), None)

    def seat_of(
        self, user: AbstractBaseUser | AnonymousUser | None, seats: Iterable[Seat] | None = None
    ) -> Seat | None:
        """``user``'s seat (None for a visitor or someone not playing), among ``seats`` as in
        ``seat_to_move``."""
        if user is None or not user.is_authenticated:
            return None
        seats = self.seats.all() if seats is None else seats
        return next((s for s in seats if s.user_id == user.pk), None)


class Seat(models.Model):
    class BotLevel(models.TextChoices):
        EASY = "easy", _("easy")
        MEDIUM = "medium", _("medium")
        HARD = "hard", _("hard")
        EXPERT = "expert", _("expert")

    class OutReason(models.TextChoices):
        RESIGNED = "resigned", _("resigned")
        TIMEOUT = "timeout", _("time ran out")
        FORFEIT = "forfeit", _("forfeited")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="seats",
    )
    bot_level = models.CharField(max_length=6, choices=BotLevel.choices, blank=True)
    team = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.IntegerField(default=0)
    roofs_left = models.PositiveSmallIntegerField(default=15)
    hinted = models.BooleanField(default=False, help_text="Asked for a hint in this game.")
    hint_pending = models.BooleanField(
        default=False, help_text="Asked for a hint this turn: the next turn is marked."
    )
    out_reason = models.CharField(max_length=10, choices=OutReason.choices, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="seat_unique_per_game"),
            models.UniqueConstraint(
                fields=["game", "user"],
                condition=Q(user__isnull=False),
                name="seat_one_per_user_per_game",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seat}"

    @property
    def is_bot(self) -> bool:
        return bool(self.bot_level)

    @property
    def is_out(self) -> bool:
        return bool(self.out_reason)

    @property
    def is_filled(self) -> bool:
        return self.user_id is not None or self.is_bot

    @property
    def played_by_bot(self) -> bool:
        """Bots play their own seats, and the seats of players who are out."""
        return self.is_bot or self.is_out

    @property
    def level_for_bot(self) -> str:
        return self.bot_level or Seat.BotLevel.MEDIUM


class Turn(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="turns")
    ply = models.PositiveIntegerField(help_text="The game's ply once this turn is played (1..).")
    seat = models.PositiveSmallIntegerField()
    move = models.CharField(max_length=20)
    points = models.JSONField()
    hint = models.BooleanField(default=False)
    by_bot = models.BooleanField(default=False)
    played_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "ply"]
        constraints = [
            models.UniqueConstraint(fields=["game", "ply"], name="turn_unique_per_game_ply"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id}@{self.ply}: {self.move}"


class Analysis(models.Model):
    """The engine's look back at a finished game: what each turn scored against the most it could
    have. One per game; written by the ``analyse_game`` task through ``games.analysis``."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        DONE = "done", _("done")

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="analysis")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    data = models.JSONField(
        default=dict, blank=True, help_text='{"turns": [...], "players": [...]} as the API serves.'
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "analyses"

    def __str__(self) -> str:
        return f"Analysis of game {self.game_id} ({self.status})"


class SiteClock(models.Model):
    """One row (``pk=1``): the site's heartbeat, written every ``SIESTA_HEARTBEAT_SECONDS`` by
    each serving and worker process while the database and Redis answer (``games.clock``). A gap
    longer than ``SIESTA_OUTAGE_GAP_SECONDS`` is an outage: the running turns are extended by it."""

    beat_at = models.DateTimeField()
    outage_ended_at = models.DateTimeField(
        null=True, blank=True, help_text="The end of the last outage (no timeout for a grace)."
    )

    def __str__(self) -> str:
        return f"Site clock (beat at {self.beat_at})"


class ClockOutage(models.Model):
    """A time the site could not take moves (a gap in the heartbeat), and the turns it gave back."""

    started_at = models.DateTimeField(help_text="The last beat before the gap.")
    ended_at = models.DateTimeField(help_text="The first beat after it.")
    games = models.PositiveIntegerField(default=0, help_text="Running turns extended.")

    class Meta:
        ordering = ["-ended_at"]

    def __str__(self) -> str:
        return f"Outage {self.started_at} - {self.ended_at}"

    @property
    def seconds(self) -> float:
        return (self.ended_at - self.started_at).total_seconds()

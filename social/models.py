"""Playing together: seeks (quick pairing), rematch requests, chat, challenges, notifications and
each person's preferences. Rows change only through ``social.services``."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxLengthValidator, MinLengthValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.models import Game, Seat
from tournaments.models import Tournament


class Seek(models.Model):
    """A person waiting in the quick-pairing pool for a game with these settings."""

    class Status(models.TextChoices):
        WAITING = "waiting", _("waiting")
        MATCHED = "matched", _("matched")
        CANCELLED = "cancelled", pgettext_lazy("quick pairing", "cancelled")
        EXPIRED = "expired", _("expired")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    players = models.PositiveSmallIntegerField()
    mode = models.CharField(max_length=5, choices=Game.Mode.choices, default=Game.Mode.FFA)
    variant = models.CharField(
        max_length=10, choices=Game.Variant.choices, default=Game.Variant.STANDARD
    )
    rated = models.BooleanField(default=True)
    turn_seconds = models.PositiveIntegerField(default=Game.DEFAULT_TURN_SECONDS)
    rating = models.FloatField(help_text="The seeker's rating in the mode's pool when seeking.")
    rating_range = models.PositiveIntegerField(
        null=True, blank=True, help_text="Accepted rating difference at first; null: anyone."
    )
    bot_fill = models.BooleanField(
        default=False, help_text="Bots may fill the other seats after a wait."
    )
    bot_level = models.CharField(
        max_length=6,
        choices=Seat.BotLevel.choices,
        default=Seat.BotLevel.MEDIUM,
        help_text="The level of the bots that fill seats (with bot_fill).",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["status", "created_at"], name="seek_status_created_idx")]
        constraints = [
            models.UniqueConstraint(
                fields=["user"], condition=Q(status="waiting"), name="seek_one_waiting_per_user"
            ),
        ]

    def __str__(self) -> str:
        return f"Seek {self.pk} by {self.user_id} ({self.status})"


class RematchRequest(models.Model):
    """A person of a finished game asked to play it again."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="rematch_request_once"),
        ]

    def __str__(self) -> str:
        return f"Rematch of {self.game_id} asked by {self.user_id}"


class Rematch(models.Model):
    """The game a finished game was played again as (one per finished game)."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="+")
    new_game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"Game {self.game_id} played again as {self.new_game_id}"


class ChatMessage(models.Model):
    """One chat line of a game or of a tournament. During a game the players' room and the
    spectators' room are apart; after the end every line is shown to everyone. A tournament's
    chat is one room (``tournament``), under the same rules (limits, mute, staff removal)."""

    class Room(models.TextChoices):
        PLAYERS = "players", _("players")
        SPECTATORS = "spectators", _("spectators")
        AFTER = "after", _("after the game")
        TOURNAMENT = "tournament", _("tournament")

    MAX_LENGTH = 300
    """Characters of a line."""

    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    tournament = models.ForeignKey(
        Tournament, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    room = models.CharField(max_length=10, choices=Room.choices)
    text = models.CharField(
        max_length=MAX_LENGTH,
        validators=[MinLengthValidator(1), MaxLengthValidator(MAX_LENGTH)],
    )
    preset = models.CharField(
        max_length=20, blank=True, help_text="A quick message, shown in each reader's language."
    )
    removed = models.BooleanField(default=False, help_text="Removed by staff: shown to no one.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(fields=["game", "created_at"], name="chat_game_created_idx"),
            models.Index(fields=["tournament", "created_at"], name="chat_tournament_created_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(game__isnull=False, tournament__isnull=True)
                | Q(game__isnull=True, tournament__isnull=False),
                name="chat_of_a_game_or_a_tournament",
            ),
        ]

    def __str__(self) -> str:
        where = f"game {self.game_id}" if self.game_id else f"tournament {self.tournament_id}"
        return f"{where} {self.user_id}: {self.text[:40]}"


class Challenge(models.Model):
    """One person invites another to a two-player game with given settings."""

    class Status(models.TextChoices):
        PENDING = "pending", pgettext_lazy("challenge", "pending")
        ACCEPTED = "accepted", pgettext_lazy("challenge", "accepted")
        DECLINED = "declined", pgettext_lazy("challenge", "declined")
        CANCELLED = "cancelled", pgettext_lazy("challenge", "cancelled")
        EXPIRED = "expired", pgettext_lazy("challenge", "expired")

    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_sent"
    )
    challenged = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_received"
    )
    variant = models.CharField(
        max_length=10, choices=Game.Variant.choices, default=Game.Variant.STANDARD
    )
    rated = models.BooleanField(default=True)
    turn_seconds = models.PositiveIntegerField(default=Game.DEFAULT_TURN_SECONDS)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["challenger", "challenged"],
                condition=Q(status="pending"),
                name="challenge_one_pending_per_pair",
            ),
            models.CheckConstraint(
                condition=~Q(challenger=models.F("challenged")), name="challenge_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"Challenge {self.pk} {self.challenger_id}→{self.challenged_id} ({self.status})"


class Notification(models.Model):
    """An in-site notice. Its words are made when shown, in the reader's language, from ``kind``
    and ``params``."""

    class Kind(models.TextChoices):
        YOUR_TURN = "your_turn", _("your turn")
        CHALLENGE = "challenge", _("challenge")
        CHALLENGE_ANSWER = "challenge_answer", _("challenge answered")
        TOURNAMENT_ROUND = "tournament_round", _("tournament round")
        TOURNAMENT_WITHDRAWN = "tournament_withdrawn", _("withdrawn from a tournament")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    params = models.JSONField(default=dict, blank=True)
    url = models.CharField(max_length=200, blank=True)
    key = models.CharField(
        max_length=100, blank=True, help_text="Deduplication: one notice per user and key."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)
    emailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "read_at"], name="notification_user_read_idx")]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "key"], condition=~Q(key=""), name="notification_unique_key"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} for {self.user_id}"


class Preferences(models.Model):
    """A person's choices for chat and e-mail. Missing row: the defaults."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="social_preferences"
    )
    chat_muted = models.BooleanField(default=False)
    email_turns = models.BooleanField(
        default=False, help_text="E-mail when it is my turn in a game of a day or more per turn."
    )
    email_challenges = models.BooleanField(default=False, help_text="E-mail when challenged.")
    language = models.CharField(
        max_length=10, blank=True, help_text="The language of e-mails (set when saving these)."
    )
    email_confirmed = models.EmailField(
        blank=True,
        help_text="The address the person confirmed by the link mailed to it. The account's "
        "address is confirmed while it is this one; no notice is mailed to it otherwise.",
    )

    class Meta:
        verbose_name_plural = "preferences"

    def __str__(self) -> str:
        return f"Preferences of {self.user_id}"

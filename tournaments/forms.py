"""The tournament form of the pages: a player's (or staff's) new tournament, and its edits.

The form checks each field alone; whether the settings go together is the services' call
(``tournament_settings_check``), whose refusal the view shows as the form's error."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from games.models import TURN_TIME_CHOICES, Game
from tournaments.models import Format, Tournament, Visibility


class TournamentForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100)
    format = forms.ChoiceField(label=_("Format"), choices=Format.choices, initial=Format.SWISS)
    rounds = forms.IntegerField(
        label=_("Rounds"),
        min_value=1,
        max_value=Tournament.MAX_ROUNDS,
        required=False,
        initial=4,
        help_text=_("Swiss only; a round robin plays every pair once."),
    )
    duration_minutes = forms.IntegerField(
        label=_("Duration (minutes)"),
        min_value=Tournament.MIN_ARENA_MINUTES,
        max_value=Tournament.MAX_ARENA_MINUTES,
        required=False,
        initial=45,
        help_text=_("Arena only: new games start until this time is up."),
    )
    table_size = forms.TypedChoiceField(
        label=_("Players per table"),
        choices=[(2, "2"), (3, "3"), (4, "4")],
        coerce=int,
        initial=2,
        help_text=_("A round robin is played at tables of 2; teams at tables of 4."),
    )
    mode = forms.ChoiceField(label=_("Mode"), choices=Game.Mode.choices, initial=Game.Mode.FFA)
    variant = forms.ChoiceField(
        label=_("Variant"), choices=Game.Variant.choices, initial=Game.Variant.STANDARD
    )
    turn_seconds = forms.TypedChoiceField(
        label=_("Time per turn"), choices=TURN_TIME_CHOICES, coerce=int, initial=120
    )
    starts_at = forms.DateTimeField(
        label=_("Start (UTC)"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
    )
    max_players = forms.IntegerField(
        label=_("Most players"), min_value=2, max_value=Tournament.MAX_PLAYERS, initial=16
    )
    visibility = forms.ChoiceField(
        label=_("Who can join"),
        choices=Visibility.choices,
        initial=Visibility.PUBLIC,
        widget=forms.RadioSelect,
    )
    password = forms.CharField(
        label=_("Password (optional)"),
        max_length=128,
        required=False,
        widget=forms.PasswordInput(render_value=False),
        help_text=_("By invitation only: whoever joins types it. Left empty, it stays as it was."),
    )

    @classmethod
    def for_tournament(cls, tournament: Tournament, **kwargs: Any) -> TournamentForm:
        names = [name for name in cls.base_fields if name != "password"]
        initial = {name: getattr(tournament, name) for name in names}
        initial["starts_at"] = tournament.starts_at.astimezone(UTC).replace(tzinfo=None)
        return cls(initial=initial, **kwargs)

    def service_arguments(self) -> dict[str, Any]:
        """Keyword arguments for ``tournament_create`` / ``tournament_update`` (an empty password
        is left out: no password, or the same one when editing)."""
        data = dict(self.cleaned_data)
        starts_at: datetime = data["starts_at"]
        data["starts_at"] = starts_at.replace(tzinfo=UTC)
        if data["format"] in (Format.ROUND_ROBIN, Format.ARENA):
            data["rounds"] = None
        if data["format"] != Format.ARENA:
            data["duration_minutes"] = None
        if not data.get("password"):
            data.pop("password", None)
        return data

"""Admin registrations of the tournaments app: staff define recurring schedules here (the sweep
creates each next tournament a day ahead) and can look at tournaments."""

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from games.services import InvalidInput
from tournaments.models import Schedule, Tournament, TournamentPlayer
from tournaments.services import tournament_settings_check


class ScheduleForm(forms.ModelForm):  # type: ignore[type-arg]
    """Refuses the settings no tournament can be played with, as the API does."""

    class Meta:
        model = Schedule
        fields = [
            "name",
            "time",
            "active",
            "format",
            "table_size",
            "mode",
            "variant",
            "rounds",
            "turn_seconds",
            "max_players",
            "min_players",
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        names = ["format", "table_size", "mode", "variant", "rounds", "turn_seconds"]
        names += ["max_players", "min_players"]
        if all(name in data for name in names):
            try:
                tournament_settings_check(**{name: data[name] for name in names})
            except InvalidInput as exc:
                raise forms.ValidationError(exc.message) from None
        return data


@admin.register(Schedule)
class ScheduleAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    form = ScheduleForm
    list_display = ["name", "time", "format", "table_size", "mode", "variant", "rounds", "active"]
    list_filter = ["active", "format", "mode"]


class TournamentPlayerInline(admin.TabularInline):  # type: ignore[type-arg]
    model = TournamentPlayer
    extra = 0
    fields = ["user", "withdrawn", "rank"]
    readonly_fields = ["user", "withdrawn", "rank"]
    can_delete = False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["name", "starts_at", "status", "format", "table_size", "mode", "current_round"]
    list_filter = ["status", "format", "mode"]
    inlines = [TournamentPlayerInline]

    # Tournaments change only through the services (the API, the sweep): here they are shown.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

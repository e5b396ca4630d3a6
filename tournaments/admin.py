"""Admin registrations of the tournaments app: staff define recurring schedules (the sweep
creates each next tournament ahead of its start) and add, change, feature and cancel
tournaments. Both forms refuse the settings no tournament can be played with, through the same
check as the API (``tournament_settings_check``); tournaments are written by the services."""

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from core.errors import InvalidInput, ServiceError
from tournaments import services
from tournaments.models import Format, Recurrence, Schedule, Tournament, TournamentPlayer
from tournaments.services import SETTING_NAMES, tournament_settings_check


class _SettingsForm(forms.ModelForm):  # type: ignore[type-arg]
    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if all(name in data for name in SETTING_NAMES):
            try:
                data["rounds"] = tournament_settings_check(
                    **{name: data[name] for name in SETTING_NAMES}
                )
            except InvalidInput as exc:
                raise forms.ValidationError(exc.message) from None
        return data


class ScheduleForm(_SettingsForm):
    """Also: a weekly schedule needs its day."""

    class Meta:
        model = Schedule
        fields = [
            "name",
            "name_key",
            "every",
            "weekday",
            "time",
            "active",
            *SETTING_NAMES,
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("every") == Recurrence.WEEKLY and data.get("weekday") is None:
            self.add_error("weekday", forms.ValidationError(self.fields["weekday"].help_text))
        return data


@admin.register(Schedule)
class ScheduleAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    form = ScheduleForm
    list_display = ["name", "every", "weekday", "time", "format", "table_size", "mode", "active"]
    list_filter = ["active", "every", "format", "mode"]


class TournamentForm(_SettingsForm):
    class Meta:
        model = Tournament
        fields = [
            "name",
            "name_key",
            "starts_at",
            "featured",
            "visibility",
            *SETTING_NAMES,
        ]


class TournamentPlayerInline(admin.TabularInline):  # type: ignore[type-arg]
    model = TournamentPlayer
    extra = 0
    fields = ["user", "withdrawn", "rank"]
    readonly_fields = ["user", "withdrawn", "rank"]
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    form = TournamentForm
    list_display = ["name", "starts_at", "status", "format", "table_size", "mode", "featured"]
    list_filter = ["status", "featured", "visibility", "format", "mode"]
    readonly_fields = ["status", "created_by", "current_round", "cancel_reason"]
    inlines = [TournamentPlayerInline]
    actions = ["feature", "unfeature", "cancel"]

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Finished and cancelled tournaments are shown, not changed."""
        if obj is not None and obj.status not in ("scheduled", "running"):
            return False
        return super().has_change_permission(request, obj)

    def save_model(self, request: HttpRequest, obj: Tournament, form: Any, change: bool) -> None:
        """Through the services: a creation announces it, a change publishes it. A refusal
        there (the tournament started meanwhile) is shown as a message."""
        data = {name: form.cleaned_data[name] for name in TournamentForm.Meta.fields}
        if data["format"] == Format.ROUND_ROBIN:
            data["rounds"] = None
        assert request.user.is_authenticated
        user: Any = request.user
        try:
            if change:
                saved = services.tournament_update(tournament_id=obj.pk, user=user, **data)
            else:
                data.pop("featured")
                saved = services.tournament_create(user=user, **data)
                if form.cleaned_data["featured"]:
                    saved = services.tournament_update(
                        tournament_id=saved.pk, user=user, featured=True
                    )
        except ServiceError as exc:
            messages.error(request, exc.message)
            return
        obj.pk = saved.pk
        obj.refresh_from_db()

    @admin.action(description="Feature the selected tournaments")
    def feature(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        self._each(request, queryset, featured=True)

    @admin.action(description="Stop featuring the selected tournaments")
    def unfeature(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        self._each(request, queryset, featured=False)

    @admin.action(description="Cancel the selected tournaments")
    def cancel(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        user: Any = request.user
        for pk in queryset.values_list("pk", flat=True):
            try:
                services.tournament_cancel(tournament_id=pk, user=user)
            except ServiceError as exc:
                messages.error(request, f"{pk}: {exc.message}")

    def _each(self, request: HttpRequest, queryset: QuerySet[Tournament], **changes: Any) -> None:
        user: Any = request.user
        for pk in queryset.values_list("pk", flat=True):
            try:
                services.tournament_update(tournament_id=pk, user=user, **changes)
            except ServiceError as exc:
                messages.error(request, f"{pk}: {exc.message}")

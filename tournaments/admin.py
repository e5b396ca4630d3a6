"""Admin registrations of the tournaments app: staff define recurring schedules here (the sweep
creates each next tournament a day ahead) and can look at tournaments."""

from django.contrib import admin

from tournaments.models import Schedule, Tournament, TournamentPlayer


@admin.register(Schedule)
class ScheduleAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
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
    readonly_fields = ["status", "current_round", "cancel_reason", "version", "schedule"]
    inlines = [TournamentPlayerInline]

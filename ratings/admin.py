"""Admin registrations of the ratings app: read-only, since ratings change only by rating games
(and ``recompute_ratings --fix``)."""

from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.http import HttpRequest

from ratings.models import BotResult, RatedGame, Rating, RatingChange

if TYPE_CHECKING:
    ModelAdmin = admin.ModelAdmin[Any]
else:
    ModelAdmin = admin.ModelAdmin


class ReadOnlyAdmin(ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ["user", "pool", "rating", "peak", "games", "wins", "draws", "losses"]
    list_filter = ["pool"]
    search_fields = ["user__username"]


@admin.register(RatedGame)
class RatedGameAdmin(ReadOnlyAdmin):
    list_display = ["game_id", "pool", "at", "counted", "reason"]
    list_filter = ["pool", "counted", "reason"]


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = ["game_id", "user", "pool", "at", "before", "after", "delta", "reason"]
    list_filter = ["pool", "counted", "reason"]
    search_fields = ["user__username"]


@admin.register(BotResult)
class BotResultAdmin(ReadOnlyAdmin):
    list_display = ["rated_game", "pool", "level", "bot_seat", "against", "opponent_rating"]
    list_filter = ["pool", "level"]

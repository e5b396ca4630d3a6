from typing import TYPE_CHECKING, Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from social.models import Challenge, ChatMessage, Notification, Preferences, Seek
from social.services.chat import chat_remove

if TYPE_CHECKING:
    ModelAdmin = admin.ModelAdmin[Any]
else:
    ModelAdmin = admin.ModelAdmin


@admin.register(ChatMessage)
class ChatMessageAdmin(ModelAdmin):
    list_display = ["created_at", "game", "tournament", "user", "room", "text", "removed"]
    list_filter = ["removed", "room"]
    search_fields = ["text", "user__username"]
    readonly_fields = ["game", "tournament", "user", "room", "text", "preset", "created_at"]
    actions = ["remove_messages"]

    @admin.action(description=_("Remove the selected messages"))
    def remove_messages(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> None:
        count = chat_remove(message_ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(
            request,
            ngettext("%(count)d message removed.", "%(count)d messages removed.", count)
            % {"count": count},
            messages.SUCCESS,
        )

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Seek)
class SeekAdmin(ModelAdmin):
    list_display = ["id", "user", "players", "mode", "turn_seconds", "status", "game", "created_at"]
    list_filter = ["status"]


@admin.register(Challenge)
class ChallengeAdmin(ModelAdmin):
    list_display = ["id", "challenger", "challenged", "status", "game", "created_at"]
    list_filter = ["status"]


@admin.register(Notification)
class NotificationAdmin(ModelAdmin):
    list_display = ["id", "user", "kind", "created_at", "read_at", "emailed_at"]
    list_filter = ["kind"]


admin.site.register(Preferences)

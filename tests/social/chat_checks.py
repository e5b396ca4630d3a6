"""Checks the game chat and the tournament chat share: the same rules, the same frames."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from channels.db import database_sync_to_async
from django.contrib.admin.sites import site
from django.test import RequestFactory

from social.models import ChatMessage
from tests.factories import UserFactory
from tests.social.sockets import drain, receive, receive_type


async def check_mute(muted: Any, talker: Any, reopen: Callable[[], Awaitable[Any]]) -> None:
    """``muted`` mutes: ``talker``'s line does not reach it, a page opened again (``reopen``)
    stays muted, a bad value is refused, and unmuting sends the history with the line."""
    await muted.send_json_to({"type": "chat_mute", "muted": True})
    assert await receive(muted) == {"type": "chat_mute", "muted": True}
    await talker.send_json_to({"type": "chat", "text": "hello?"})
    await receive_type(talker, "chat")
    assert [f for f in await drain(muted) if f["type"] == "chat"] == []
    # It stays muted on the next page.
    _again, history = await reopen()
    assert history["muted"] is True
    assert history["messages"] == []

    await muted.send_json_to({"type": "chat_mute", "muted": "yes"})
    assert (await receive_type(muted, "error"))["error"]
    await muted.send_json_to({"type": "chat_mute", "muted": False})
    assert await receive(muted) == {"type": "chat_mute", "muted": False}
    assert [m["text"] for m in (await receive_type(muted, "chat_history"))["messages"]] == [
        "hello?"
    ]


async def remove_in_admin(message_id: int) -> None:
    """Staff remove a line with the admin's action."""

    def remove() -> None:
        admin = UserFactory(is_staff=True, is_superuser=True)
        request = RequestFactory().post("/admin/social/chatmessage/")
        request.user = admin
        request.session = {}  # type: ignore[assignment]
        request._messages = type("M", (), {"add": lambda *a, **k: None})()  # type: ignore[attr-defined]
        site._registry[ChatMessage].remove_messages(  # type: ignore[attr-defined]
            request, ChatMessage.objects.filter(pk=message_id)
        )

    await database_sync_to_async(remove)()

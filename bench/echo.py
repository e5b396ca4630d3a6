"""A bare Channels consumer for the load benchmark's floor (``python -m bench.loadtest``).

It does what the game consumer does minus the game: a text frame from one socket goes through the
channel layer to every socket of the same room (``group_send``, as a move's state does), the
sender included. No database (but below), no sessions, none of the site's socket limits
(``core.sockets``): a floor, not a socket of the site. Routed at ``/ws/echo/<room>/`` only
by ``bench.asgi``, which ``make up SIESTA_ECHO_WS=1`` serves instead of ``siesta_site.asgi`` (the
site itself never routes it).

With ``?commit=1`` on PostgreSQL the frame first takes the skeleton of a move's transaction, in
the same pool of database threads as the game consumer: ``transaction.atomic`` (BEGIN), a row lock
(here a transaction-level advisory lock on the room), a write (a transaction id, so that COMMIT
flushes the write-ahead log as a move's does) and COMMIT; the frame is broadcast on commit, from
that thread, as a move's state is. No engine, no models, no state: what the four round trips to
PostgreSQL and the thread hand-off cost alone (``python -m bench.loadtest --commit-floor``).
"""

from __future__ import annotations

import zlib
from typing import Any
from urllib.parse import parse_qs

from channels.generic.websocket import AsyncWebsocketConsumer
from django.db import connection, transaction

from core.broadcast import group_send
from games.consumers import db_call

MAX_FRAME = 4096


def room_lock_key(group: str) -> int:
    """The advisory lock a committed echo takes for its room."""
    return zlib.crc32(group.encode())


def commit_then_send(group: str, text: str) -> None:
    """A move's transaction without the move: lock, write, commit, then broadcast ``text``."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [room_lock_key(group)])
            cursor.execute("SELECT txid_current()")
        transaction.on_commit(lambda: group_send(group, {"type": "echo", "text": text}))


class EchoConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        room = str(self.scope["url_route"]["kwargs"]["room"])[:64]
        self.group = f"echo.{room}"
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        self.commit = query.get("commit") == ["1"] and connection.vendor == "postgresql"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(
        self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any
    ) -> None:
        if text_data is None or len(text_data) > MAX_FRAME:
            return
        if self.commit:
            await _committed(self.group, text_data)
        else:
            await self.channel_layer.group_send(self.group, {"type": "echo", "text": text_data})

    async def echo(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])


_committed = db_call(commit_then_send)

"""A bare Channels consumer for the load benchmark's floor (``manage.py loadtest``).

It does what the game consumer does minus the game: a text frame from one socket goes through the
channel layer to every socket of the same room (``group_send``, as a move's state does), the
sender included. No database, no sessions. Routed at ``/ws/echo/<room>/`` only when
``SIESTA_ECHO_WS`` is on (``make up`` turns it on; a public deployment leaves it off).
"""

from __future__ import annotations

from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer

MAX_FRAME = 4096


class EchoConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        room = str(self.scope["url_route"]["kwargs"]["room"])[:64]
        self.group = f"echo.{room}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(
        self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any
    ) -> None:
        if text_data is not None and len(text_data) <= MAX_FRAME:
            await self.channel_layer.group_send(self.group, {"type": "echo", "text": text_data})

    async def echo(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])

"""Sockets for the social tests, through the whole ASGI application (routing, session, Origin)."""

from __future__ import annotations

import asyncio
import copy
import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.test import Client

from siesta_site.asgi import application
from tests.factories import PASSWORD

TIMEOUT = 10
QUIET = 0.3
SAME_ORIGIN = (b"origin", b"http://testserver")
HOST = (b"host", b"testserver")  # the Origin check compares the two, as a browser sends them


@pytest.fixture
def own_layer_prefix(settings):
    """With Redis, a channel-layer prefix of this test's own (other runs share the server)."""
    if django_settings.REDIS_URL:
        layers = copy.deepcopy(settings.CHANNEL_LAYERS)
        layers["default"].setdefault("CONFIG", {})["prefix"] = f"test-{uuid.uuid4().hex}:"
        settings.CHANNEL_LAYERS = layers


def session_headers(user: Any, language: str | None = None) -> list[tuple[bytes, bytes]]:
    headers = [HOST, SAME_ORIGIN]
    cookies = []
    if user is not None:
        client = Client()
        assert client.login(username=user.username, password=PASSWORD)
        cookie = client.cookies[django_settings.SESSION_COOKIE_NAME].value
        cookies.append(f"{django_settings.SESSION_COOKIE_NAME}={cookie}")
    if language:
        cookies.append(f"{django_settings.LANGUAGE_COOKIE_NAME}={language}")
    if cookies:
        headers.append((b"cookie", "; ".join(cookies).encode()))
    return headers


class Sockets:
    """Opens sockets and closes them all at the end of a test."""

    def __init__(self) -> None:
        self.opened: list[WebsocketCommunicator] = []

    async def open(self, path: str, user: Any = None, language: str | None = None):
        headers = await database_sync_to_async(session_headers)(user, language)
        communicator = WebsocketCommunicator(application, path, headers)
        self.opened.append(communicator)
        connected, _ = await communicator.connect(timeout=TIMEOUT)
        assert connected
        return communicator

    async def close(self) -> None:
        for communicator in self.opened:
            await communicator.disconnect(timeout=TIMEOUT)


async def receive(communicator: WebsocketCommunicator) -> dict[str, Any]:
    message = await communicator.receive_json_from(timeout=TIMEOUT)
    assert isinstance(message, dict)
    return message


async def receive_type(communicator: WebsocketCommunicator, kind: str) -> dict[str, Any]:
    """The next frame of type ``kind``, skipping others (game states and the like)."""
    for _ in range(20):
        message = await receive(communicator)
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind} frame")


async def drain(communicator: WebsocketCommunicator) -> list[dict[str, Any]]:
    """Every frame that arrives until the socket is quiet."""
    frames = []
    while not await communicator.receive_nothing(timeout=QUIET):
        frames.append(await receive(communicator))
    return frames


async def settle() -> None:
    await asyncio.sleep(0.05)

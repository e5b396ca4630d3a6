"""The load benchmark's floor: the bare echo consumer passes a frame through the channel layer to
every socket of its room, and nothing else."""

from __future__ import annotations

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.urls import path

from siesta_site.echo import EchoConsumer

# Channels closes old database connections when a socket disconnects: allowed here, as in every
# consumer test, whatever an earlier test's thread left open.
pytestmark = pytest.mark.django_db(transaction=True)

application = URLRouter([path("ws/echo/<str:room>/", EchoConsumer.as_asgi())])


@pytest.fixture(autouse=True)
def _in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


async def test_a_frame_reaches_every_socket_of_the_room_and_no_other():
    first = WebsocketCommunicator(application, "/ws/echo/a/")
    second = WebsocketCommunicator(application, "/ws/echo/a/")
    elsewhere = WebsocketCommunicator(application, "/ws/echo/b/")
    for socket in (first, second, elsewhere):
        assert (await socket.connect())[0]
    await first.send_to(text_data='{"n": 1}')
    assert await second.receive_from() == '{"n": 1}'
    assert await first.receive_from() == '{"n": 1}'
    assert await elsewhere.receive_nothing()
    for socket in (first, second, elsewhere):
        await socket.disconnect()


def test_the_echo_route_is_off_unless_asked_for():
    from siesta_site.routing import websocket_urlpatterns

    assert all("echo" not in str(p.pattern) for p in websocket_urlpatterns)

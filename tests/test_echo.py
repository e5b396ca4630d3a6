"""The load benchmark's floor: the bare echo consumer passes a frame through the channel layer to
every socket of its room, and nothing else."""

from __future__ import annotations

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.urls import path

from bench.echo import EchoConsumer

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


async def test_the_site_refuses_an_echo_socket_by_default():
    """Issue 31: 20 anonymous echo sockets made 2,006 commits in 8 s on a default ``make up``.
    The site's own ASGI application (not a router of this test) refuses the handshake."""
    from siesta_site.asgi import application as site

    socket = WebsocketCommunicator(site, "/ws/echo/a/?commit=1")
    connected, _code = await socket.connect()
    assert not connected


async def test_the_benchmarks_application_routes_the_echo_and_the_sites_sockets():
    """``bench.asgi`` (what ``make up SIESTA_ECHO_WS=1`` serves) is the site plus the echo."""
    from bench.asgi import application as bench_site

    socket = WebsocketCommunicator(bench_site, "/ws/echo/a/")
    assert (await socket.connect())[0]
    await socket.send_to(text_data="hi")
    assert await socket.receive_from() == "hi"
    await socket.disconnect()
    lobby = WebsocketCommunicator(bench_site, "/ws/lobby/")
    assert (await lobby.connect())[0]
    await lobby.disconnect()


def test_make_up_leaves_the_echo_socket_off_unless_asked_for():
    """``make up`` passes ``SIESTA_ECHO_WS`` (default 0) to deploy/up.sh, whose own default is
    0 too: only ``make up SIESTA_ECHO_WS=1`` (the benchmark's stack) routes it."""
    import os
    import subprocess
    from pathlib import Path

    from django.conf import settings

    root = Path(settings.BASE_DIR)
    up = (root / "deploy" / "up.sh").read_text()
    assert 'export SIESTA_ECHO_WS="${SIESTA_ECHO_WS:-0}"' in up
    assert "bench.asgi:application" in up
    assert "bench.asgi" not in (root / "Procfile").read_text()
    env = {k: v for k, v in os.environ.items() if k != "SIESTA_ECHO_WS"}

    def dry_run(*args: str) -> str:
        return subprocess.run(
            ["make", "-n", "-s", "up", *args],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    dry, asked = dry_run(), dry_run("SIESTA_ECHO_WS=1")
    assert "SIESTA_ECHO_WS=0 deploy/up.sh" in dry
    assert "SIESTA_ECHO_WS=1 deploy/up.sh" in asked


@pytest.mark.requires_postgres
async def test_with_commit_the_frame_is_sent_after_its_transaction_takes_the_rooms_lock():
    """``?commit=1`` (``loadtest --commit-floor``): the skeleton of a move's transaction before the
    broadcast. While another session holds the room's lock, nothing is echoed; once it lets go,
    the frame is, to both sockets."""
    import psycopg
    from django.db import connection

    from bench.echo import room_lock_key

    db = connection.settings_dict
    holder = psycopg.connect(
        host=db["HOST"], port=db["PORT"] or 5432, user=db["USER"], dbname=db["NAME"],
        autocommit=True,
    )  # fmt: skip
    key = room_lock_key("echo.c")
    first = WebsocketCommunicator(application, "/ws/echo/c/?commit=1")
    second = WebsocketCommunicator(application, "/ws/echo/c/?commit=1")
    for socket in (first, second):
        assert (await socket.connect())[0]
    try:
        holder.execute("SELECT pg_advisory_lock(%s)", [key])
        await first.send_to(text_data='{"n": 2}')
        assert await second.receive_nothing(timeout=0.5)
        holder.execute("SELECT pg_advisory_unlock(%s)", [key])
        assert await second.receive_from(timeout=5) == '{"n": 2}'
        assert await first.receive_from(timeout=5) == '{"n": 2}'
    finally:
        holder.close()
        for socket in (first, second):
            await socket.disconnect()

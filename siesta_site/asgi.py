"""ASGI entry point: HTTP through Django, WebSockets through Channels.

Served with `daphne siesta_site.asgi:application` (`make run`).
"""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "siesta_site.settings")

# Set Django up before anything that imports models (routing, consumers).
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter
from django.conf import settings
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.urls import URLPattern

from core.metrics import start_process
from siesta_site.routing import (
    same_origin_validator,
    socket_auth_stack,
    websocket_urlpatterns,
    with_fallback,
)


def site_application(socket_routes: list[URLPattern]) -> ProtocolTypeRouter:
    """The site's ASGI application with these WebSocket routes (``bench.asgi`` adds the load
    benchmark's echo to the site's own)."""
    return ProtocolTypeRouter(
        {
            # In development static files come straight from the finders; in production WhiteNoise
            # serves the collected files.
            "http": ASGIStaticFilesHandler(django_asgi_app) if settings.DEBUG else django_asgi_app,
            # A foreign Origin is refused; scripts, which send none, sign in with a token.
            "websocket": same_origin_validator(
                # Session and user from the cookie, as Channels' AuthMiddlewareStack (routing.py).
                # types-channels types routes as its private _ExtendedURLPattern, not path().
                socket_auth_stack(URLRouter(with_fallback(socket_routes)))  # type: ignore[arg-type]
            ),
        }
    )


application = site_application(websocket_urlpatterns)

# The metrics (core/metrics.py): this web process's start, and its sampled gauges.
start_process("web")

# What the process made while starting (modules, settings, URL patterns, routing: about
# 150,000 objects) lives as long as it does. Frozen, the collector's full passes no longer walk it,
# only what the games and their sockets made since: a full pass under load took 100-200 ms, long
# enough to stall every socket of the process (docs/performance.md).
gc.collect()
gc.freeze()
# A young collection every 10,000 surviving allocations rather than 700: most of a move's objects
# die by reference count first, and at N=200 the server spent 3-12% less CPU per move, with
# a lower p99, in five alternating pairs of runs.
gc.set_threshold(10_000, 10, 10)

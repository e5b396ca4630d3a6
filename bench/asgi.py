"""The site with the load benchmark's echo socket (``/ws/echo/<room>/``, ``bench.echo``): what
``make up SIESTA_ECHO_WS=1`` serves instead of ``siesta_site.asgi`` (deploy/up.sh), so that
``python -m bench.loadtest`` can measure its floor. The site's own application never routes it."""

from __future__ import annotations

from django.urls import path

from siesta_site.asgi import site_application  # first: it sets Django up

# isort: split
from bench.echo import EchoConsumer
from siesta_site.routing import websocket_urlpatterns

application = site_application(
    [
        *websocket_urlpatterns,
        path("ws/echo/<str:room>/", EchoConsumer.as_asgi()),  # type: ignore[arg-type]
    ]
)

"""WebSocket routes, served by siesta_site.asgi under session auth and an Origin check."""

from django.urls import URLPattern

websocket_urlpatterns: list[URLPattern] = []

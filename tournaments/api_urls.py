"""REST API routes of the tournaments app, included under /api/."""

from django.urls import URLPattern, URLResolver

urlpatterns: list[URLPattern | URLResolver] = []

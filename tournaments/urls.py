"""Page routes of the tournaments app, included at the site root."""

from django.urls import URLPattern, URLResolver

urlpatterns: list[URLPattern | URLResolver] = []

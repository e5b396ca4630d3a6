"""Helpers for the site-wide audits: every route of the URL configuration."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import quote

from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RoutePattern

CONVERTER = re.compile(r"<(?:(\w+):)?\w+>")


def routes() -> Iterator[str]:
    """Every path route of the site (regex routes, i.e. the admin's, are left out), as written."""

    def walk(patterns: list, prefix: str) -> Iterator[str]:
        for pattern in patterns:
            if not isinstance(pattern.pattern, RoutePattern):
                continue
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                if not route.startswith("admin/"):
                    yield from walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern):
                yield route

    return walk(get_resolver().url_patterns, "")


def fill(route: str, *, number: int, text: str) -> str:
    """The route with ``number`` in its int parameters and ``text`` in the others."""

    def value(match: re.Match) -> str:
        return str(number) if match.group(1) == "int" else quote(text, safe="")

    return "/" + CONVERTER.sub(value, route)

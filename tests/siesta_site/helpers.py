"""Helpers for the site-wide audits: every route of the URL configuration."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from urllib.parse import quote

from django.conf import settings
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


def in_a_fresh_process(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` after ``django.setup()`` in a new interpreter (as a server, a worker or a shell
    starts), with the default settings; raises if it fails."""
    return subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
        env={"DJANGO_SETTINGS_MODULE": "siesta_site.settings", "PATH": "/usr/bin:/bin"},
        timeout=120,
        check=True,
    )

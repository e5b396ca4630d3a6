"""Every API route says what a personal access token needs for it, and docs/api.md's scope table
is that: the table and the views agree, and every view checks scopes (``SiestaApi``)."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver

from core.api.authentication import required_scope
from core.api.base import SiestaApi
from core.credentials import ANY_SCOPE

METHODS = ("get", "post", "put", "patch", "delete")
PUBLIC = {"/api/schema/", "/api/docs/"}
WORDS = {None: "refused", ANY_SCOPE: "any"}


def _api_views(patterns, prefix: str = ""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _api_views(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern) and prefix.startswith("api/"):
            route = prefix + str(pattern.pattern)
            route = re.sub(r"<(int|id|str):\w+_id>", "{id}", route)
            route = "/" + re.sub(r"<str:(\w+)>", r"{\1}", route)
            yield route, pattern.callback.view_class  # type: ignore[attr-defined]


def _real() -> dict[str, str]:
    scopes = {}
    for route, view in _api_views(get_resolver().url_patterns):
        if route in PUBLIC or view.authentication_classes == []:
            continue
        needs = [
            f"{method.upper()} {WORDS.get(scope, scope)}"
            for method in METHODS
            if hasattr(view, method)
            for scope in [required_scope(view(), method.upper())]
        ]
        scopes[route] = ", ".join(needs)
    return scopes


def _documented() -> dict[str, str]:
    text = (Path(settings.BASE_DIR) / "docs" / "api.md").read_text()
    section = text.split("## Tokens for bots and tools", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^\| `(/api/[^`]*)` \| ([^|]+?) \|$", section, flags=re.MULTILINE))


def test_every_api_view_checks_the_scopes_of_personal_tokens():
    loose = [
        route
        for route, view in _api_views(get_resolver().url_patterns)
        if route not in PUBLIC and not issubclass(view, SiestaApi)
    ]
    assert not loose


def test_the_documented_scopes_are_the_real_ones():
    assert _documented() == _real()

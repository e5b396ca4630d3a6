"""The Content-Security-Policy: every page is sent with it, and no page needs what it forbids
(inline scripts, inline styles, event handler attributes, assets from elsewhere)."""

from __future__ import annotations

import re

import pytest

from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.siesta_site.helpers import fill, routes

pytestmark = pytest.mark.django_db

INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", re.I)
INLINE_STYLE = re.compile(r"<style\b|\sstyle=", re.I)
HANDLER = re.compile(r"\son[a-z]+\s*=", re.I)
FOREIGN = re.compile(r"""(?:src|href)=["'](?:https?:)?//""", re.I)


def test_the_policy_allows_only_the_sites_own_assets(client):
    policy = client.get("/")["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["default-src"] == "'self'"
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["object-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"
    assert "unsafe" not in policy


def assert_clean(html: str, url: str) -> None:
    assert not INLINE_SCRIPT.search(html), (url, INLINE_SCRIPT.search(html))
    assert not INLINE_STYLE.search(html), (url, INLINE_STYLE.search(html))
    assert not HANDLER.search(html), (url, HANDLER.search(html))
    assert not FOREIGN.search(html), (url, FOREIGN.search(html))


@pytest.mark.parametrize("language", ["es", "de", "it", "fr"])
def test_the_rules_pages_of_every_language_are_clean(client, language):
    """Each language has its own rules template."""
    response = client.get("/rules/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    assert_clean(response.content.decode(), f"/rules/ ({language})")


def test_no_page_has_inline_scripts_styles_or_handlers(client):
    language = "en"
    user = UserFactory()
    game = make_game(users=[user, UserFactory()])
    finished = make_game()
    client.force_login(user)
    pages = 0
    for route in routes():
        for number in (game.pk, finished.pk):
            url = fill(route, number=number, text=user.username)
            response = client.get(url, HTTP_ACCEPT_LANGUAGE=language, HTTP_ACCEPT="text/html")
            if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
                continue
            assert "Content-Security-Policy" in response, url
            html = response.content.decode()
            if "rest_framework/css" in html:
                # DRF's browsable API (a developer's convenience beside the JSON) has a few inline
                # styles, which the policy refuses: only its looks suffer; its scripts are files.
                assert not INLINE_SCRIPT.search(html), url
                continue
            pages += 1
            assert_clean(html, url)
    assert pages > 10

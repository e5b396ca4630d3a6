"""Audit: no response reflects request data as markup. Every route of the site (found by walking
the URL configuration, so new routes are covered as they come) is requested with a script in each
path parameter and query parameter, anonymously and signed in, with DEBUG off and on; the forms
are posted with it. No HTML answer may carry it unescaped (``/leaderboard/?mode=<script>`` did)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings as django_settings

from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.siesta_site.helpers import fill, routes

pytestmark = pytest.mark.django_db

PAYLOAD = "<script>alert(1)</script>\"'><img src=x onerror=alert(2)>"
RAW = ("<script>alert(1)", "<img src=x onerror")
QUERY_NAMES = ["mode", "page", "status", "player", "next", "download", "q", "id", "lang"]


def assert_not_reflected(response, what: str) -> None:
    kind = response.get("Content-Type", "")
    body = response.content.decode(errors="replace") if not response.streaming else ""
    if "html" in kind:
        for raw in RAW:
            assert raw not in body, f"{what} reflects it unescaped ({response.status_code})"


@pytest.fixture
def signed_in(client):
    user = UserFactory()
    client.force_login(user)
    return client


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("who", ["anonymous", "signed_in"])
def test_no_route_reflects_request_data_as_markup(client, settings, debug, who):
    settings.DEBUG = debug
    if who == "signed_in":
        client.force_login(UserFactory())
    game = make_game()
    query = "&".join(f"{name}={quote(PAYLOAD)}" for name in QUERY_NAMES)
    seen = 0
    for route in routes():
        url = fill(route, number=game.pk, text=PAYLOAD)
        for accept in ("text/html", "application/json"):
            response = client.get(f"{url}?{query}", HTTP_ACCEPT=accept)
            assert response.status_code < 500, url
            assert_not_reflected(response, f"GET {url}")
            seen += 1
    assert seen > 20  # the walk found the site's routes


@pytest.mark.parametrize("debug", [False, True])
def test_unknown_paths_do_not_reflect_it(client, settings, debug):
    settings.DEBUG = debug
    for url in (f"/{quote(PAYLOAD)}/", f"/users/{quote(PAYLOAD)}/", f"/api/{quote(PAYLOAD)}"):
        response = client.get(url, HTTP_ACCEPT="text/html")
        assert response.status_code == 404
        assert_not_reflected(response, url)


def test_forms_posted_with_it_do_not_reflect_it(client):
    fields = {"username": PAYLOAD, "password": PAYLOAD, "password1": PAYLOAD, "password2": "x"}
    for url in ("/accounts/login/", "/accounts/register/"):
        response = client.post(url, fields)
        assert response.status_code in (200, 400)
        assert_not_reflected(response, f"POST {url}")
    client.force_login(UserFactory())
    lobby = client.post(
        "/play/", {name: PAYLOAD for name in ("players", "mode", "variant", "seat_2", "rated")}
    )
    assert_not_reflected(lobby, "POST /play/")
    language = client.post("/i18n/setlang/", {"language": PAYLOAD, "next": PAYLOAD})
    assert_not_reflected(language, "POST /i18n/setlang/")


def test_a_csrf_failure_does_not_reflect_it():
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    response = strict.post(
        "/accounts/login/", {"username": PAYLOAD}, HTTP_REFERER=PAYLOAD, HTTP_ORIGIN=PAYLOAD
    )
    assert response.status_code == 403
    assert_not_reflected(response, "CSRF failure")


def test_the_page_scripts_never_write_markup():
    """Server text (error frames, usernames, moves) reaches the page through textContent only."""
    scripts = Path(django_settings.BASE_DIR, "static", "js").glob("*.js")
    for script in scripts:
        source = script.read_text()
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            assert sink not in source, f"{script.name} uses {sink}"

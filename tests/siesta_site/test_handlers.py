"""The site's own error answers (siesta_site.handlers) and the ``<id:...>`` converter."""

from __future__ import annotations

import json

import pytest
from django.test import RequestFactory
from django.urls import Resolver404, resolve

from core.converters import MAX_ID, id_of
from siesta_site import handlers


@pytest.mark.parametrize(
    ("handler", "status", "code"),
    [
        (lambda r: handlers.not_found(r, Exception()), 404, "not_found"),
        (lambda r: handlers.bad_request(r, Exception()), 400, "invalid"),
        (lambda r: handlers.permission_denied(r, Exception()), 403, "not_allowed"),
        (handlers.server_error, 500, "server_error"),
    ],
)
def test_api_errors_are_json_and_pages_are_html(handler, status, code):
    api = handler(RequestFactory().get("/api/games/x/"))
    page = handler(RequestFactory().get("/games/x/"))

    assert (api.status_code, page.status_code) == (status, status)
    assert api["Content-Type"] == "application/json"
    body = json.loads(api.content)
    assert body["code"] == code
    assert body["error"]
    assert page["Content-Type"].startswith("text/html")


def test_a_plain_error_page_escapes_its_message():
    page = handlers.plain_error(413, "Content Too Large (413)", "<b>too big</b>")
    assert b"&lt;b&gt;too big&lt;/b&gt;" in page.content
    assert page.status_code == 413


def test_ids_match_up_to_the_largest_64_bit_integer():
    assert resolve(f"/api/games/{MAX_ID}/").kwargs == {"game_id": MAX_ID}
    assert resolve("/puzzles/0/").kwargs == {"puzzle_id": 0}
    for path in (f"/api/games/{MAX_ID + 1}/", "/games/-1/", "/games/1e3/", f"/games/{'9' * 5000}/"):
        with pytest.raises(Resolver404):
            resolve(path)


def test_a_sockets_id_is_read_by_the_same_rule_as_a_routes():
    """``id_of`` (the game and tournament sockets' paths, the analysis board's ``?game=``) and the
    ``<id:...>`` converter take the same ids: up to 2⁶³ - 1, ASCII digits, leading zeros too."""
    assert id_of(str(MAX_ID)) == MAX_ID
    assert id_of("0" * 5000 + "7") == 7
    assert resolve(f"/games/{'0' * 5000}7/").kwargs == {"game_id": 7}
    assert resolve("/games/0000000000000000000000001/").kwargs == {"game_id": 1}
    for text in (str(MAX_ID + 1), "9" * 5000, "", "-1", "1e3", "١٢", " 1", "1\x00"):
        assert id_of(text) is None


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [True, False])
def test_an_unknown_api_address_is_json_with_or_without_debug(client, settings, debug):
    """With DEBUG Django answers its technical 404 page and never asks handler404: the
    middleware keeps ``/api/`` in JSON, pages keep their HTML, the API's own 404s pass."""
    settings.DEBUG = debug

    unknown = client.get("/api/no-such-thing/")
    missing_game = client.get(f"/api/games/{MAX_ID}/")
    page = client.get("/no-such-page/")

    assert unknown.status_code == 404
    assert unknown["Content-Type"] == "application/json"
    assert unknown.json() == {"error": "There is nothing at this address.", "code": "not_found"}
    assert missing_game.status_code == 404
    assert missing_game.json()["code"] == "not_found"
    assert missing_game.json()["error"] != unknown.json()["error"]  # the API's own, kept
    assert page.status_code == 404
    assert page["Content-Type"].startswith("text/html")

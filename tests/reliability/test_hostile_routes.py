"""Every route and socket of the site, probed with the input that used to answer 500 (issue 31):
an id past a 64-bit integer, an id that is no number, a NUL character in the path, the query
string, a form or a JSON body, bodies over the upload limit, and a deeply nested ``?r=`` link.

The routes are enumerated from the URL resolver, so a route added later is probed too. For each
answer: below 500, JSON ``{"error", ...}`` under ``/api/``, and nothing logged at ERROR. The walk
runs on whichever database DATABASE_URL selects (SQLite by default: hand-written SQL overflowed
there); the NUL cases that only PostgreSQL refuses run again, marked ``requires_postgres``.
"""

from __future__ import annotations

import base64
import json
import logging
import re
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.db import connection
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from core.converters import MAX_ID
from games.models import Game
from siesta_site.asgi import application
from siesta_site.routing import websocket_urlpatterns
from social.models import ChatMessage
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.games.test_hostile_input import _exchange

TOO_BIG = str(MAX_ID + 1)
PLACEHOLDER = re.compile(r"<(?:(\w+):)?(\w+)>")
GROUP = re.compile(r"\(\?P<(\w+)>[^)]*\)")
ID_CONVERTERS = {"id", "int"}
DOCS = ("/api/schema/", "/api/docs/")
"""The API's documentation (YAML, HTML): below 500 like the rest, but not JSON."""


def _routes(patterns: list[Any], prefix: str = "") -> list[tuple[str, str]]:
    """(route template, name) of every URL pattern, included ones too."""
    found: list[tuple[str, str]] = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            found += _routes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            route = prefix + str(pattern.pattern)
            found.append((route, pattern.name or route))
    return found


ROUTES = sorted(set(_routes(get_resolver().url_patterns)))


def fill(route: str, *, number: str, text: str) -> str:
    """The route's path with every id replaced by ``number`` and every other value by ``text``
    (regex routes of the admin: each named group by ``text``)."""
    path = GROUP.sub(text, route).replace("^", "").replace("$", "")
    return "/" + PLACEHOLDER.sub(
        lambda m: number if (m.group(1) or "str") in ID_CONVERTERS else text, path
    )


def has_id(route: str) -> bool:
    return any((m.group(1) or "str") in ID_CONVERTERS for m in PLACEHOLDER.finditer(route))


def has_text(route: str) -> bool:
    return bool(GROUP.search(route)) or any(
        (m.group(1) or "str") not in ID_CONVERTERS for m in PLACEHOLDER.finditer(route)
    )


@pytest.fixture
def no_errors_logged(caplog):
    caplog.set_level(logging.WARNING)
    yield
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage()[:300] for r in errors[:3]]


@pytest.fixture
def site(db):
    """A staff player seated in a game (so every page, the admin's too, answers for real)."""
    alice = UserFactory(username="alice", is_staff=True, is_superuser=True)
    game = make_game(users=[alice, UserFactory(username="bob")])
    return game, alice


def _client(who: str, user: Any) -> APIClient:
    client = APIClient(REMOTE_ADDR="192.0.2.20")
    if who == "staff":
        client.force_login(user)
    return client


def check(response: Any, path: str, status: int | None = None) -> None:
    """Below 500 (exactly ``status`` when given); under /api/ a refusal is JSON with "error"."""
    where = (path, response.status_code, response.content[:200])
    assert response.status_code < 500, where
    if status is not None:
        assert response.status_code == status, where
    if path.startswith("/api/") and not path.startswith(DOCS) and response.status_code >= 400:
        assert response["Content-Type"].startswith("application/json"), where
        assert "error" in response.json(), where


def probe(client: APIClient, route: str, game_id: int) -> None:
    """One route, every hostile variant."""
    real = fill(route, number=str(game_id), text="alice")
    api = real.startswith("/api/")
    for method in ("get", "post", "patch", "delete") if api else ("get", "post"):
        send = getattr(client, method)
        huge = fill(route, number=TOO_BIG, text=TOO_BIG)  # also where a view reads the number
        check(send(huge), huge)
        if has_id(route):
            for number in (TOO_BIG, "abc", "9" * 5000):
                path = fill(route, number=number, text="alice")
                response = send(path)
                check(response, path, 404)
                if api:
                    assert response.json()["code"] == "not_found"
        if has_text(route):
            path = fill(route, number=str(game_id), text="a%00b")
            check(send(path), path, 400)
        check(send(f"{real}?x=a%00b"), real, 400)
        check(send(f"{real}?a%00b=1"), real, 400)
        if method != "get":
            check(send(real, {"move": "SA1\x00", "text": "\x00"}, format="json"), real)
        if method == "post":
            form = "move=SA1%00&text=%00&username=a%00b"
            response = send(real, form, content_type="application/x-www-form-urlencoded")
            check(response, real, None if api else 400)  # the API reads no form: 415 or less
    if api:  # a JSON body's NUL is refused by the parser, wherever the view reads the body
        for body in ({"move": "SA1\x00", "ply": 0}, {"a\x00": 1}, ["\x00"]):
            check(client.post(real, body, format="json"), real)


@pytest.mark.parametrize("who", ["anonymous", "staff"])
@pytest.mark.parametrize(("route", "name"), ROUTES, ids=[name for _route, name in ROUTES])
def test_every_route_refuses_hostile_input_with_a_4xx(site, no_errors_logged, who, route, name):
    game, alice = site
    probe(_client(who, alice), route, game.pk)


def test_the_probe_covers_the_routes_of_the_issue():
    names = {name for _route, name in ROUTES}
    assert {
        "api-game-moves",
        "api-game-resign",
        "api-game-join",
        "api-game-cancel",
        "api-game-hint",
        "profile",
        "api-user-ratings",
        "api-presence",
        "analysis",
        "api-puzzle-attempt",
        "api-puzzle-give-up",
    } <= names


def test_every_id_in_a_route_is_the_64_bit_converter():
    """``<int:...>`` lets an id past 64 bits through to the database: routes use ``<id:...>``."""
    plain_int = [route for route, _name in ROUTES if "<int:" in route]
    assert not plain_int


# -- the reported inputs, one by one ----------------------------------------------------------


@pytest.mark.parametrize("action", ["moves", "resign", "join", "cancel", "hint"])
def test_a_game_id_past_64_bits_on_the_game_actions_is_a_json_404(site, no_errors_logged, action):
    _game, alice = site
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=alice).key}")

    response = client.post(f"/api/games/{TOO_BIG}/{action}/", {"move": "SA1", "ply": 0}, "json")

    assert response.status_code == 404
    assert response.json() == {"error": "There is nothing at this address.", "code": "not_found"}


def test_a_non_numeric_id_on_the_api_is_a_json_404_and_a_page_404_elsewhere(db):
    client = APIClient()
    api = client.get("/api/games/abc/")
    assert (api.status_code, api.json()["code"]) == (404, "not_found")
    page = client.get("/games/abc/")
    assert page.status_code == 404
    assert page["Content-Type"].startswith("text/html")


NUL_INPUTS = [
    "/users/a%00b/",
    "/api/users/a%00b/ratings/",
    "/api/presence/?users=a%00b",
    "/puzzles/?theme=%00",
    "/api/games/?player=a%00b",
]


def _nul_inputs_refused(client: APIClient) -> None:
    for path in NUL_INPUTS:
        response = client.get(path)
        assert response.status_code == 400, path
        if path.startswith("/api/"):
            assert response.json()["code"] == "invalid"
    session = client.cookies.get("sessionid")
    assert session is None or "\x00" not in session.value


@pytest.mark.parametrize("who", ["anonymous", "staff"])
def test_nul_characters_are_refused_with_a_400(site, no_errors_logged, who):
    _nul_inputs_refused(_client(who, site[1]))


@pytest.mark.requires_postgres
@pytest.mark.parametrize("who", ["anonymous", "staff"])
def test_nul_characters_never_reach_postgresql(site, no_errors_logged, who):
    assert connection.vendor == "postgresql"
    _nul_inputs_refused(_client(who, site[1]))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token abc\x00def")
    assert client.get("/api/games/").status_code == 400
    client = APIClient()
    client.cookies["sessionid"] = "abcdefgh\x00ijklmnop"
    assert client.get("/").status_code == 400


def test_a_nul_in_a_json_body_is_a_400_naming_it(site, no_errors_logged):
    game, alice = site
    client = APIClient()
    client.force_login(alice)

    response = client.post(f"/api/games/{game.pk}/moves/", {"move": "SA1\x00", "ply": 0}, "json")

    assert response.status_code == 400
    assert response.json() == {
        "error": "The JSON holds a NUL character, which no value may hold.",
        "code": "parse_error",
    }


BIG_BODY = 3 * 1024 * 1024  # over DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB)


@pytest.mark.parametrize(
    "content_type",
    ["application/x-www-form-urlencoded", "application/json", "multipart/form-data; boundary=x"],
)
def test_a_body_over_the_limit_is_a_413_without_an_error_log(db, no_errors_logged, content_type):
    client = APIClient()
    body = "x=" + "a" * BIG_BODY

    api = client.post("/api/games/", body, content_type=content_type)
    page = client.post("/accounts/login/", body, content_type=content_type)

    assert api.status_code == 413
    assert api.json() == {
        "error": "The body is too large: at most 2621440 bytes.",
        "code": "body_too_large",
    }
    assert page.status_code == 413
    assert page["Content-Type"].startswith("text/html")
    assert b"at most 2621440 bytes" in page.content


def test_a_form_django_will_not_parse_is_a_400_without_an_error_log(site, no_errors_logged):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=site[1]).key}")
    many = "&".join(f"f{i}=1" for i in range(1500))  # over DATA_UPLOAD_MAX_NUMBER_FIELDS
    broken = "--x\r\nContent-Disposition: form-data; name=a\r\n\r\n"  # never closed
    urlencoded, multipart = "application/x-www-form-urlencoded", "multipart/form-data"

    check(client.post("/accounts/login/", many, content_type=urlencoded), "/", 400)
    check(client.post("/accounts/login/", broken, content_type=multipart), "/", 400)
    lenient = client.post("/accounts/login/", broken, content_type=f"{multipart}; boundary=x")
    check(lenient, "/")  # read leniently, as Django does
    # The API reads JSON only: a form of any kind is a 415, unread.
    for body, kind in (
        (many, urlencoded),
        (broken, multipart),
        (broken, f"{multipart}; boundary=x"),
    ):
        check(client.post("/api/games/", body, content_type=kind), "/api/games/", 415)
    check(client.get("/api/games/?" + many), "/api/games/", 400)
    assert not Game.objects.exclude(pk=site[0].pk).exists()


def _link(value: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "r",
    [
        _link([[[[[[]]]]]] * 2),
        base64.urlsafe_b64encode(b"[" * 5000 + b"]" * 5000).decode(),
        base64.urlsafe_b64encode(b"[" * 60000 + b"]" * 60000).decode(),
        _link({"players": 2, "moves": "x" * 20000}),
        "%00",
    ],
    ids=["not-a-record", "nested-5000", "nested-60000-too-long", "too-long", "nul"],
)
def test_a_nested_or_oversized_analysis_link_gets_a_clean_answer(db, no_errors_logged, client, r):
    response = client.get(f"/analysis/?r={r}&ply=1")

    assert response.status_code in (200, 400)
    if response.status_code == 200:
        assert response.context["initial"]["error"] == (
            "The link does not hold a readable game record."
        )


def test_a_unicode_digit_as_the_analysis_game_is_a_clean_error(db, client, no_errors_logged):
    response = client.get("/analysis/?game=%C2%B2")  # "²" passes str.isdigit()
    assert response.status_code == 200
    assert response.context["initial"]["error"] == "There is no game ²."


# -- sockets ----------------------------------------------------------------------------------

SOCKET_ROUTES = [str(p.pattern) for p in websocket_urlpatterns if "<" in str(p.pattern)]
NUL_FRAMES = [
    {"type": "chat", "text": "\x00"},
    {"type": "chat", "text": "hello\x00world"},
    {"type": "auth", "token": "abc\x00"},
    {"type": "move", "move": "SA1\x00", "ply": 0, "id": "\x00"},
    {"type": "chat", "preset": "\x00"},
]


async def _close_code(path: str) -> int | None:
    """The close code of a socket at ``path`` (None: it stayed open)."""
    socket = WebsocketCommunicator(application, path)
    connected, code = await socket.connect(timeout=10)
    if not connected:
        return code
    while True:
        output = await socket.receive_output(timeout=10)
        if output["type"] == "websocket.close":
            return output.get("code")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("route", SOCKET_ROUTES)
@pytest.mark.parametrize("value", [TOO_BIG, "abc", "a%00b", "9" * 5000])
def test_every_socket_route_closes_on_a_hostile_id_without_an_error(no_errors_logged, route, value):
    path = "/" + PLACEHOLDER.sub(value, route)
    assert async_to_sync(_close_code)(path) == 4404


async def _game_socket_frames(game_id: int, token: str) -> list[dict[str, Any]]:
    socket = WebsocketCommunicator(application, f"/ws/games/{game_id}/")
    connected, _ = await socket.connect(timeout=10)
    assert connected
    replies = await _exchange(socket, json.dumps({"type": "auth", "token": token}))
    assert [r["type"] for r in replies] == ["auth", "state"]  # a script's handshake
    for frame in NUL_FRAMES:
        replies += await _exchange(socket, json.dumps(frame))
    await socket.disconnect(timeout=10)
    return replies


async def _lobby_frames() -> list[dict[str, Any]]:
    socket = WebsocketCommunicator(application, "/ws/lobby/")
    connected, _ = await socket.connect(timeout=10)
    assert connected
    replies = []
    # The refused auth holds the welcome back (another token may follow); the next frame opens.
    for frame in ({"type": "auth", "token": "abc\x00"}, {"type": "x\x00"}):
        await socket.send_to(text_data=json.dumps(frame))
        replies.append(await socket.receive_json_from(timeout=10))
    assert replies.pop()["type"] == "welcome"
    replies.append(await socket.receive_json_from(timeout=10))
    await socket.disconnect(timeout=10)
    return replies


def _nul_frames_get_error_frames(game: Game, alice: Any) -> None:
    token = Token.objects.create(user=alice).key
    replies = async_to_sync(_game_socket_frames)(game.pk, token)
    errors = [r for r in replies if r["type"] == "error"]
    assert len(errors) == len(NUL_FRAMES), replies
    assert errors[0]["error"] == "A chat message cannot hold a NUL character."
    assert not ChatMessage.objects.exists()
    lobby = async_to_sync(_lobby_frames)()
    assert [r["type"] for r in lobby] == ["error", "error"]
    assert lobby[0]["error"] == "Invalid token."


@pytest.mark.django_db(transaction=True)
def test_nul_characters_in_socket_frames_get_error_frames(no_errors_logged):
    alice = UserFactory(username="alice")
    game = make_game(users=[alice, UserFactory(username="bob")])
    _nul_frames_get_error_frames(game, alice)


@pytest.mark.requires_postgres
@pytest.mark.django_db(transaction=True)
def test_nul_characters_in_socket_frames_never_reach_postgresql(no_errors_logged):
    assert connection.vendor == "postgresql"
    alice = UserFactory(username="alice")
    game = make_game(users=[alice, UserFactory(username="bob")])
    _nul_frames_get_error_frames(game, alice)

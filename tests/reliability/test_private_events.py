"""Private means private: an invitation-only tournament, its players and its games do not exist
for a stranger (anonymous, or signed in and neither in it nor holding its link).

Every route is walked from the URL resolver (as ``test_hostile_routes`` does), so a route added
later is walked too: each one taking a tournament id or a game id, given the id of the private
tournament or of one of its games, answers a stranger exactly as it answers an id that does not
exist (the same status, the same body but for the id), whatever the method, and never names the
tournament or its players. The lists (home, lobby, tournaments, games, a player's page and
export) and the sockets are read as a stranger too. The walk runs on whichever database
DATABASE_URL selects (SQLite by default; PostgreSQL in CI).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games.models import Game
from siesta_site.asgi import application
from tests.factories import UserFactory
from tests.reliability.test_hostile_routes import ROUTES, fill
from tests.social.sockets import session_headers
from tests.tournaments.helpers import committed, finish, round_games, start
from tournaments import services
from tournaments.models import Tournament

NAME = "Quiet Cup Zq7"
PLAYERS = ["hush_ana", "hush_ben", "hush_cid", "hush_dee"]
PASSWORD = "open sesame"
TIMEOUT = 10
SECRET_WORDS = [NAME, *PLAYERS]


@pytest.fixture(autouse=True)
def _no_analyses(monkeypatch):
    """Game analyses left out: each would replay its game with the engine's search."""
    monkeypatch.setattr("games.services.enqueue_analysis", lambda game_id: None)


@dataclass
class Event:
    tournament: Tournament
    finished: Game
    active: Game
    players: list[Any]
    outsider: Any
    unknown_tournament: int
    unknown_game: int


def make_event() -> Event:
    """An invitation-only Swiss with a password, four players in, round 1 paired: one game
    over, one under way."""
    tournament = services.tournament_create(
        user=None,
        name=NAME,
        format="swiss",
        table_size=2,
        mode="ffa",
        variant="standard",
        rounds=2,
        turn_seconds=120,
        max_players=16,
        min_players=2,
        starts_at=timezone.now() + timedelta(hours=1),
        visibility="invite",
        password=PASSWORD,
    )
    players = [UserFactory(username=name) for name in PLAYERS]
    for user in players:
        services.tournament_join(
            tournament_id=tournament.pk,
            user=user,
            invite=tournament.invite_token,
            password=PASSWORD,
        )
    tournament = start(tournament)
    first, second = round_games(tournament)
    finish(first)
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.status == Game.Status.FINISHED
    assert second.status == Game.Status.ACTIVE
    assert first.private
    assert second.private
    outsider = UserFactory(username="outsider")
    return Event(
        tournament=tournament,
        finished=first,
        active=second,
        players=players,
        outsider=outsider,
        unknown_tournament=tournament.pk + 1000,
        unknown_game=second.pk + 1000,
    )


@pytest.fixture
def event(db) -> Event:
    return make_event()


def _client(who: str, event: Event) -> APIClient:
    client = APIClient(REMOTE_ADDR="192.0.2.30")
    if who == "outsider":
        client.force_login(event.outsider)
    return client


VOLATILE = [
    re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"'),
    re.compile(r'nonce="[^"]*"'),
    re.compile(r'"csrfToken": "[^"]*"'),
]


def _normal(body: bytes, number: int) -> str:
    """The body with the id asked for and what changes on every answer (CSRF tokens, CSP
    nonces) blanked out."""
    text = body.decode()
    for pattern in VOLATILE:
        text = pattern.sub("", text)
    # Where an id stands in an answer: "There is no game 7.", a path, a link's query.
    places = r"(?:(?<=[gG]ame )|(?<=nament )|(?<=game=))"
    return re.sub(rf"{places}{number}\b|(?<=/){number}(?=/)", "ID", text)


def _secret_free(body: bytes, where: Any) -> None:
    text = body.decode(errors="replace")
    for word in SECRET_WORDS:
        assert word not in text, (where, word, text[:300])


ID_ROUTES = [
    (route, name)
    for route, name in ROUTES
    if "<id:tournament_id>" in route or "<id:game_id>" in route
]


def test_the_walk_covers_the_tournament_and_game_routes():
    names = {name for _route, name in ID_ROUTES}
    assert {
        "tournament",
        "tournament_join",
        "tournament_leave",
        "tournament_pause",
        "tournament_cancel",
        "tournament_edit",
        "tournament_live",
        "api-tournament",
        "api-tournament-join",
        "api-tournament-leave",
        "api-tournament-pause",
        "game",
        "game_replay",
        "game_join",
        "game_cancel",
        "api-game",
        "api-game-moves",
        "api-game-record",
        "api-game-analysis",
        "api-game-rematch",
    } <= names


READS = {
    "tournament",
    "tournament_live",
    "api-tournament",
    "game",
    "game_replay",
    "api-game",
    "api-game-record",
    "api-game-analysis",
    "api-game-rematch",
}
"""The routes that read: a stranger's GET is a 404 (elsewhere the unknown id's own answer: a
405 for a route that only writes, the sign-in for a page that needs it)."""


def _ask(client: APIClient, method: str, path: str) -> Any:
    send = getattr(client, method)
    if method == "get":
        return send(path)
    body = {"invite": "", "password": "guess", "move": "SA1", "ply": 0, "name": "x"}
    if path.startswith("/api/"):
        return send(path, body, format="json")
    return send(path, body)


@pytest.mark.parametrize("who", ["anonymous", "outsider"])
@pytest.mark.parametrize(("route", "name"), ID_ROUTES, ids=[name for _route, name in ID_ROUTES])
def test_a_stranger_gets_what_an_unknown_id_gets(event, who, route, name):
    client = _client(who, event)
    if "<id:tournament_id>" in route:
        private = [event.tournament.pk]
        unknown = event.unknown_tournament
    else:
        private = [event.finished.pk, event.active.pk]
        unknown = event.unknown_game
    methods = ("get", "post", "patch", "delete") if route.startswith("api/") else ("get", "post")
    for method in methods:
        missing = _ask(client, method, fill(route, number=str(unknown), text="x"))
        for number in private:
            path = fill(route, number=str(number), text="x")
            answer = _ask(client, method, path)
            where = (method, path, answer.status_code, answer.content[:200])
            assert answer.status_code == missing.status_code, where
            if method == "get" and name in READS:
                assert answer.status_code == 404, where
            assert _normal(answer.content, number) == _normal(missing.content, unknown), where
            _secret_free(answer.content, where)


def test_the_people_in_it_see_it(event):
    """The control: what strangers cannot see, its players and its link's holders can."""
    ana = APIClient()
    ana.force_login(event.players[0])
    assert ana.get(f"/tournaments/{event.tournament.pk}/").status_code == 200
    assert ana.get(f"/api/tournaments/{event.tournament.pk}/").json()["name"] == NAME
    for game in (event.finished, event.active):
        assert ana.get(f"/games/{game.pk}/").status_code == 200  # a game of the event
        assert ana.get(f"/api/games/{game.pk}/").status_code == 200
    page = ana.get(f"/games/{event.finished.pk}/")
    assert b"Back to the tournament" in page.content
    assert NAME.encode() in page.content
    holder = APIClient()
    holder.force_login(event.outsider)
    link = f"/tournaments/{event.tournament.pk}/?invite={event.tournament.invite_token}"
    assert holder.get(link).status_code == 200
    staff = APIClient()
    staff.force_login(UserFactory(is_staff=True))
    assert staff.get(f"/games/{event.active.pk}/").status_code == 200


def _json_ids(body: bytes) -> set[int]:
    data = json.loads(body)
    rows = data["results"] if isinstance(data, dict) else data
    return {row["id"] for row in rows}


@pytest.mark.parametrize("who", ["anonymous", "outsider"])
def test_no_list_shows_the_event_or_its_games(event, who):
    client = _client(who, event)
    games = {event.finished.pk, event.active.pk}
    pages = [
        "/",
        "/play/",
        "/play/?lists=1",
        "/tournaments/",
        f"/users/{PLAYERS[0]}/",
        f"/users/{PLAYERS[1]}/",
    ]
    for path in pages:
        answer = client.get(path)
        assert answer.status_code == 200, path
        text = answer.content.decode()
        assert NAME not in text, path
        for game_id in games:
            assert f"/games/{game_id}/" not in text, path
        if path.startswith(("/play/", "/tournaments/")):  # ratings stay public (leaders)
            for player in PLAYERS:
                assert player not in text, (path, player)
    for path in ("/api/tournaments/", "/api/games/", "/api/games/?status=active"):
        answer = client.get(path)
        assert answer.status_code == 200, path
        _secret_free(answer.content, path)
        assert not games & _json_ids(answer.content), path
    export = client.get(f"/api/users/{PLAYERS[0]}/games/export/")
    assert export.status_code == 200
    exported = b"".join(export.streaming_content)
    assert not {json.loads(line)["id"] for line in exported.splitlines()} & games
    analysis = client.get(f"/analysis/?game={event.finished.pk}")
    missing = client.get(f"/analysis/?game={event.unknown_game}")
    assert _normal(analysis.content, event.finished.pk) == _normal(
        missing.content, event.unknown_game
    )


def test_a_player_still_finds_their_own_private_games(event):
    ana = APIClient()
    ana.force_login(event.players[0])
    mine = {g.pk for g in (event.finished, event.active) if g.seats.filter(user=event.players[0])}
    listed = _json_ids(ana.get(f"/api/games/?player={PLAYERS[0]}").content)
    assert mine <= listed
    exported = b"".join(ana.get(f"/api/users/{PLAYERS[0]}/games/export/").streaming_content)
    finished_mine = {event.finished.pk} & mine
    assert finished_mine <= {json.loads(line)["id"] for line in exported.splitlines()}


# -- sockets ------------------------------------------------------------------------------------


async def _first_frame_and_close(path: str, headers: list[tuple[bytes, bytes]]) -> tuple[Any, Any]:
    socket = WebsocketCommunicator(application, path, headers)
    connected, _ = await socket.connect(timeout=TIMEOUT)
    assert connected
    try:
        first = await socket.receive_json_from(timeout=TIMEOUT)
        closed = await socket.receive_output(timeout=TIMEOUT)
    finally:
        await socket.disconnect(timeout=TIMEOUT)
    return first, closed


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("who", ["anonymous", "outsider"])
async def test_the_sockets_refuse_a_stranger_as_an_unknown_id(who):
    event = await database_sync_to_async(make_event)()
    user = event.outsider if who == "outsider" else None
    headers = await database_sync_to_async(session_headers)(user)
    cases = [
        ("tournaments", event.tournament.pk, event.unknown_tournament),
        ("games", event.finished.pk, event.unknown_game),
        ("games", event.active.pk, event.unknown_game),
    ]
    for kind, private, unknown in cases:
        seen = await _first_frame_and_close(f"/ws/{kind}/{private}/", headers)
        missing = await _first_frame_and_close(f"/ws/{kind}/{unknown}/", headers)
        assert seen[1] == missing[1] == {"type": "websocket.close", "code": 4404}, seen
        text = json.dumps(seen[0])
        assert text.replace(str(private), "ID") == json.dumps(missing[0]).replace(
            str(unknown), "ID"
        )
        for word in SECRET_WORDS:
            assert word not in text


@pytest.mark.django_db(transaction=True)
async def test_a_script_is_told_after_its_auth():
    """A script (no Origin, no session) signs in with its token as its first message: an
    outsider's socket is then closed as for an unknown game, a player's gets the state."""
    event = await database_sync_to_async(make_event)()
    for user, allowed in ((event.outsider, False), (event.players[0], True)):
        token = await database_sync_to_async(lambda u: Token.objects.create(user=u).key)(user)
        socket = WebsocketCommunicator(application, f"/ws/games/{event.active.pk}/")
        connected, _ = await socket.connect(timeout=TIMEOUT)
        assert connected
        try:
            await socket.send_json_to({"type": "auth", "token": token})
            assert (await socket.receive_json_from(timeout=TIMEOUT))["type"] == "auth"
            frame = await socket.receive_json_from(timeout=TIMEOUT)
            if allowed:
                assert frame["type"] == "state"
                assert frame["game"]["id"] == event.active.pk
            else:
                assert frame["type"] == "error"
                assert frame["error"] == f"There is no game {event.active.pk}."
                closed = await socket.receive_output(timeout=TIMEOUT)
                assert closed == {"type": "websocket.close", "code": 4404}
        finally:
            await socket.disconnect(timeout=TIMEOUT)


@pytest.mark.django_db(transaction=True)
async def test_a_player_watches_the_tournament_and_its_games():
    event = await database_sync_to_async(make_event)()
    headers = await database_sync_to_async(session_headers)(event.players[0])
    for path, kind in (
        (f"/ws/tournaments/{event.tournament.pk}/", "tournament"),
        (f"/ws/games/{event.active.pk}/", "state"),
    ):
        socket = WebsocketCommunicator(application, path, headers)
        connected, _ = await socket.connect(timeout=TIMEOUT)
        assert connected
        try:
            assert (await socket.receive_json_from(timeout=TIMEOUT))["type"] == kind
        finally:
            await socket.disconnect(timeout=TIMEOUT)


def test_a_tournament_made_public_opens_its_games_and_private_again_closes_them(event):
    staff = UserFactory(is_staff=True)
    committed(
        services.tournament_update,
        tournament_id=event.tournament.pk,
        user=staff,
        visibility="public",
    )
    assert not Game.objects.filter(pk__in=[event.finished.pk, event.active.pk], private=True)
    assert APIClient().get(f"/games/{event.active.pk}/").status_code == 200
    committed(
        services.tournament_update,
        tournament_id=event.tournament.pk,
        user=staff,
        visibility="invite",
    )
    assert APIClient().get(f"/games/{event.active.pk}/").status_code == 404

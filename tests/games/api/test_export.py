"""``GET /api/users/{username}/games/export/``: a person's finished games as NDJSON, streamed
page by page, each line the game's record as ``/api/games/{id}/record/`` gives it."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from asgiref.sync import async_to_sync
from django.db import connection
from django.test import AsyncClient
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import services
from games.api import export
from games.api.serializers import ExportedGameSerializer
from games.engine.record import GameRecord, replay_report
from games.models import Game
from tests.factories import UserFactory
from tests.games.api.helpers import best_move, play, token_client
from tests.games.factories import make_game

pytestmark = pytest.mark.django_db


def export_url(username: str) -> str:
    return reverse("api-user-games-export", args=[username])


def finished_game(alice, bob, *, on: datetime, turns: int = 1) -> Game:
    """A game between them with ``turns`` played, then resigned by bob, finished ``on``."""
    game = make_game(users=[alice, bob])
    clients = [token_client(alice), token_client(bob)]
    for ply in range(turns):
        play(clients[ply % 2], game.pk, best_move(game.pk), ply)
    services.game_resign(game_id=game.pk, user=bob)
    Game.objects.filter(pk=game.pk).update(finished_at=on)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


def lines_of(response) -> list[dict]:
    body = b"".join(response.streaming_content).decode()
    assert body == "" or body.endswith("\n")
    return [json.loads(line) for line in body.splitlines()]


def day(n: int) -> datetime:
    return datetime(2026, 11, n, 12, 0, tzinfo=UTC)


def test_each_line_is_the_game_record_with_its_id(anon, alice, bob):
    games = [finished_game(alice, bob, on=day(n), turns=n % 3 + 1) for n in (3, 1, 2)]
    make_game(users=[alice, bob])  # still playing: not exported

    response = anon.get(export_url("alice"))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-ndjson"
    assert response.streaming
    lines = lines_of(response)
    oldest_first = sorted(games, key=lambda g: g.finished_at)
    assert [line["id"] for line in lines] == [g.pk for g in oldest_first]
    for line, game in zip(lines, oldest_first, strict=True):
        record = anon.get(reverse("api-game-record", args=[game.pk])).json()
        assert line == {
            "id": game.pk,
            "finished_at": f"2026-11-{game.finished_at.day:02d}T12:00:00Z",
            **record,
        }
        assert set(line) == set(ExportedGameSerializer().fields)  # the schema's ExportedGame
        # The engine replays a line as it is (it ignores the id and the finish).
        assert replay_report(GameRecord.from_json(line))["error"] is None


def test_since_and_until_are_utc_days_both_included(anon, alice, bob):
    games = {n: finished_game(alice, bob, on=day(n)) for n in (1, 2, 3, 4)}

    def ids(query: str) -> list[int]:
        return [line["id"] for line in lines_of(anon.get(export_url("alice") + query))]

    assert ids("?since=2026-11-02&until=2026-11-03") == [games[2].pk, games[3].pk]
    assert ids("?since=2026-11-04") == [games[4].pk]
    assert ids("?until=2026-11-01") == [games[1].pk]
    assert ids("?since=2026-11-05") == []
    assert ids("?since=2026-11-03&until=2026-11-02") == []


@pytest.mark.parametrize("query", ["?since=yesterday", "?until=2026-13-01", "?since="])
def test_a_bad_date_is_a_400_in_the_error_shape(anon, alice, query):
    response = anon.get(export_url("alice") + query)

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert body["error"]
    assert set(body) - {"error", "code"} <= {"since", "until"}


def test_an_unknown_player_is_a_404(anon, db):
    response = anon.get(export_url("nobody"))

    assert response.status_code == 404
    assert response.json() == {"error": "There is no player nobody.", "code": "not_found"}


def test_only_the_players_games_are_exported(anon, alice, bob):
    carol = UserFactory(username="carol")
    finished_game(bob, carol, on=day(1))
    mine = finished_game(alice, bob, on=day(2))

    assert [line["id"] for line in lines_of(anon.get(export_url("alice")))] == [mine.pk]


def test_games_are_read_a_page_at_a_time(anon, alice, bob, monkeypatch):
    """Five games, pages of two: three reads of the games (the last one short), each ordered
    and bounded (keyset), and every game once; the same games within one finish time too."""
    monkeypatch.setattr(export, "EXPORT_PAGE", 2)
    games = [finished_game(alice, bob, on=day(1 + n // 2)) for n in range(5)]

    with CaptureQueriesContext(connection) as queries:
        lines = lines_of(anon.get(export_url("alice")))

    assert sorted(line["id"] for line in lines) == sorted(g.pk for g in games)
    assert len({line["id"] for line in lines}) == 5
    page_reads = [
        q["sql"] for q in queries if 'FROM "games_game"' in q["sql"] and "LIMIT 2" in q["sql"]
    ]
    assert len(page_reads) == 3


def test_under_asgi_the_lines_stream_from_an_async_iterator(alice, bob, transactional_db):
    """Daphne serves the site: there the response is asynchronous (Django would read a plain
    iterator whole before sending a byte), and each page is read in the request's thread."""
    games = [finished_game(alice, bob, on=day(n)) for n in (1, 2, 3)]

    async def fetch() -> tuple[bool, bytes]:
        response = await AsyncClient().get(export_url("alice"))
        assert response.status_code == 200
        chunks = [chunk async for chunk in response.streaming_content]
        return response.is_async, b"".join(chunks)

    original = export.EXPORT_PAGE
    export.EXPORT_PAGE = 2
    try:
        is_async, body = async_to_sync(fetch)()
    finally:
        export.EXPORT_PAGE = original

    assert is_async
    assert [json.loads(line)["id"] for line in body.splitlines()] == [g.pk for g in games]

"""The tournaments API (API.md, Tournaments): every endpoint, its refusals and its JSON."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from tests.factories import UserFactory
from tests.tournaments.factories import make_tournament
from tests.tournaments.helpers import committed, finish, round_games, start
from tournaments import services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

LIST = "/api/tournaments/"


def url(tournament_id: int, action: str = "") -> str:
    return f"/api/tournaments/{tournament_id}/" + (f"{action}/" if action else "")


def client_for(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def create_body(**changes):
    body = {
        "name": "Friday Swiss",
        "format": "swiss",
        "table_size": 2,
        "mode": "ffa",
        "variant": "standard",
        "rounds": 4,
        "starts_at": (timezone.now() + timedelta(hours=2)).isoformat(),
        "turn_seconds": 60,
        "max_players": 8,
    }
    body.update(changes)
    return {k: v for k, v in body.items() if v is not None}


def test_staff_create_a_tournament():
    staff = UserFactory(is_staff=True)
    response = client_for(staff).post(LIST, create_body(), format="json")
    assert response.status_code == 201
    body = response.json()
    assert {k: body[k] for k in ("name", "format", "table_size", "rounds", "min_players")} == {
        "name": "Friday Swiss",
        "format": "swiss",
        "table_size": 2,
        "rounds": 4,
        "min_players": 2,
    }
    assert (body["status"], body["players"], body["pairings"], body["standings"]) == (
        "scheduled",
        [],
        [],
        [],
    )
    assert (body["current_round"], body["winners"]) == (None, [])
    assert Tournament.objects.get(pk=body["id"]).created_by == staff


def test_only_staff_create():
    assert client_for(UserFactory()).post(LIST, create_body(), format="json").status_code == 403
    assert client_for().post(LIST, create_body(), format="json").status_code == 401
    assert not Tournament.objects.exists()


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"format": "round_robin", "table_size": 3, "rounds": None}, "tables of 2"),
        ({"mode": "teams", "table_size": 2}, "tables of 4"),
        ({"format": "swiss", "rounds": None}, "rounds"),
        ({"format": "round_robin", "rounds": 3}, "rounds"),
        ({"min_players": 9, "max_players": 8}, "fewest"),
        ({"mode": "teams", "table_size": 4, "min_players": 2}, "fewest"),
        ({"table_size": 5}, "table_size"),
        ({"format": "knockout"}, "format"),
        ({"starts_at": "tomorrow"}, "starts_at"),
        ({"name": ""}, "name"),
    ],
)
def test_invalid_combinations_are_400(changes, words):
    staff = UserFactory(is_staff=True)
    response = client_for(staff).post(LIST, create_body(**changes), format="json")
    assert response.status_code == 400
    assert words in response.json()["error"]
    assert not Tournament.objects.exists()


def test_list_newest_created_first_and_by_status():
    early = make_tournament(starts_in=timedelta(hours=1))
    late = make_tournament(starts_in=timedelta(hours=5))
    running = start(make_tournament(players=2, starts_in=timedelta(0)))
    body = client_for().get(LIST).json()
    # Newest first: the most recently created first (docs/api.md), whatever their start.
    assert [t["id"] for t in body["results"]] == [running.pk, late.pk, early.pk]
    assert body["count"] == 3
    only = client_for().get(LIST, {"status": "running"}).json()["results"]
    assert [t["id"] for t in only] == [running.pk]
    assert client_for().get(LIST, {"status": "later"}).status_code == 400


def test_detail_shows_pairings_and_standings():
    tournament = start(make_tournament(players=3, rounds=2))
    body = client_for().get(url(tournament.pk)).json()
    assert (body["status"], body["current_round"], body["rounds"]) == ("running", 1, 2)
    (first,) = body["pairings"]
    assert first["round"] == 1
    assert len(first["games"]) == 1
    assert len(first["byes"]) == 1
    game = first["games"][0]
    assert game["status"] == "active"
    assert len(game["players"]) == 2
    assert sorted(row["username"] for row in body["standings"]) == sorted(
        p["username"] for p in body["players"]
    )
    bye = next(row for row in body["standings"] if row["username"] == first["byes"][0])
    assert (bye["points"], bye["games"], bye["rank"]) == (1.0, 0, 1)
    assert client_for().get(url(10**6)).status_code == 404


def test_join_twice_changes_nothing_and_full_is_409():
    tournament = make_tournament(max_players=2)
    ana, bo, cy = UserFactory(), UserFactory(), UserFactory()
    first = client_for(ana).post(url(tournament.pk, "join"))
    assert first.status_code == 200
    assert [p["username"] for p in first.json()["players"]] == [ana.username]
    again = client_for(ana).post(url(tournament.pk, "join"))
    assert (again.status_code, again.json()["version"]) == (200, first.json()["version"])
    assert client_for(bo).post(url(tournament.pk, "join")).status_code == 200
    full = client_for(cy).post(url(tournament.pk, "join"))
    assert full.status_code == 409
    assert "full" in full.json()["error"]


def test_late_join_is_409_and_leave_before_the_start_removes():
    tournament = make_tournament(players=1)
    leaver = tournament.players.get().user
    body = client_for(leaver).post(url(tournament.pk, "leave")).json()
    assert body["players"] == []
    running = start(make_tournament(players=2))
    late = client_for(UserFactory()).post(url(running.pk, "join"))
    assert late.status_code == 409
    assert client_for().post(url(running.pk, "join")).status_code == 401
    assert client_for(UserFactory()).post(url(10**6, "join")).status_code == 404


def test_leave_after_the_start_withdraws_and_resigns():
    tournament = start(make_tournament(players=2, rounds=2))
    (game,) = round_games(tournament)
    player = game.seats.get(seat=1).user
    with pytest.MonkeyPatch.context():
        response = committed(lambda: client_for(player).post(url(tournament.pk, "leave")))
    assert response.status_code == 200
    body = client_for().get(url(tournament.pk)).json()
    assert {"username": player.username, "withdrawn": True} in body["players"]
    game.refresh_from_db()
    assert (game.status, game.end_reason) == ("finished", "resigned")
    assert body["status"] == "finished"  # one player left: nobody to pair


def test_finished_tournament_lists_winners_and_refuses_leave():
    tournament = start(make_tournament(players=2, rounds=1))
    (game,) = round_games(tournament)
    finish(game, winner=2)
    winner = game.seats.get(seat=2).user
    body = client_for().get(url(tournament.pk)).json()
    assert (body["status"], body["winners"]) == ("finished", [winner.username])
    assert body["standings"][0] == {
        "rank": 1,
        "username": winner.username,
        "points": 1.0,
        "buchholz": 0.0,
        "score": body["standings"][0]["score"],
        "games": 1,
        "seats": [2],
        "forfeits": 0,
    }
    assert body["standings"][1]["seats"] == [1]
    (pairing_game,) = body["pairings"][0]["games"]
    assert pairing_game["status"] == "finished"
    assert pairing_game["points"] == [0.0, 1.0]
    assert pairing_game["forfeits"] == []
    assert body["grace_seconds"] == 30
    assert client_for(winner).post(url(tournament.pk, "leave")).status_code == 409


def test_the_schema_documents_the_tournament_endpoints():
    import yaml

    schema = yaml.safe_load(client_for().get("/api/schema/").content)
    for path in (
        "/api/tournaments/",
        "/api/tournaments/{tournament_id}/",
        "/api/tournaments/{tournament_id}/join/",
        "/api/tournaments/{tournament_id}/leave/",
    ):
        assert path in schema["paths"]


def test_service_create_needs_a_name():
    with pytest.raises(services.InvalidInput):
        services.tournament_create(
            user=None, **{**create_body(name="  "), "starts_at": timezone.now(), "rounds": 2}
        )

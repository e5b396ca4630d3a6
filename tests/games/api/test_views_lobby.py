"""Opening, listing, reading and joining games."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from games import selectors
from games.models import Game, Seat
from tests.factories import PASSWORD, UserFactory
from tests.games.api.helpers import token_client
from tests.games.factories import make_game

pytestmark = pytest.mark.django_db

GAMES = reverse("api-games")


def game_url(game_id: int, action: str = "") -> str:
    return reverse(f"api-game-{action}" if action else "api-game", args=[game_id])


# -- create ----------------------------------------------------------------------------------------


def test_create_opens_a_game_with_the_caller_in_seat_1(alice):
    response = token_client(alice).post(
        GAMES,
        {"players": 3, "variant": "classic", "rated": False, "turn_seconds": 60},
        format="json",
    )

    assert response.status_code == 201
    body = response.json()
    game = Game.objects.get(pk=body["id"])
    assert body == selectors.game_state(selectors.game_get(game.pk))
    assert (body["status"], body["players"], body["mode"]) == ("open", 3, "ffa")
    assert (body["variant"], body["rated"], body["turn_seconds"]) == ("classic", False, 60)
    assert [s["username"] for s in body["seats"]] == ["alice", None, None]
    assert body["ply"] == 0
    assert body["to_move"] is None


def test_create_defaults_to_a_rated_two_player_standard_game(alice):
    body = token_client(alice).post(GAMES, {}, format="json").json()

    assert (body["players"], body["mode"], body["variant"]) == (2, "ffa", "standard")
    assert (body["rated"], body["turn_seconds"], body["status"]) == (True, 120, "open")


def test_create_with_bots_in_every_other_seat_starts_the_game(alice):
    response = token_client(alice).post(
        GAMES,
        {"players": 3, "bots": [{"seat": 2, "level": "easy"}, {"seat": 3, "level": "hard"}]},
        format="json",
    )

    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "active"
    assert [s["bot"] for s in body["seats"]] == [None, "easy", "hard"]
    assert body["to_move"] == 1


def test_create_a_team_game(alice):
    body = token_client(alice).post(GAMES, {"players": 4, "mode": "teams"}, format="json").json()

    assert body["mode"] == "teams"
    assert len(body["seats"]) == 4


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"players": 5}, "players"),
        ({"players": 1}, "players"),
        ({"players": "two"}, "players"),
        ({"mode": "duel"}, "mode"),
        ({"variant": "speed"}, "variant"),
        ({"rated": "perhaps"}, "rated"),
        ({"turn_seconds": 5}, "turn_seconds"),
        ({"turn_seconds": 8 * 24 * 3600}, "turn_seconds"),
        ({"bots": [{"seat": 2, "level": "genius"}]}, "bots"),
        ({"bots": [{"seat": 1, "level": "easy"}]}, "bots"),
        ({"bots": [{"level": "easy"}]}, "bots"),
        ({"bots": "easy"}, "bots"),
        ({"players": 4, "bots": [{"seat": 2, "level": "easy"}] * 4}, "bots"),
    ],
)
def test_create_refuses_bad_options_with_field_errors(alice, data, field):
    response = token_client(alice).post(GAMES, data, format="json")

    assert response.status_code == 400
    body = response.json()
    assert field in body
    assert body["error"].startswith(f"{field}")
    assert not Game.objects.exists()


def test_create_error_names_the_nested_field(alice):
    response = token_client(alice).post(
        GAMES, {"players": 3, "bots": [{"seat": 2, "level": "genius"}]}, format="json"
    )

    assert response.status_code == 400
    body = response.json()
    assert body["error"] == 'bots.0.level: "genius" is not a valid choice.'
    assert body["bots"] == {"0": {"level": ['"genius" is not a valid choice.']}}


@pytest.mark.parametrize(
    "data",
    [
        {"players": 2, "mode": "teams"},
        {"players": 2, "bots": [{"seat": 3, "level": "easy"}]},
        {"players": 3, "bots": [{"seat": 2, "level": "easy"}, {"seat": 2, "level": "hard"}]},
    ],
)
def test_create_refuses_options_the_service_rejects(alice, data):
    response = token_client(alice).post(GAMES, data, format="json")

    assert response.status_code == 400
    assert response.json()["error"]
    assert not Game.objects.exists()


def test_create_needs_a_user(anon):
    response = anon.post(GAMES, {"players": 2}, format="json")

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert response.json()["error"]
    assert not Game.objects.exists()


def test_create_refuses_a_bad_token(anon):
    anon.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")

    response = anon.post(GAMES, {"players": 2}, format="json")

    assert response.status_code == 401
    assert not Game.objects.exists()


def test_create_by_session_needs_csrf(alice):
    client = APIClient(enforce_csrf_checks=True)
    client.login(username="alice", password=PASSWORD)

    without = client.post(GAMES, {"players": 2}, format="json")
    client.get(reverse("login"))  # the login page sets the CSRF cookie
    with_token = client.post(
        GAMES, {"players": 2}, format="json", HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value
    )

    assert without.status_code == 403
    assert "CSRF" in without.json()["error"]
    assert with_token.status_code == 201
    assert Game.objects.count() == 1


def test_create_refuses_form_data(alice):
    response = token_client(alice).post(GAMES, {"players": 2})  # multipart, not JSON

    assert response.status_code == 415
    assert response.json()["error"]


def test_create_answers_malformed_json_with_400(alice):
    response = token_client(alice).generic(
        "POST", GAMES, '{"players": 2,', content_type="application/json"
    )

    assert response.status_code == 400
    assert "JSON" in response.json()["error"]


# -- list ------------------------------------------------------------------------------------------


def test_list_is_paginated_newest_first(anon):
    games = [make_game(start=False) for _ in range(25)]

    first = anon.get(GAMES).json()
    second = anon.get(first["next"]).json()

    assert first["count"] == 25
    assert first["previous"] is None
    assert len(first["results"]) == 20
    assert len(second["results"]) == 5
    assert second["next"] is None
    listed = [g["id"] for g in first["results"] + second["results"]]
    assert listed == [g.pk for g in reversed(games)]
    assert first["results"][0] == selectors.game_state(selectors.game_get(games[-1].pk))


def test_list_reads_a_page_in_a_few_queries(anon, django_assert_max_num_queries):
    for _ in range(3):
        game = make_game()
        client = token_client(game.seats.get(seat=1).user)
        client.post(game_url(game.pk, "moves"), {"move": "SA1 RB1 HC1", "ply": 0}, format="json")

    with django_assert_max_num_queries(5):  # count, games, seats, users, turns
        response = anon.get(GAMES)

    assert len(response.json()["results"]) == 3


def test_list_filters_by_status_and_player(anon, alice, bob):
    open_game = make_game(users=[alice], start=False)
    active = make_game(users=[alice, bob])
    finished = make_game(users=[bob])
    finished_by = finished.seats.get(seat=1).user
    token_client(finished_by).post(game_url(finished.pk, "resign"))
    someone_elses = make_game()

    def ids(**params):
        return [g["id"] for g in anon.get(GAMES, params).json()["results"]]

    assert ids(status="open") == [open_game.pk]
    assert ids(status="active") == [someone_elses.pk, active.pk]
    assert ids(status="finished") == [finished.pk]
    assert ids(player="alice") == [active.pk, open_game.pk]
    assert ids(player="bob") == [finished.pk, active.pk]
    assert ids(status="active", player="alice") == [active.pk]
    assert ids(status="finished", player="alice") == []
    assert ids(player="nobody") == []


def test_list_marks_the_players_who_took_a_hint(anon, alice, bob):
    game = make_game(users=[alice, bob])
    assert token_client(alice).post(game_url(game.pk, "hint")).status_code == 200
    (entry,) = anon.get(GAMES, {"player": "bob"}).json()["results"]
    assert [(s["username"], s["hinted"]) for s in entry["seats"]] == [
        ("alice", True),
        ("bob", False),
    ]


def test_list_refuses_an_unknown_status(anon):
    response = anon.get(GAMES, {"status": "paused"})

    assert response.status_code == 400
    assert "status" in response.json()
    assert response.json()["error"].startswith("status: ")


def test_list_page_out_of_range_is_404(anon):
    make_game(start=False)

    response = anon.get(GAMES, {"page": 9})

    assert response.status_code == 404
    assert response.json()["error"]


# -- detail ----------------------------------------------------------------------------------------


def test_detail_is_the_game_state_for_anyone(anon, active_game):
    response = anon.get(game_url(active_game.pk))

    assert response.status_code == 200
    body = response.json()
    assert body == selectors.game_state(selectors.game_get(active_game.pk), ratings=True)
    assert body["status"] == "active"
    assert [s["username"] for s in body["seats"]] == ["alice", "bob"]
    assert len(body["board"]) == 12
    assert body["supply"] == {"suns": active_game.suns, "shadows": active_game.shadows}
    assert body["deadline"].endswith("Z")


@pytest.mark.parametrize("game_id", [999_999, 2**62, 2**63 - 1])
def test_detail_of_an_unknown_game_is_404(anon, game_id):
    response = anon.get(game_url(game_id))

    assert response.status_code == 404
    assert response.json() == {"error": f"There is no game {game_id}.", "code": "not_found"}


@pytest.mark.parametrize("game_id", [2**63, 10**30])
def test_an_id_past_64_bits_matches_no_route(anon, game_id):
    """Refused by the ``<id:...>`` converter before the view (core/converters.py)."""
    response = anon.get(game_url(game_id))

    assert response.status_code == 404
    assert response.json() == {"error": "There is nothing at this address.", "code": "not_found"}


# -- join ------------------------------------------------------------------------------------------


def test_join_takes_the_lowest_free_seat(alice, bob):
    game = make_game(players=3, users=[alice], start=False)

    response = token_client(bob).post(game_url(game.pk, "join"))

    assert response.status_code == 200
    body = response.json()
    assert [s["username"] for s in body["seats"]] == ["alice", "bob", None]
    assert body["status"] == "open"


def test_join_of_the_last_seat_starts_the_game(alice, bob):
    game = make_game(players=2, users=[alice], start=False)

    body = token_client(bob).post(game_url(game.pk, "join")).json()

    assert body["status"] == "active"
    assert body["to_move"] == 1
    assert body["deadline"] is not None


def test_join_of_a_full_game_is_409(active_game):
    response = token_client(UserFactory()).post(game_url(active_game.pk, "join"))

    assert response.status_code == 409
    assert response.json()["error"] == "This game has already started."
    assert Seat.objects.filter(game=active_game, user__isnull=False).count() == 2


def test_join_of_a_finished_game_is_409(active_game, alice):
    token_client(alice).post(game_url(active_game.pk, "resign"))

    response = token_client(UserFactory()).post(game_url(active_game.pk, "join"))

    assert response.status_code == 409


def test_join_twice_is_409(alice):
    game = make_game(players=3, users=[alice], start=False)

    response = token_client(alice).post(game_url(game.pk, "join"))

    assert response.status_code == 409
    assert response.json()["error"] == "You already have a seat in this game."


def test_join_needs_a_user(anon, alice):
    game = make_game(users=[alice], start=False)

    response = anon.post(game_url(game.pk, "join"))

    assert response.status_code == 401
    assert Game.objects.get(pk=game.pk).status == "open"


def test_join_of_an_unknown_game_is_404(alice):
    response = token_client(alice).post(game_url(424242, "join"))

    assert response.status_code == 404
    assert response.json() == {"error": "There is no game 424242.", "code": "not_found"}

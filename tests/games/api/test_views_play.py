"""Playing through the API: moves, hints and resigning."""

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.urls import reverse
from rest_framework.test import APIClient

from games import realtime, selectors
from games.models import Game, Turn
from tests.factories import PASSWORD, UserFactory
from tests.games.api.helpers import token_client
from tests.games.factories import make_game

pytestmark = pytest.mark.django_db

OPENING = "SA1 RB1 HC1"


def url(game_id: int, action: str) -> str:
    return reverse(f"api-game-{action}", args=[game_id])


def state(game: Game) -> dict:
    return selectors.game_state(selectors.game_get(game.pk))


# -- moves -----------------------------------------------------------------------------------------


def test_move_plays_the_turn(active_game, alice):
    response = token_client(alice).post(
        url(active_game.pk, "moves"), {"move": OPENING, "ply": 0}, format="json"
    )

    assert response.status_code == 201
    assert response.json() == {"ply": 1, "points": [1, 0]}
    after = state(active_game)
    assert (after["ply"], after["to_move"]) == (1, 2)
    assert after["seats"][0]["score"] == 1
    assert [(t["ply"], t["seat"], t["move"], t["hint"]) for t in after["turns"]] == [
        (1, 1, OPENING, False)
    ]


def test_move_is_pushed_to_watchers(active_game, alice, django_capture_on_commit_callbacks):
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(realtime.game_group(active_game.pk), channel)

    with django_capture_on_commit_callbacks(execute=True):
        token_client(alice).post(
            url(active_game.pk, "moves"), {"move": OPENING, "ply": 0}, format="json"
        )

    event = async_to_sync(layer.receive)(channel)
    assert event["type"] == "game.state"
    assert event["game"]["ply"] == 1
    assert event["version"] == event["game"]["version"] == state(active_game)["version"]
    async_to_sync(layer.group_discard)(realtime.game_group(active_game.pk), channel)


@pytest.mark.parametrize(
    ("move", "cell", "error", "code"),
    [
        ("SA1 RF6 HC1", "F6", "F6 is not next to any piece on the board", "not_adjacent"),
        ("SA1 SA1 HC1", "A1", "A1 is already occupied", "occupied"),
        ("SM1 RB1 HC1", None, "M1 is off the board", "off_board"),
        ("SA1", None, "three pieces", "turn_too_short"),
        ("XX", None, "'XX' is not a placement", "bad_placement"),
    ],
)
def test_illegal_move_names_the_cell_and_changes_nothing(
    active_game, alice, move, cell, error, code
):
    before = state(active_game)

    response = token_client(alice).post(
        url(active_game.pk, "moves"), {"move": move, "ply": 0}, format="json"
    )

    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"error", "cell", "code"}
    assert body["cell"] == cell
    assert body["code"] == code
    assert error in body["error"]
    assert state(active_game) == before
    assert not Turn.objects.filter(game=active_game).exists()


def test_move_out_of_turn_is_403(active_game, bob):
    response = token_client(bob).post(
        url(active_game.pk, "moves"), {"move": OPENING, "ply": 0}, format="json"
    )

    assert response.status_code == 403
    assert response.json() == {"error": "It is not your turn.", "code": "not_allowed"}
    assert state(active_game)["ply"] == 0


def test_move_by_someone_not_in_the_game_is_403(active_game):
    outsider = token_client(UserFactory())

    for ply in (0, 7):  # whatever the ply, an outsider learns only that they are not playing
        response = outsider.post(
            url(active_game.pk, "moves"), {"move": OPENING, "ply": ply}, format="json"
        )
        assert response.status_code == 403
        assert response.json() == {
            "error": "You are not playing in this game.",
            "code": "not_allowed",
        }
    assert state(active_game)["ply"] == 0


def test_stale_ply_is_409_with_the_current_ply(active_game, alice, bob):
    token_client(alice).post(
        url(active_game.pk, "moves"), {"move": OPENING, "ply": 0}, format="json"
    )

    response = token_client(bob).post(
        url(active_game.pk, "moves"), {"move": "SA2 RB2 HC2", "ply": 0}, format="json"
    )

    assert response.status_code == 409
    assert response.json()["ply"] == 1
    assert "ply 1" in response.json()["error"]
    assert state(active_game)["ply"] == 1


def test_repeated_submit_is_409_and_plays_once(active_game, alice):
    client = token_client(alice)
    client.post(url(active_game.pk, "moves"), {"move": OPENING, "ply": 0}, format="json")

    again = client.post(url(active_game.pk, "moves"), {"move": OPENING, "ply": 0}, format="json")

    assert again.status_code == 409
    assert again.json()["ply"] == 1
    assert Turn.objects.filter(game=active_game).count() == 1


def test_ply_ahead_of_the_game_is_409(active_game, alice):
    response = token_client(alice).post(
        url(active_game.pk, "moves"), {"move": OPENING, "ply": 3}, format="json"
    )

    assert response.status_code == 409
    assert response.json()["ply"] == 0


def test_move_after_the_end_is_409(active_game, alice, bob):
    token_client(bob).post(url(active_game.pk, "resign"))

    response = token_client(alice).post(
        url(active_game.pk, "moves"), {"move": OPENING, "ply": 0}, format="json"
    )

    assert response.status_code == 409
    assert response.json() == {"error": "The game is over.", "code": "conflict", "ply": 0}
    assert not Turn.objects.filter(game=active_game).exists()


def test_move_before_the_start_is_409(alice):
    game = make_game(users=[alice], start=False)

    response = token_client(alice).post(
        url(game.pk, "moves"), {"move": OPENING, "ply": 0}, format="json"
    )

    assert response.status_code == 409
    assert response.json() == {
        "error": "The game has not started yet.",
        "code": "conflict",
        "ply": 0,
    }


@pytest.mark.parametrize(
    "body",
    ['{"move": "SA1 RB1 HC1", "ply": 0', "SA1 RB1 HC1", "", '{"move": NaN}', "\xff\xfe"],
)
def test_malformed_json_is_400(active_game, alice, body):
    response = token_client(alice).generic(
        "POST", url(active_game.pk, "moves"), body, content_type="application/json"
    )

    assert response.status_code == 400
    assert response.json()["error"]
    assert state(active_game)["ply"] == 0


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"move": OPENING}, "ply"),
        ({"move": OPENING, "ply": None}, "ply"),
        ({"move": OPENING, "ply": "zero"}, "ply"),
        ({"move": OPENING, "ply": 0.5}, "ply"),
        ({"move": OPENING, "ply": True}, "ply"),
        ({"move": OPENING, "ply": [0]}, "ply"),
        ({"move": OPENING, "ply": -1}, "ply"),
        ({"ply": 0}, "move"),
        ({"move": "", "ply": 0}, "move"),
        ({"move": ["SA1"], "ply": 0}, "move"),
        ({"move": "SA1 " * 100, "ply": 0}, "move"),
        (["SA1 RB1 HC1", 0], "non_field_errors"),
    ],
)
def test_missing_or_invalid_fields_are_400(active_game, alice, data, field):
    response = token_client(alice).post(url(active_game.pk, "moves"), data, format="json")

    assert response.status_code == 400
    assert field in response.json()
    assert response.json()["error"]
    assert state(active_game)["ply"] == 0


def test_move_as_a_number_is_an_illegal_move(active_game, alice):
    response = token_client(alice).post(
        url(active_game.pk, "moves"), {"move": 42, "ply": 0}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["cell"] is None


def test_move_needs_a_user(active_game, anon):
    response = anon.post(url(active_game.pk, "moves"), {"move": OPENING, "ply": 0}, format="json")

    assert response.status_code == 401
    assert state(active_game)["ply"] == 0


def test_move_by_session_needs_csrf(active_game):
    client = APIClient(enforce_csrf_checks=True)
    client.login(username="alice", password=PASSWORD)

    response = client.post(url(active_game.pk, "moves"), {"move": OPENING, "ply": 0}, format="json")

    assert response.status_code == 403
    assert state(active_game)["ply"] == 0


def test_move_by_session_with_csrf_plays(active_game):
    client = APIClient(enforce_csrf_checks=True)
    client.login(username="alice", password=PASSWORD)
    client.get(reverse("login"))

    response = client.post(
        url(active_game.pk, "moves"),
        {"move": OPENING, "ply": 0},
        format="json",
        HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value,
    )

    assert response.status_code == 201


def test_move_in_an_unknown_game_is_404(alice):
    response = token_client(alice).post(
        url(31337, "moves"), {"move": OPENING, "ply": 0}, format="json"
    )

    assert response.status_code == 404
    assert response.json() == {"error": "There is no game 31337.", "code": "not_found"}


def test_moves_refuses_get(active_game, anon):
    response = anon.get(url(active_game.pk, "moves"))

    assert response.status_code == 405
    assert response.json()["error"]


# -- hint ------------------------------------------------------------------------------------------


def test_hint_gives_a_best_move_and_marks_the_caller(active_game, alice):
    client = token_client(alice)

    response = client.post(url(active_game.pk, "hint"))

    assert response.status_code == 200
    hint = response.json()
    assert set(hint) == {"move", "points"}
    assert hint["points"] == 1
    assert state(active_game)["seats"][0]["hinted"] is True
    assert state(active_game)["seats"][1]["hinted"] is False
    played = client.post(
        url(active_game.pk, "moves"), {"move": hint["move"], "ply": 0}, format="json"
    )
    assert played.json()["points"][0] == hint["points"]
    assert state(active_game)["turns"][0]["hint"] is True


def test_hint_out_of_turn_is_403_and_marks_nobody(active_game, bob):
    response = token_client(bob).post(url(active_game.pk, "hint"))

    assert response.status_code == 403
    assert not any(s["hinted"] for s in state(active_game)["seats"])


def test_hint_after_the_end_is_409(active_game, alice):
    token_client(alice).post(url(active_game.pk, "resign"))

    response = token_client(alice).post(url(active_game.pk, "hint"))

    assert response.status_code == 409


def test_hint_needs_a_user(active_game, anon):
    assert anon.post(url(active_game.pk, "hint")).status_code == 401
    assert anon.get(url(active_game.pk, "hint")).status_code == 405


def test_hint_in_an_unknown_game_is_404(alice):
    assert token_client(alice).post(url(31337, "hint")).status_code == 404


# -- resign ----------------------------------------------------------------------------------------


def test_resign_ends_a_two_player_game(active_game, alice):
    response = token_client(alice).post(url(active_game.pk, "resign"))

    assert response.status_code == 200
    body = response.json()
    assert body == state(active_game)
    assert body["status"] == "finished"
    assert body["seats"][0]["resigned"] is True
    assert body["result"]["end_reason"] == "resigned"
    # Before every player had moved: aborted, no winners (GameOutcome.aborted).
    assert body["result"]["winners"] == []
    assert body["result"]["aborted"] is True


def test_resign_in_a_larger_game_lets_a_bot_play_on(alice, bob):
    game = make_game(players=3, users=[alice, bob])

    body = token_client(bob).post(url(game.pk, "resign")).json()

    assert body["status"] == "active"
    assert body["seats"][1]["resigned"] is True


def test_resign_twice_is_409(active_game, alice):
    token_client(alice).post(url(active_game.pk, "resign"))

    response = token_client(alice).post(url(active_game.pk, "resign"))

    assert response.status_code == 409


def test_resign_by_someone_not_in_the_game_is_403(active_game):
    response = token_client(UserFactory()).post(url(active_game.pk, "resign"))

    assert response.status_code == 403
    assert state(active_game)["status"] == "active"


def test_resign_before_the_start_is_409(alice):
    game = make_game(users=[alice], start=False)

    assert token_client(alice).post(url(game.pk, "resign")).status_code == 409


def test_resign_needs_a_user(active_game, anon):
    assert anon.post(url(active_game.pk, "resign")).status_code == 401
    assert state(active_game)["status"] == "active"


def test_resign_in_an_unknown_game_is_404(alice):
    assert token_client(alice).post(url(31337, "resign")).status_code == 404


def test_move_after_the_deadline_is_409_and_the_player_times_out(active_game, alice):
    from django.utils import timezone

    Game.objects.filter(pk=active_game.pk).update(
        deadline=timezone.now() - timezone.timedelta(seconds=3)
    )

    response = token_client(alice).post(
        url(active_game.pk, "moves"), {"move": OPENING, "ply": 0}, format="json"
    )

    assert response.status_code == 409
    assert response.json() == {
        "error": "The time for this turn ran out.",
        "code": "conflict",
        "ply": 0,
    }
    after = state(active_game)
    assert (after["status"], after["result"]["end_reason"], after["ply"]) == (
        "finished",
        "timeout",
        0,
    )


def test_an_illegal_move_is_refused_in_the_players_language(active_game, alice):
    response = token_client(alice).post(
        url(active_game.pk, "moves"),
        {"move": "SA1 SA1 HC1", "ply": 0},
        format="json",
        HTTP_ACCEPT_LANGUAGE="es",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "occupied"
    assert body["cell"] == "A1"
    assert "A1" in body["error"]
    assert "occupied" not in body["error"]

"""The game record, as JSON and as a download."""

import json

import pytest
from django.urls import reverse

from games import selectors
from games.engine.record import GameRecord, replay_report
from tests.games.api.helpers import best_move, play, seat_user, token_client
from tests.games.factories import make_game

pytestmark = pytest.mark.django_db


def record_url(game_id: int) -> str:
    return reverse("api-game-record", args=[game_id])


@pytest.fixture
def played_game(active_game, alice, bob):
    """Two turns played; alice asked for a hint before the first and played it."""
    alice_client = token_client(alice)
    hint = alice_client.post(reverse("api-game-hint", args=[active_game.pk])).json()
    play(alice_client, active_game.pk, hint["move"], 0)
    play(token_client(bob), active_game.pk, best_move(active_game.pk), 1)
    return active_game


def test_record_lists_the_moves_and_hints(anon, played_game):
    response = anon.get(record_url(played_game.pk))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert "Content-Disposition" not in response
    record = response.json()
    game = selectors.game_get(played_game.pk)
    assert record == selectors.game_record(game)
    assert (record["players"], record["variant"]) == (2, "standard")
    assert record["moves"] == [t["move"] for t in selectors.game_state(game)["turns"]]
    assert record["hints"] == [0]
    assert record["teams"] is None
    report = replay_report(GameRecord.from_json(record))
    assert report["error"] is None
    assert report["scores"] == [s.score for s in selectors.game_seats(game)]


@pytest.mark.parametrize("flag", ["1", "true"])
def test_record_download_is_an_attachment(anon, played_game, flag):
    response = anon.get(record_url(played_game.pk), {"download": flag})

    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        f'attachment; filename="siesta-game-{played_game.pk}.json"'
    )
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content) == anon.get(record_url(played_game.pk)).json()


def test_record_download_from_a_browser_is_still_json(client, played_game):
    response = client.get(
        record_url(played_game.pk), {"download": "1"}, HTTP_ACCEPT="text/html,*/*;q=0.8"
    )

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content)["moves"]


def test_record_refuses_a_bad_download_flag(anon, played_game):
    response = anon.get(record_url(played_game.pk), {"download": "perhaps"})

    assert response.status_code == 400
    assert "download" in response.json()


def test_record_of_a_team_game_names_the_teams(anon):
    game = make_game(players=4, mode="teams")

    record = anon.get(record_url(game.pk)).json()

    seats = selectors.game_seats(game)
    assert sorted(seat for team in record["teams"] for seat in team) == [1, 2, 3, 4]
    for team, members in zip((1, 2), record["teams"], strict=True):
        assert {s.seat for s in seats if s.team == team} == set(members)


def test_record_of_a_new_game_has_no_moves(anon, active_game):
    record = anon.get(record_url(active_game.pk)).json()

    assert record["moves"] == []
    assert record["hints"] == []


def test_record_of_an_unknown_game_is_404(anon):
    response = anon.get(record_url(31337))

    assert response.status_code == 404
    assert response.json() == {"error": "There is no game 31337.", "code": "not_found"}


def test_record_refuses_post(active_game):
    response = token_client(seat_user(active_game, 1)).post(record_url(active_game.pk))

    assert response.status_code == 405

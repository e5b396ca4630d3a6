"""A whole two-player game played by two scripts through the API, then checked by the engine."""

import pytest
from django.urls import reverse

from games.engine.record import GameRecord, replay_report
from tests.games.api.helpers import best_move, play, token_client

pytestmark = pytest.mark.django_db

MAX_TURNS = 200


def test_a_whole_game_through_the_api_replays_to_the_same_scores(anon, alice, bob):
    clients = {1: token_client(alice), 2: token_client(bob)}
    game_id = clients[1].post(reverse("api-games"), {"players": 2}, format="json").json()["id"]
    game = clients[2].post(reverse("api-game-join", args=[game_id])).json()
    assert game["status"] == "active"
    hinted_ply = 3  # bob asks for a hint before his second turn

    while game["status"] == "active":
        assert game["ply"] < MAX_TURNS
        client = clients[game["to_move"]]
        if game["ply"] == hinted_ply:
            move = client.post(reverse("api-game-hint", args=[game_id])).json()["move"]
        else:
            move = best_move(game_id)
        result = play(client, game_id, move, game["ply"])
        game = anon.get(reverse("api-game", args=[game_id])).json()
        assert game["ply"] == result["ply"]
        assert game["turns"][-1]["points"] == result["points"]

    assert game["status"] == "finished"
    assert game["to_move"] is None
    hinted = [t for t in game["turns"] if t["hint"]]
    assert [(t["ply"], t["seat"]) for t in hinted] == [(hinted_ply + 1, 2)]
    assert [s["hinted"] for s in game["seats"]] == [False, True]

    record = anon.get(reverse("api-game-record", args=[game_id])).json()
    assert record["hints"] == [hinted_ply]
    assert record["moves"] == [t["move"] for t in game["turns"]]
    report = replay_report(GameRecord.from_json(record))
    assert report["error"] is None
    assert report["over"] is True
    assert report["end_reason"] == game["result"]["end_reason"]
    assert report["scores"] == game["result"]["scores"] == [s["score"] for s in game["seats"]]
    assert [t["points"] for t in report["turns"]] == [t["points"] for t in game["turns"]]
    best = max(report["scores"])
    assert game["result"]["winners"] == [
        seat for seat, score in enumerate(report["scores"], start=1) if score == best
    ]

    after_the_end = clients[1].post(
        reverse("api-game-moves", args=[game_id]),
        {"move": "SA1 RB1 HC1", "ply": game["ply"]},
        format="json",
    )
    assert after_the_end.status_code == 409

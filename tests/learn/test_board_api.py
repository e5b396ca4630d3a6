"""The analysis API against the engine's exact values; bad input names the cell."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from games.engine import Position
from games.engine.record import GameRecord
from games.engine.search import best_turn, legal_turns
from games.engine.study import siesta_counts, top_turns
from tests.learn.helpers import recorded

pytestmark = pytest.mark.django_db


@pytest.fixture
def api():
    return APIClient()


def _position_after(record):
    pos = GameRecord.from_json(record).start()
    for move in record["moves"]:
        pos.play(move)
    return pos


def test_best_is_the_engines_exact_best_and_top_turns_score_what_they_say(api):
    record = recorded(turns=6)
    answer = api.post("/api/analysis/best/", {"record": record, "count": 4}, format="json")
    assert answer.status_code == 200
    data = answer.json()
    pos = _position_after(record)
    assert data["points"] == best_turn(pos).points
    assert data["top"][0] == {"move": data["move"], "points": data["points"]}
    assert len(data["top"]) == len(top_turns(pos, 4))
    for item in data["top"]:
        assert pos.check(item["move"])[pos.to_move - 1] == item["points"] <= data["points"]


def test_best_of_a_small_position_is_the_brute_force_maximum(api):
    position = {"players": 2, "board": ["S1##"], "to_move": 1}
    data = api.post("/api/analysis/best/", {"position": position}, format="json").json()
    brute = max(points for _turn, points in legal_turns(Position(2, board=["S1##"])))
    assert data["points"] == brute == 6


@pytest.mark.parametrize(
    ("position", "cell"),
    [
        ({"board": ["S#"]}, "A1"),  # a sun next to a shadow
        ({"board": ["S1#", "", "..#"]}, "C3"),  # a shadow in no siesta
        ({"board": ["S1#", "", "", "S1#"]}, "A4"),  # not joined to the others
        ({"board": ["S1x"]}, "C1"),  # not a board character
        ({"players": 2, "board": ["S3#"]}, "B1"),  # a roof of a seat that is not playing
    ],
)
def test_impossible_positions_are_refused_naming_the_cell(api, position, cell):
    answer = api.post("/api/analysis/best/", {"position": position}, format="json")
    assert answer.status_code == 400
    assert answer.json()["cell"] == cell
    assert cell in answer.json()["error"]


def test_bad_records_and_missing_input_are_400_not_500(api):
    assert api.post("/api/analysis/best/", {}, format="json").status_code == 400
    bad = api.post("/api/analysis/best/", {"record": {"players": 7}}, format="json")
    assert bad.status_code == 400
    assert "players" in bad.json()["error"]
    illegal = api.post(
        "/api/analysis/best/",
        {"record": {"moves": ["SA1 RB1 HC1", "SL12 RK12 HJ12"]}},
        format="json",
    )
    assert illegal.status_code == 400
    assert illegal.json()["cell"] == "L12"


def test_line_gives_every_position_and_stops_at_the_first_illegal_move(api):
    record = recorded(turns=5)
    record["moves"].append("SA1 RB1 HC1")
    data = api.post("/api/analysis/line/", {"record": record}, format="json").json()
    assert len(data["states"]) == 6
    assert len(data["turns"]) == 5
    assert data["error"]["turn"] == 5
    pos = GameRecord.from_json({**record, "moves": []}).start()
    for state, move in zip(data["states"], record["moves"][:5], strict=False):
        assert state["board"] == pos.board_text()
        assert state["siestas"] == siesta_counts(pos.board_text())  # what each cell says
        assert state["scores"] == pos.scores
        pos.play(move)
    assert data["states"][-1]["board"] == pos.board_text()


def test_turn_in_progress_shows_points_so_far_and_the_reachable_maximum(api):
    record = {"players": 2, "setup": {"board": ["S1##"]}, "moves": []}
    data = api.post("/api/analysis/turn/", {"record": record, "move": "HE1"}, format="json").json()
    assert (data["so_far"], data["reachable"], data["complete"]) == (1, 6, False)
    whole = api.post(
        "/api/analysis/turn/", {"record": record, "move": "RA2 SA3 HE1"}, format="json"
    ).json()
    assert whole["complete"] is True
    wrong = api.post("/api/analysis/turn/", {"record": record, "move": "HE1 SF1"}, format="json")
    assert wrong.status_code == 400
    assert wrong.json()["cell"] == "F1"


def test_the_analysis_api_is_throttled(api, monkeypatch):
    # The rates are read when DRF loads; the scope is what the views declare.
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"analysis": "2/minute"})
    cache.clear()
    body = {"position": {"board": ["S1##"]}}
    codes = [api.post("/api/analysis/best/", body, format="json").status_code for _ in range(2)]
    turn = api.post("/api/analysis/turn/", {**body, "move": "HE1"}, format="json")
    codes.append(turn.status_code)
    assert codes == [200, 200, 429]
    cache.clear()


def test_the_default_rate_comes_from_the_settings(real_throttles):
    assert real_throttles["analysis"] == "120/minute"


def test_the_schema_documents_the_analysis_api(api):
    schema = api.get("/api/schema/", {"format": "json"}).json()
    assert "/api/analysis/best/" in schema["paths"]
    assert "/api/puzzles/{puzzle_id}/attempts/" in schema["paths"]

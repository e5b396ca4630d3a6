"""Post-game analysis: the numbers against the engine's exact values, stored once, served by the
API (pending, then done)."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from games import bots, selectors, services, tasks
from games.analysis import analysis_compute, analysis_state, game_analyse
from games.engine import Position
from games.engine.search import best_turn
from games.models import Analysis, Game
from tests.games.factories import make_game


def _recorded_moves(players: int, variant: str, turns: int, seed: int) -> list[str]:
    """Moves of a game where seat 1 plays its best and the others play random scoring turns."""
    rng = random.Random(seed)
    pos = Position(players, variant)
    moves = []
    while not pos.over and len(moves) < turns:
        turn = bots.medium_turn(pos, rng) if pos.to_move == 1 else bots.easy_turn(pos, rng)
        pos.play(turn)
        moves.append(str(turn))
    return moves


def _expected(players: int, variant: str, moves: list[str]) -> list[tuple[int, int, int]]:
    """(seat, played, best) per turn, straight from the engine."""
    pos = Position(players, variant)
    expected = []
    for move in moves:
        seat = pos.to_move
        best = best_turn(pos).points
        played = pos.play(move)[seat - 1]
        expected.append((seat, played, best))
    return expected


@pytest.mark.parametrize(("players", "variant"), [(2, "standard"), (3, "classic")])
def test_every_turn_against_the_engines_exact_best(players, variant):
    moves = _recorded_moves(players, variant, turns=12, seed=players)
    data = analysis_compute(
        {"players": players, "variant": variant, "moves": moves, "hints": [1, 4]}
    )
    expected = _expected(players, variant, moves)
    assert [t["ply"] for t in data["turns"]] == list(range(1, len(moves) + 1))
    for turn, move, (seat, played, best) in zip(data["turns"], moves, expected, strict=True):
        assert turn["seat"] == seat
        assert turn["move"] == move
        assert turn["played_points"] == played
        assert turn["best_points"] == best
        assert turn["missed"] == best - played >= 0
        assert turn["hint"] == (turn["ply"] - 1 in (1, 4))
    # The best move shown really scores that much in its position.
    pos = Position(players, variant)
    for turn, move in zip(data["turns"], moves, strict=True):
        assert pos.check(turn["best_move"])[turn["seat"] - 1] == turn["best_points"]
        pos.play(move)
    # Random scoring turns miss points somewhere; seat 1 played its best every time.
    assert any(t["missed"] for t in data["turns"])
    assert all(t["missed"] == 0 for t in data["turns"] if t["seat"] == 1)


def test_per_player_totals_accuracy_and_biggest_misses():
    moves = _recorded_moves(2, "standard", turns=16, seed=11)
    data = analysis_compute({"players": 2, "moves": moves, "hints": [3]})
    expected = _expected(2, "standard", moves)
    for player in data["players"]:
        seat = player["seat"]
        mine = [(played, best) for s, played, best in expected if s == seat]
        scored = sum(played for played, _ in mine)
        available = sum(best for _, best in mine)
        assert player["turns"] == len(mine)
        assert player["points"] == scored
        assert player["available"] == available
        assert player["missed_total"] == available - scored
        assert player["accuracy"] == round(100 * scored / available, 1)
        misses = sorted((best - played for played, best in mine if best > played), reverse=True)
        assert [m["missed"] for m in player["biggest_misses"]] == misses[:3]
    assert data["players"][0]["accuracy"] == 100.0
    assert data["players"][1]["accuracy"] < 100.0
    assert data["players"][1]["hints"] == 1


def test_every_turn_has_the_experts_view_beside_the_exact_answer():
    """The expert's view sits beside the exact "most points now" numbers and never replaces
    them: its turn is legal there, a turn it would play itself loses nothing, and mistakes are
    the turns that lose at least ``MISTAKE`` points of lead (or the game) against it."""
    from games.analysis import MISTAKE

    moves = _recorded_moves(2, "standard", turns=10, seed=5)
    data = analysis_compute({"players": 2, "moves": moves})
    expected = _expected(2, "standard", moves)
    pos = Position(2, "standard")
    reasons = {
        "opens_reply",
        "fewer_points",
        "less_setup",
        "fewer_roofs",
        "ends_lost",
        "misses_win",
        "as_good",
    }
    for turn, move, (_seat, played, best) in zip(data["turns"], moves, expected, strict=True):
        assert turn["best_points"] == best  # the exact answer is unchanged
        assert turn["played_points"] == played
        view = turn["expert"]
        if turn["ply"] == 1:  # the empty board: nothing to look ahead at
            assert view is None
        else:
            assert pos.check(view["best_move"])[turn["seat"] - 1] >= 1
            assert view["reason"] in reasons
            if view["best_move"] == move or view["reason"] == "as_good":
                assert view["loss"] in (0, 0.0, None) or view["loss"] <= 0
            if view["loss"] is not None:
                assert view["mistake"] == (view["loss"] >= MISTAKE)
        pos.play(move)
    for player in data["players"]:
        mine = [t for t in data["turns"] if t["seat"] == player["seat"]]
        assert player["mistakes"] == sum(1 for t in mine if t["expert"] and t["expert"]["mistake"])
    # Random scoring turns lose lead somewhere against the expert's view.
    assert any(t["expert"] and t["expert"]["loss"] for t in data["turns"] if t["seat"] == 2)


def test_accuracy_is_100_when_nothing_was_available():
    data = analysis_compute({"players": 3, "moves": ["SE6 RF6 HG6"]})
    assert [p["turns"] for p in data["players"]] == [1, 0, 0]
    assert [p["accuracy"] for p in data["players"]] == [100.0, 100.0, 100.0]
    assert data["players"][1]["biggest_misses"] == []


def _finished_game(*, hint: bool = False) -> Game:
    """A 2-player game of four turns ended by a resignation; seat 2 plays badly."""
    game = make_game(players=2)
    rng = random.Random(4)
    for _ in range(4):
        game.refresh_from_db()
        seat = game.seats.get(seat=game.to_move)
        pos = selectors.position_of(game)
        if hint and game.ply == 2:
            services.game_hint(game_id=game.pk, user=seat.user)
        turn = bots.medium_turn(pos, rng) if seat.seat == 1 else bots.easy_turn(pos, rng)
        services.game_move_make(game_id=game.pk, user=seat.user, move=str(turn), ply=game.ply)
    services.game_resign(game_id=game.pk, user=game.seats.get(seat=2).user)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


@pytest.mark.django_db
def test_the_analysis_of_a_finished_game_is_stored_once():
    game = _finished_game(hint=True)
    analysis = game_analyse(game_id=game.pk)
    assert analysis is not None
    assert analysis.status == Analysis.Status.DONE
    turns = analysis.data["turns"]
    stored = list(game.turns.order_by("ply"))
    assert [t["move"] for t in turns] == [t.move for t in stored]
    assert [t["played_points"] for t in turns] == [t.points[t.seat - 1] for t in stored]
    assert [t["hint"] for t in turns] == [False, False, True, False]

    first = Analysis.objects.get(game=game)
    again = tasks.analyse_game(game.pk)
    assert again is True
    assert Analysis.objects.filter(game=game).count() == 1
    second = Analysis.objects.get(game=game)
    assert (second.pk, second.updated_at, second.data) == (first.pk, first.updated_at, first.data)


@pytest.mark.django_db
def test_a_pending_row_is_completed_and_unfinished_games_are_not_analysed():
    game = make_game(players=2)
    assert game_analyse(game_id=game.pk) is None
    assert game_analyse(game_id=10**9) is None
    assert not Analysis.objects.exists()
    game = _finished_game()
    Analysis.objects.create(game=game)  # e.g. a worker died after creating it
    analysis = game_analyse(game_id=game.pk)
    assert analysis is not None
    assert analysis.status == Analysis.Status.DONE
    assert Analysis.objects.filter(game=game).count() == 1


@pytest.mark.django_db
def test_the_api_answers_pending_then_done():
    game = _finished_game()  # its analysis task was not run (no on-commit callbacks here)
    client = APIClient()
    url = reverse("api-game-analysis", args=[game.pk])
    response = client.get(url)
    assert response.status_code == 200
    assert response.json() == {"status": "pending", "turns": [], "players": []}

    tasks.analyse_game(game.pk)
    body = client.get(url).json()
    assert body["status"] == "done"
    assert body == analysis_state(game_id=game.pk)
    assert len(body["turns"]) == 4
    for turn in body["turns"]:
        assert {"ply", "seat", "played_points", "best_points", "best_move", "missed"} <= set(turn)
    assert [p["seat"] for p in body["players"]] == [1, 2]
    for player in body["players"]:
        assert {"seat", "missed_total", "accuracy"} <= set(player)


@pytest.mark.django_db
def test_the_api_answers_pending_for_a_game_in_progress_and_404_for_no_game():
    game = make_game(players=2)
    client = APIClient()
    assert client.get(reverse("api-game-analysis", args=[game.pk])).json()["status"] == "pending"
    response = client.get(reverse("api-game-analysis", args=[10**9]))
    assert response.status_code == 404
    assert "error" in response.json()

"""The page scripts' pure helpers (ES modules under static/js/lib), run in Node: the replay's
client-side board reconstruction must give the server's board after every turn; the board codec
(static/js/codec.js) is the one the engine generates."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation

from games import services
from games.engine.search import best_turn
from games.selectors import game_get, game_state, position_of
from games.views import client_strings
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.games.node_js import needs_node, run_module
from tests.games.services.helpers import play_best_turn

STATIC_JS = Path(settings.BASE_DIR) / "static" / "js"


@pytest.fixture
def run_board_js(js_tree: Path):
    """Evaluate an expression with ``S`` the pure modules' exports and ``values`` as constants."""

    def run(expression: str, **values: object) -> object:
        script = (
            "const S = {\n"
            + "".join(
                f"  ...(await import({json.dumps((js_tree / 'lib' / name).as_uri())})),\n"
                for name in ("notation.js", "util.js", "seats.js")
            )
            + "};\n"
            + "".join(f"const {name} = {json.dumps(value)};\n" for name, value in values.items())
            + f"process.stdout.write(JSON.stringify({expression}));\n"
        )
        return run_module(script)

    return run


def test_the_committed_codec_is_the_one_the_engine_generates():
    """static/js/codec.js is `python -m games.engine codec-js` (regenerate it after changing
    the engine's notation)."""
    done = subprocess.run(
        [sys.executable, "-m", "games.engine", "codec-js"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=settings.BASE_DIR,
    )
    assert (STATIC_JS / "codec.js").read_text() == done.stdout


@needs_node
def test_the_codec_gives_the_engine_characters(run_board_js):
    from games.engine import Position

    position = Position(players=4)
    position.play("SA1 RB1 HC1")
    rows = position.board_text()
    assert run_board_js("S.place(S.emptyBoard(), S.parseMove('SA1 RB1 HC1'), 1)") == rows
    assert run_board_js("S.boardAfter([{seat: 4, move: 'RA1'}], 1)[0][0]") == "4"


@needs_node
def test_parse_move_and_back(run_board_js):
    assert run_board_js('S.parseMove("sf5  RF6 hf7")') == [
        {"piece": "S", "cell": "F5"},
        {"piece": "R", "cell": "F6"},
        {"piece": "H", "cell": "F7"},
    ]
    assert run_board_js('S.moveText(S.parseMove("sl12 ra1"))') == "SL12 RA1"
    for bad in ["", "SF13", "XF5", "SM1", "S5F", "SF0"]:
        assert run_board_js("S.parseMove(text)", text=bad) is None


@needs_node
def test_format_fills_named_placeholders(run_board_js):
    assert run_board_js('S.format("%(cell)s: roof of seat %(seat)s", {cell: "F5", seat: 2})') == (
        "F5: roof of seat 2"
    )


@needs_node
@pytest.mark.django_db
def test_board_after_every_turn_matches_the_server(run_board_js):
    users = [UserFactory(), UserFactory(), UserFactory()]
    game = make_game(players=3, users=users)
    boards = [list(game_get(game.pk).board)]
    for ply in range(7):
        game = game_get(game.pk)
        move = str(best_turn(position_of(game)).turn)
        mover = users[game.to_move - 1]
        services.game_move_make(game_id=game.pk, user=mover, move=move, ply=ply)
        boards.append(list(game_get(game.pk).board))
    turns = game_state(game_get(game.pk))["turns"]
    rebuilt = run_board_js(
        "Array.from({length: turns.length + 1}, (_, ply) => S.boardAfter(turns, ply))",
        turns=turns,
    )
    assert rebuilt == boards


@needs_node
@pytest.mark.django_db
def test_result_words_match_the_server_banner(run_board_js):
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    game = make_game(users=[alice, bob])
    play_best_turn(game)
    play_best_turn(game)  # both have moved: not aborted
    services.game_resign(game_id=game.pk, user=alice)
    state = game_state(game_get(game.pk))
    with translation.override("en"):
        strings = json.loads(json.dumps(client_strings(), default=str))
    words = run_board_js("S.resultWords(state, strings)", state=state, strings=strings)
    assert words == {"headline": "Winner: bob", "reason": "The game is over: resignation."}


@needs_node
@pytest.mark.django_db
def test_rating_words_show_the_change_or_why_it_did_not_count(run_board_js):
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    game = make_game(users=[alice, bob], rated=True)
    play_best_turn(game)
    play_best_turn(game)
    services.game_resign(game_id=game.pk, user=alice)
    seats = game_state(game_get(game.pk), ratings=True)["seats"]
    with translation.override("en"):
        strings = json.loads(json.dumps(client_strings(), default=str))
    words = run_board_js(
        "seats.map((seat) => S.ratingWords(seat, strings))", seats=seats, strings=strings
    )
    loss, win = seats[0]["rating_change"], seats[1]["rating_change"]
    assert words == [
        f"Rating 1500 → {1500 + loss} (\u2212{-loss})",
        f"Rating 1500 → {1500 + win} (+{win})",
    ]
    casual = [{**seats[0], "rating_change": None, "rating_reason": "casual"}]
    assert run_board_js(
        "seats.map((seat) => S.ratingWords(seat, strings))", seats=casual, strings=strings
    ) == ["not counted: casual game"]


@needs_node
@pytest.mark.django_db
def test_result_words_of_an_aborted_game_name_no_winner(run_board_js):
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    game = make_game(users=[alice, bob])
    services.game_resign(game_id=game.pk, user=alice)
    state = game_state(game_get(game.pk))
    with translation.override("en"):
        strings = json.loads(json.dumps(client_strings(), default=str))
    words = run_board_js("S.resultWords(state, strings)", state=state, strings=strings)
    assert (
        words["headline"] == "Aborted: the game ended before every player had moved, so nobody won."
    )

"""The game page's words without sight (static/js/a11y/game.js) and the board's keys
(static/js/a11y/grid_keys.js), run in Node on a real game's state: the command line's answers,
the turns as the live region says them, where each key leads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.utils import translation

from games.engine.notation import read_board
from games.engine.study import siesta_counts
from games.selectors import game_get, game_state
from games.views import client_strings
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.games.node_js import needs_node, run_module
from tests.games.services.helpers import play_best_turn

pytestmark = [needs_node, pytest.mark.django_db]


def run_a11y(js_tree: Path, expression: str, language: str = "en", **values: object) -> object:
    with translation.override(language):
        strings = json.loads(json.dumps(client_strings(), default=str))
    script = (
        f"globalThis.document = {{documentElement: {{lang: {json.dumps(language)}}}}};\n"
        "const A = {\n"
        f"  ...(await import({json.dumps((js_tree / 'a11y' / 'game.js').as_uri())})),\n"
        f"  ...(await import({json.dumps((js_tree / 'a11y' / 'grid_keys.js').as_uri())})),\n"
        "};\n"
        f"const strings = {json.dumps(strings)};\n"
        + "".join(f"const {name} = {json.dumps(value)};\n" for name, value in values.items())
        + f"process.stdout.write(JSON.stringify({expression}));\n"
    )
    return run_module(script)


@pytest.fixture
def state():
    game = make_game(users=[UserFactory(username="ana"), UserFactory(username="bo")])
    play_best_turn(game)
    play_best_turn(game)
    return json.loads(json.dumps(game_state(game_get(game.pk)), default=str))


def test_the_command_line_answers_in_words(js_tree, state):
    asked = ["score", "turn", "last", "pieces", "row 1", "column F", "cell F5", "dance", "help"]
    answers = run_a11y(
        js_tree,
        "questions.map((q) => A.answer(state, 1, q, strings))",
        state=state,
        questions=asked,
    )
    score, turn, last, pieces, row, column, cell, unknown, helped = answers
    ana, bo = (seat["score"] for seat in state["seats"])
    assert score.startswith(f"ana (player 1): {ana} point")
    assert f"bo (player 2): {bo} point" in score
    assert turn.startswith("Your turn. Time left: ")
    first, second = state["turns"]
    assert last.startswith(f"ana (player 1) played {first['move']} and scored ")
    assert f"bo (player 2) played {second['move']} and scored " in last
    assert pieces.startswith(f"In the supply: {state['supply']['suns']} suns, ")
    assert "ana (player 1) has " in pieces
    assert row.startswith("A1")
    assert row.endswith(".")
    assert column.startswith("F1")
    assert cell.startswith("F5: ")
    assert unknown is None
    assert helped.startswith("Type a turn such as SF5 RF6 HF7")


def test_a_roof_is_named_with_its_owner_and_the_language_has_its_own_commands(js_tree, state):
    roof = next(
        f"{'ABCDEFGHIJKL'[c]}{r + 1}"
        for r, line in enumerate(state["board"])
        for c, char in enumerate(line)
        if char == "1"
    )
    said = run_a11y(js_tree, "A.cellWords(state, roof, strings)", state=state, roof=roof)
    row, column = int(roof[1:]) - 1, "ABCDEFGHIJKL".index(roof[0])
    count = int(state["siestas"][row][column])
    assert count >= 1  # a first turn makes a siesta: sun, roof, shadow
    assert said == f"{roof}: roof of ana (player 1), {count} siesta" + ("s" if count > 1 else "")
    spanish = run_a11y(js_tree, "A.answer(state, 2, 'puntos', strings)", "es", state=state)
    assert spanish.startswith("ana (jugador 1): ")


@pytest.mark.parametrize(
    ("key", "ctrl", "to"),
    [
        ("ArrowLeft", False, "E6"),
        ("ArrowDown", False, "F7"),
        ("Home", False, "A6"),
        ("End", False, "L6"),
        ("PageUp", False, "F1"),
        ("PageDown", False, "F12"),
        ("Home", True, "A1"),
        ("End", True, "L12"),
        ("Tab", False, None),
    ],
)
def test_each_key_leads_to_its_cell(js_tree, key, ctrl, to):
    event = {"key": key, "ctrlKey": ctrl}
    assert run_a11y(js_tree, "A.keyTarget('F6', event)", event=event) == to


def test_the_board_stops_at_its_edges(js_tree):
    keys = ["ArrowLeft", "ArrowUp"]
    assert run_a11y(js_tree, "keys.map((key) => A.keyTarget('A1', {key}))", keys=keys) == [
        "A1",
        "A1",
    ]


def test_each_cell_says_the_siestas_it_is_part_of(js_tree, state):
    # S R H R S in row 1 (two siestas share C1), and a lone sun at A3.
    board = ["S1#2S", "", "S"]
    state = {**state, "board": read_board(board), "siestas": siesta_counts(board)}
    cells = ["A1", "B1", "C1", "D1", "E1", "F1", "A3"]
    said = run_a11y(
        js_tree, "cells.map((cell) => A.cellWords(state, cell, strings))", state=state, cells=cells
    )
    assert said == [
        "A1: sun, 1 siesta",
        "B1: roof of ana (player 1), 1 siesta",
        "C1: shadow, 2 siestas",
        "D1: roof of bo (player 2), 1 siesta",
        "E1: sun, 1 siesta",
        "F1: empty",
        "A3: sun",
    ]
    # The command line reads them too, and in the page's language.
    assert run_a11y(js_tree, "A.answer(state, 1, 'cell c1', strings)", state=state) == (
        "C1: shadow, 2 siestas"
    )
    german = run_a11y(js_tree, "A.cellWords(state, 'B1', strings)", "de", state=state)
    assert german == "B1: Dach von ana (Spieler 1), 1 Siesta"

"""Every refusal carries a code and the params its English text was made from, so that the site
can say it in the player's language; the English text stays what the command line prints."""

from __future__ import annotations

import pytest

from games.engine import EngineError, IllegalMoveError, Position, Termination, Turn
from games.engine.errors import CODES


def refusal(board: list[str], move: str, **setup: object) -> EngineError:
    position = Position(players=2, board=board, **setup)  # type: ignore[arg-type]
    with pytest.raises(EngineError) as raised:
        position.play(move)
    return raised.value


@pytest.mark.parametrize(
    ("board", "move", "setup", "code", "params", "text"),
    [
        (["S"], "SA1 RB1 HC1", {}, "occupied", {"cell": "A1"}, "A1 is already occupied"),
        (["S"], "RF6", {}, "not_adjacent", {"cell": "F6"}, "F6 is not next"),
        (["#"], "SB1", {}, "sun_next_to_shadow", {"cell": "B1"}, "a sun at B1 would be next"),
        (["S"], "HB1", {}, "shadow_next_to_sun", {"cell": "B1"}, "a shadow at B1 would be next"),
        (["S"], "SB1", {"suns": 0}, "no_suns_left", {"cell": "B1"}, "no suns are left for B1"),
        (
            ["1"],
            "HB1",
            {"shadows": 0, "check_start": False},
            "no_shadows_left",
            {"cell": "B1"},
            "no shadows are left",
        ),
        (
            ["S"],
            "RB1",
            {"roofs": [0, 15], "check_start": False},
            "no_roofs_left",
            {"cell": "B1", "seat": 1},
            "seat 1",
        ),
        (["1"], "HB1", {}, "shadow_not_in_siesta", {"cell": "B1"}, "not be part of any siesta"),
        (["S"], "RB1", {}, "turn_too_short", {"count": 1}, "exactly three pieces (1 given)"),
        (["S"], "SB1 SC1 SD1", {}, "no_point", {"move": "SB1 SC1 SD1", "seat": 1}, "for seat 1"),
        ([], "SM1", {}, "off_board", {"cell": "M1"}, "M1 is off the board"),
        ([], "XA1", {}, "bad_piece", {"letter": "X"}, "'X' is not a piece"),
        ([], "S", {}, "bad_placement", {"text": "S"}, "'S' is not a placement"),
        ([], "SA1 SB1 SC1 SD1", {}, "too_many_placements", {"count": 4}, "at most three"),
    ],
)
def test_refusals_carry_a_code_and_params(board, move, setup, code, params, text):
    error = refusal(board, move, **setup)
    assert error.code == code
    assert error.params == params
    assert text in str(error)
    assert set(params) == set(CODES[code].split())
    if isinstance(error, IllegalMoveError) and "cell" in params:
        assert error.cell == params["cell"]


def test_a_placement_after_the_end_names_the_ending():
    position = Position(players=2, board=["S"], suns=1)
    with pytest.raises(IllegalMoveError) as raised:
        position.play("SB1 RC1")
    assert raised.value.code == "after_end"
    assert raised.value.params == {"cell": "C1", "placement": "RC1", "ending": "last_sun"}


def test_a_move_after_the_end_of_the_game():
    position = Position(players=2, board=["S"])
    position.end_game(Termination.LAST_SUN)
    with pytest.raises(IllegalMoveError) as raised:
        position.play("SB1 RC1 SD1")
    assert raised.value.code == "game_over"


def test_a_cell_that_cannot_be_read():
    from games.engine import parse_cell

    with pytest.raises(EngineError) as raised:
        parse_cell("5F")
    assert (raised.value.code, raised.value.params) == ("bad_cell", {"text": "5F"})


def test_notation_refusals_without_a_position():
    with pytest.raises(EngineError) as raised:
        Turn.parse("")
    assert raised.value.code == "empty_move"
    with pytest.raises(EngineError) as raised:
        Turn.parse(5)  # type: ignore[arg-type]
    assert raised.value.code == "move_not_text"


def test_errors_without_a_code_still_work():
    error = IllegalMoveError("something else", "A1")
    assert (error.code, error.params, error.cell, str(error)) == ("", {}, "A1", "something else")

"""Cells, pieces, placements and turns: parsing, printing, and the errors for bad text; the
board codec."""

import json

import pytest

from games.engine import (
    EngineError,
    NotationError,
    Piece,
    Placement,
    SetupError,
    Turn,
    cell_name,
    notation,
    parse_cell,
)
from games.engine.notation import CELLS, SIZE


def test_every_cell_round_trips_through_its_name():
    for cell in range(CELLS):
        assert parse_cell(cell_name(cell)) == cell


@pytest.mark.parametrize(
    ("text", "cell"),
    [("A1", 0), ("L1", SIZE - 1), ("A2", SIZE), ("F5", 4 * SIZE + 5), ("L12", CELLS - 1)],
)
def test_cell_index_is_row_times_twelve_plus_column(text, cell):
    assert parse_cell(text) == cell
    assert cell_name(cell) == text


@pytest.mark.parametrize("text", ["f5", "F5", " f5 "])
def test_cells_are_case_insensitive(text):
    assert parse_cell(text) == parse_cell("F5")


@pytest.mark.parametrize(("text", "named"), [("A13", "A13"), ("M1", "M1"), ("A0", "A0")])
def test_off_board_cell_is_an_error_naming_it(text, named):
    with pytest.raises(NotationError, match=named) as caught:
        parse_cell(text)
    assert "off the board" in str(caught.value)


@pytest.mark.parametrize("text", ["", "F", "5F", "FF5", "F5x", "A1000", "F-5"])
def test_unreadable_cell_is_an_error_naming_the_text(text):
    with pytest.raises(NotationError) as caught:
        parse_cell(text)
    assert f"'{text}'" in str(caught.value)


def test_notation_errors_are_value_errors():
    assert issubclass(NotationError, ValueError)


@pytest.mark.parametrize(
    ("text", "piece", "cell"),
    [("SF5", Piece.SUN, "F5"), ("RA1", Piece.ROOF, "A1"), ("HL12", Piece.SHADOW, "L12")],
)
def test_placement_parses_piece_and_cell(text, piece, cell):
    placement = Placement.parse(text)
    assert placement.piece is piece
    assert cell_name(placement.cell) == cell
    assert str(placement) == text
    assert Placement.parse(str(placement)) == placement


@pytest.mark.parametrize("text", ["sf5", "sF5", "Sf5"])
def test_placement_is_case_insensitive_and_prints_upper_case(text):
    assert Placement.parse(text) == Placement.parse("SF5")
    assert str(Placement.parse(text)) == "SF5"


def test_placement_repr_evaluates_back():
    placement = Placement.parse("hc3")
    assert repr(placement) == "Placement.parse('HC3')"
    assert eval(repr(placement)) == placement


@pytest.mark.parametrize(("text", "named"), [("XF5", "'X'"), ("TA1", "'T'"), ("1A1", "'1'")])
def test_bad_piece_letter_is_an_error_naming_it(text, named):
    with pytest.raises(NotationError, match=named) as caught:
        Placement.parse(text)
    assert "not a piece" in str(caught.value)


@pytest.mark.parametrize(("text", "named"), [("SA13", "A13"), ("RM1", "M1"), ("HA0", "A0")])
def test_placement_on_an_off_board_cell_is_an_error_naming_the_cell(text, named):
    with pytest.raises(NotationError, match=named):
        Placement.parse(text)


@pytest.mark.parametrize("text", ["S", "SA", "5"])
def test_too_short_placement_is_an_error_naming_it(text):
    with pytest.raises(NotationError, match=f"'{text}' is not a placement"):
        Placement.parse(text)


def test_turn_round_trips():
    turn = Turn.parse("SF5 RF6 HF7")
    assert str(turn) == "SF5 RF6 HF7"
    assert Turn.parse(str(turn)) == turn
    assert len(turn) == 3
    assert [str(p) for p in turn.placements] == ["SF5", "RF6", "HF7"]
    assert eval(repr(turn)) == turn


def test_turn_keeps_the_order_of_its_placements():
    assert Turn.parse("HF7 RF6 SF5") != Turn.parse("SF5 RF6 HF7")
    assert str(Turn.parse("HF7 RF6 SF5")) == "HF7 RF6 SF5"


@pytest.mark.parametrize("text", ["sf5 rf6 hf7", "SF5 rf6 Hf7", "  sf5   RF6\thf7  "])
def test_turn_is_case_and_whitespace_insensitive(text):
    assert Turn.parse(text) == Turn.parse("SF5 RF6 HF7")
    assert str(Turn.parse(text)) == "SF5 RF6 HF7"


@pytest.mark.parametrize("text", ["SA1", "SA1 RB1"])
def test_turn_of_one_or_two_placements_parses(text):
    # Short turns are legal notation: a turn may stop at a placement that ends the game.
    assert str(Turn.parse(text)) == text


@pytest.mark.parametrize("text", ["", "   ", "\t\n"])
def test_empty_move_is_an_error(text):
    with pytest.raises(NotationError, match="empty move"):
        Turn.parse(text)


def test_more_than_three_placements_is_an_error():
    with pytest.raises(NotationError, match=r"at most three pieces \(4 given\)"):
        Turn.parse("SA1 RB1 HC1 HD1")


@pytest.mark.parametrize(
    ("text", "named"),
    [("SA1 XB1 HC1", "'X'"), ("SA1 RB13 HC1", "B13"), ("SA1 RM1 HC1", "M1"), ("SA1 R HC1", "'R'")],
)
def test_turn_with_a_bad_placement_is_an_error_naming_it(text, named):
    with pytest.raises(NotationError, match=named):
        Turn.parse(text)


@pytest.mark.parametrize("value", [None, 5, ["SA1"], b"SA1"])
def test_turn_of_a_non_string_is_an_error(value):
    with pytest.raises(NotationError, match="must be a string"):
        Turn.parse(value)


# -- the board codec --------------------------------------------------------------------------


def test_board_chars_are_indexed_by_the_engines_cell_codes():
    from games.engine.variants import EMPTY, ROOF0, SHADOW, SUN

    assert notation.BOARD_CHARS[EMPTY] == "."
    assert notation.BOARD_CHARS[SUN] == "S"
    assert notation.BOARD_CHARS[SHADOW] == "#"
    assert notation.BOARD_CHARS[ROOF0 : ROOF0 + 4] == "1234"


def test_every_square_round_trips_through_its_char():
    for char in notation.BOARD_CHARS:
        square = notation.decode_square(char)
        assert square.char == char == notation.encode_square(square.kind, square.seat)
    assert set(notation.SQUARES) == set(notation.BOARD_CHARS)


@pytest.mark.parametrize("char", ["x", "0", "5", "s", "", ".."])
def test_unknown_board_chars_are_an_error(char):
    with pytest.raises(NotationError, match="board character"):
        notation.decode_square(char)


def test_a_roof_needs_a_seat():
    with pytest.raises(NotationError, match="seat"):
        notation.encode_square("roof")


def test_placed_chars():
    assert [notation.placed_char(piece, 3) for piece in Piece] == ["S", "3", "#"]


def test_board_codec_is_plain_json_matching_the_squares():
    codec = json.loads(json.dumps(notation.BOARD_CODEC))
    assert codec["size"] == 12
    assert codec["columns"] == "ABCDEFGHIJKL"
    assert codec["chars"] == {
        ".": {"kind": "empty", "seat": None},
        "S": {"kind": "sun", "seat": None},
        "#": {"kind": "shadow", "seat": None},
        "1": {"kind": "roof", "seat": 1},
        "2": {"kind": "roof", "seat": 2},
        "3": {"kind": "roof", "seat": 3},
        "4": {"kind": "roof", "seat": 4},
    }
    assert codec["pieces"] == {"S": "sun", "R": "roof", "H": "shadow"}


def test_read_board_pads_and_checks():
    assert notation.read_board([]) == list(notation.EMPTY_BOARD)
    assert notation.read_board(["S", "", "..1"])[:3] == ["S" + "." * 11, "." * 12, "..1" + "." * 9]
    with pytest.raises(SetupError, match="C1: '3'") as caught:
        notation.read_board(["S13"], players=2)
    assert caught.value.cell == "C1"
    for bad, message in [("S1#", "list"), (["."] * 13, "at most 12"), (["." * 13], "row 1")]:
        with pytest.raises(EngineError, match=message):
            notation.read_board(bad)


def test_board_squares_name_every_cell_row_by_row():
    squares = list(notation.board_squares(["S1"]))
    assert len(squares) == 144
    assert [cell_name(cell) for cell, _ in squares[:2]] == ["A1", "B1"]
    assert [sq for _, sq in squares[:3]] == [
        notation.Square("sun"),
        notation.Square("roof", 1),
        notation.Square("empty"),
    ]

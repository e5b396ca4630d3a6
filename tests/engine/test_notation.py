"""Cells, pieces, placements and turns: parsing, printing, and the errors for bad text."""

import pytest

from games.engine import NotationError, Piece, Placement, Turn, cell_name, parse_cell
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

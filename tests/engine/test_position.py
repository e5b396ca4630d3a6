"""The position: playing and undoing turns, the rules of a placement and of a turn, previews,
setups, and the two Double Siesta variants on hand-made boards. (Teams are not the engine's
business: the site adds up the seats' scores.)"""

import random

import pytest

from games.engine import (
    EngineError,
    GameOverError,
    IllegalMoveError,
    NotationError,
    Position,
    Termination,
    Turn,
)
from games.engine.search import best_turn
from tests.engine.helpers import NO_SCORING_MOVE_BOARD, pick_turn, reference_worths, snapshot

EMPTY_ROW = "." * 12


# -- play and undo ------------------------------------------------------------------------------


def test_first_turn_scores_and_passes_the_move():
    pos = Position(players=2)
    assert pos.play("SA1 RB1 HC1") == (1, 0)
    assert pos.board_text()[0] == "S1#........."
    assert pos.board_text()[1:] == [EMPTY_ROW] * 11
    assert pos.scores == [1, 0]
    assert pos.to_move == 2
    assert pos.supply() == {"suns": 24, "shadows": 74, "roofs": [14, 15]}
    assert pos.ply == 1
    assert not pos.over


def test_play_accepts_a_turn_object():
    pos = Position(players=3)
    assert pos.play(Turn.parse("SA1 RB1 HC1")) == (1, 0, 0)
    assert pos.to_move == 2


@pytest.mark.parametrize("players", [2, 3, 4])
def test_seats_move_in_order(players):
    pos = Position(players=players)
    rng = random.Random(players)
    seen = []
    for _ in range(2 * players):
        seen.append(pos.to_move)
        pos.play(pick_turn(pos, rng))
    assert seen == [seat for _ in range(2) for seat in range(1, players + 1)]


@pytest.mark.parametrize(("players", "variant"), [(2, "standard"), (3, "classic"), (4, "standard")])
def test_undo_restores_everything_turn_by_turn(players, variant):
    pos = Position(players=players, variant=variant)
    rng = random.Random(11)
    before = []
    while not pos.over:
        before.append(snapshot(pos))
        pos.play(pick_turn(pos, rng))
    assert pos.end is not None
    while before:
        pos.undo()
        assert snapshot(pos) == before.pop()
    assert snapshot(pos) == snapshot(Position(players=players, variant=variant))


def test_undo_of_a_game_ending_placement_reopens_the_game():
    pos = Position(players=2, board=[".1##"], suns=1)
    before = snapshot(pos)
    assert pos.play("SA1") == (2, 0)
    assert pos.end is Termination.LAST_SUN
    assert pos.to_move is None
    pos.undo()
    assert snapshot(pos) == before
    assert pos.to_move == 1
    assert not pos.over


def test_undo_of_the_turn_before_a_no_scoring_move_end_reopens_the_game():
    pos = Position(players=4, board=NO_SCORING_MOVE_BOARD)
    before = snapshot(pos)
    pos.play("HH9 HI9 HJ9")
    assert pos.end is Termination.NO_SCORING_MOVE
    pos.undo()
    assert snapshot(pos) == before


def test_undo_without_history_is_an_error():
    pos = Position(players=2, board=["S1#"])
    with pytest.raises(EngineError, match="no turn to undo"):
        pos.undo()


def test_copy_is_independent():
    pos = Position(players=2)
    pos.play("SA1 RB1 HC1")
    clone = pos.copy()
    before = snapshot(pos)
    assert clone.play("RC2 SC3 HD1") == (1, 1)
    assert snapshot(pos) == before
    assert clone.scores == [2, 1]
    clone.undo()
    assert snapshot(clone) == before


def test_check_returns_points_and_changes_nothing():
    pos = Position(players=2, board=["S1##"])
    before = snapshot(pos)
    assert pos.check("HE1 HF1 HG1") == (3, 0)
    assert snapshot(pos) == before


# -- illegal turns ------------------------------------------------------------------------------

# Each: setup keywords, the move, the cell the error names (None when it is about the whole turn),
# and a piece of the message.
ILLEGAL_TURNS = {
    "occupied": ({}, "SA1 RA2 HD1", "A1", "already occupied"),
    "occupied-within-the-turn": ({}, "HD1 HD1 RE1", "D1", "already occupied"),
    "not-adjacent": ({}, "SA5 RA2 HD1", "A5", "not next to any piece"),
    "sun-next-to-shadow": ({}, "SC2 RA2 HD1", "C2", "next to a shadow"),
    "sun-next-to-a-shadow-of-this-turn": ({}, "HD1 HE1 SF1", "F1", "next to a shadow"),
    "shadow-next-to-sun": ({}, "HA2 RB2 HD1", "A2", "next to a sun"),
    "shadow-not-in-a-siesta": ({}, "HD1 HC2 RB2", "C2", "not be part of any siesta"),
    "no-score": ({}, "RD1 RE1 RF1", None, "scores no point for seat 1"),
    "one-placement": ({}, "HD1", None, "exactly three pieces (1 given)"),
    "two-placements": ({}, "HD1 HE1", None, "exactly three pieces (2 given)"),
    "after-last-sun": ({"suns": 1}, "SA2 RB2 HD1", "B2", "no placement may follow it"),
    "after-last-shadow": ({"shadows": 1}, "HD1 HE1 RF1", "E1", "no placement may follow it"),
    "after-last-roof": ({"roofs": [1, 15]}, "RA2 HD1 RB2", "D1", "no placement may follow it"),
    "no-suns-left": ({"suns": 0}, "SA2 RB2 HD1", "A2", "no suns are left"),
    "no-shadows-left": ({"shadows": 0}, "RA2 RB2 HD1", "D1", "no shadows are left"),
    "no-roofs-left": ({"roofs": [0, 15]}, "HD1 RE1 RF1", "E1", "no roofs left"),
}


@pytest.mark.parametrize(
    ("setup", "move", "cell", "message"), list(ILLEGAL_TURNS.values()), ids=list(ILLEGAL_TURNS)
)
def test_illegal_turn_names_its_cell_and_changes_nothing(setup, move, cell, message):
    pos = Position(players=2, board=["S1#"], **setup)
    assert not pos.over
    before = snapshot(pos)
    with pytest.raises(IllegalMoveError) as caught:
        pos.play(move)
    error = caught.value
    assert message in str(error)
    assert error.cell == cell
    if cell is not None:
        assert cell in str(error)
    assert snapshot(pos) == before
    # The position is still usable: the best turn plays and scores what the search says.
    best = best_turn(pos)
    assert pos.play(best.turn)[0] == best.points


def test_illegal_turn_is_a_value_error():
    pos = Position(players=2, board=["S1#"])
    with pytest.raises(ValueError, match="already occupied"):
        pos.play("SA1 RA2 HD1")


def test_unreadable_move_is_a_notation_error_and_changes_nothing():
    pos = Position(players=2, board=["S1#"])
    before = snapshot(pos)
    with pytest.raises(NotationError, match="A13"):
        pos.play("HD1 RA13 RF1")
    assert snapshot(pos) == before


def test_move_after_the_game_is_over_is_an_error():
    pos = Position(players=2, board=[".1##"], suns=1)
    pos.play("SA1")
    assert pos.over
    before = snapshot(pos)
    with pytest.raises(GameOverError, match="over") as caught:
        pos.play("RE1 HE2 RF1")
    assert isinstance(caught.value, IllegalMoveError)
    assert caught.value.cell is None
    assert snapshot(pos) == before
    with pytest.raises(GameOverError):
        pos.preview("RE1")


def test_only_the_very_first_piece_may_go_anywhere():
    pos = Position(players=2)
    assert pos.play("RL11 SL12 HL10") == (1, 0)
    pos = Position(players=2)
    with pytest.raises(IllegalMoveError, match="F6 is not next to any piece"):
        pos.play("SA1 RB1 HF6")


# -- preview ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("move", "points", "end"),
    [
        ("HE1", (1, 0), None),
        ("HE1 HF1", (2, 0), None),
        ("HE1 HF1 HG1", (3, 0), None),
        ("RE1", (0, 0), None),
        ("RA2 RA3", (0, 0), None),
    ],
)
def test_preview_gives_the_points_so_far(move, points, end):
    pos = Position(players=2, board=["S1##"])
    before = snapshot(pos)
    assert pos.preview(move) == (points, end)
    assert snapshot(pos) == before


def test_preview_reports_the_end_a_placement_causes():
    pos = Position(players=2, board=[".1##"], suns=1)
    assert pos.preview("SA1") == ((2, 0), Termination.LAST_SUN)
    assert pos.preview("RE1 SA1") == ((2, 0), Termination.LAST_SUN)


@pytest.mark.parametrize(
    ("setup", "move", "cell"),
    [
        ({}, "HE1 SF1", "F1"),
        ({}, "HE1 HE1", "E1"),
        ({}, "SA5", "A5"),
        ({}, "HA2", "A2"),
        ({"suns": 1}, "SA2 RB2", "B2"),
    ],
)
def test_preview_error_names_the_first_illegal_placement(setup, move, cell):
    pos = Position(players=2, board=["S1##"], **setup)
    before = snapshot(pos)
    with pytest.raises(IllegalMoveError, match=cell) as caught:
        pos.preview(move)
    assert caught.value.cell == cell
    assert snapshot(pos) == before


# -- setups -------------------------------------------------------------------------------------


def test_short_and_missing_rows_are_empty():
    pos = Position(players=2, board=["S1#", "", "..2"])
    assert pos.board_text() == ["S1#.........", EMPTY_ROW, "..2........."] + [EMPTY_ROW] * 9


def test_setup_supply_defaults_to_the_full_supply_less_the_board():
    pos = Position(players=3, board=["S1##", "SS23"])
    assert pos.supply() == {"suns": 22, "shadows": 73, "roofs": [14, 14, 14]}


def test_setup_scores_default_to_the_worth_of_the_board():
    pos = Position(players=2, board=["S1##"])
    assert pos.scores == [2, 0]


def test_explicit_supply_and_scores_are_kept():
    pos = Position(
        players=2, board=["S1##"], suns=3, shadows=4, roofs=[2, 3], scores=[10, 7], to_move=2
    )
    assert pos.supply() == {"suns": 3, "shadows": 4, "roofs": [2, 3]}
    assert pos.scores == [10, 7]
    assert pos.worths() == (2, 0)
    assert pos.to_move == 2


def test_explicit_supply_allows_more_pieces_on_the_board_than_the_totals():
    pos = Position(players=2, board=["S" * 12] * 3, suns=0)
    assert pos.supply()["suns"] == 0


@pytest.mark.parametrize(
    ("board", "what"),
    [
        (["S" * 12, "S" * 12, "S.S.S"], "suns"),
        (["#" * 12] * 6 + ["####"], "shadows"),
        (["1" * 12, "1111"], "roofs"),
    ],
)
def test_more_pieces_than_the_supply_is_an_error(board, what):
    with pytest.raises(EngineError, match=f"more {what} than the game has"):
        Position(players=2, board=board)


@pytest.mark.parametrize(
    ("board", "message"),
    [
        (["S1X"], "C1: 'X' is not a board character"),
        (["", "..s"], "C2: 's' is not a board character"),
        (["S13"], "C1: '3' is not a board character"),
        (["S1#", "...0"], "D2: '0' is not a board character"),
        (["S1#" + "." * 10], "row 1 has more than 12 cells"),
        ([EMPTY_ROW] * 13, "at most 12 rows"),
        ("S1#", "a list of up to 12 strings"),
        (["S1#", 5], "row 2 must be a string"),
    ],
)
def test_bad_board_text_is_an_error(board, message):
    with pytest.raises(EngineError, match=message):
        Position(players=2, board=board)


def test_seat_digits_up_to_the_number_of_players_are_roofs():
    pos = Position(players=4, board=["1234"])
    assert pos.board_text()[0] == "1234........"
    assert pos.supply()["roofs"] == [14, 14, 14, 14]


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"players": 1}, "players must be 2, 3 or 4"),
        ({"players": 5}, "players must be 2, 3 or 4"),
        ({"players": True}, "players must be 2, 3 or 4"),
        ({"variant": "x"}, "unknown variant"),
        ({"to_move": 3}, "to_move must be a seat from 1 to 2"),
        ({"to_move": 0}, "to_move must be a seat"),
        ({"suns": -1}, "suns must be whole numbers"),
        ({"shadows": 1.5}, "shadows must be whole numbers"),
        ({"roofs": [15]}, "roofs must list 2 numbers"),
        ({"roofs": [15, -1]}, "roofs must be whole numbers"),
        ({"scores": [1, 2, 3]}, "scores must list 2 numbers"),
        ({"scores": [1, "2"]}, "scores must be whole numbers"),
    ],
)
def test_bad_setup_values_are_errors(keywords, message):
    keywords = {"players": 2, **keywords}
    with pytest.raises(EngineError, match=message):
        Position(board=["S1#"], **keywords)


def test_setup_where_the_mover_cannot_score_is_over_at_once():
    pos = Position(players=2, board=["S1#"], suns=0, shadows=0)
    assert pos.end is Termination.NO_SCORING_MOVE
    assert pos.to_move is None
    unchecked = Position(players=2, board=["S1#"], suns=0, shadows=0, check_start=False)
    assert not unchecked.over
    assert unchecked.to_move == 1


def test_empty_board_without_enough_pieces_for_an_opening_is_over():
    assert Position(players=2, suns=1).end is Termination.NO_SCORING_MOVE
    assert Position(players=2, roofs=[1, 15]).end is Termination.NO_SCORING_MOVE
    assert not Position(players=2, roofs=[15, 1]).over


# -- Double Siesta: classic and standard --------------------------------------------------------

# Each: board, players, worths in standard, worths in classic.
DOUBLE_SIESTA_BOARDS = {
    "one-siesta": (["S1#"], 2, (1, 0), (1, 0)),
    "same-line-from-both-ends": (["S1#1S"], 2, (4, 0), (4, 0)),
    "same-line-long-run": (["SS11###1S"], 2, (8, 0), (8, 0)),
    "same-line-two-owners": (["S1#2S"], 2, (1, 1), (1, 1)),
    "same-line-mixed-owners": (["S12#1S"], 2, (4, 1), (2, 1)),
    "same-line-both-own-both": (["S12#21S"], 2, (4, 4), (2, 2)),
    "crossing-one-owner": (["S1#", "..1", "..S"], 2, (4, 0), (2, 0)),
    "crossing-two-owners": (["S1#", "..2", "..S"], 2, (1, 1), (1, 1)),
    "crossing-on-the-second-shadow": (["S1##", "...1", "...S"], 2, (5, 0), (3, 0)),
    "crossing-shared-roofs": (["S12#", "...2", "...S"], 3, (1, 4, 0), (1, 2, 0)),
    "four-siestas-on-one-shadow": (
        ["..S", "..1", "S1#1S", "..1", "..S"],
        2,
        (4 + 6 * 2, 0),
        (4 + 2 * 2, 0),
    ),
    "runs-not-siestas": (
        ["SS##11", "", "1#S", "", "S.1#", "", "S1.#", "", "#1#", "", "S1S"],
        2,
        (0, 0),
        (0, 0),
    ),
}


@pytest.mark.parametrize(
    ("board", "players", "standard", "classic"),
    list(DOUBLE_SIESTA_BOARDS.values()),
    ids=list(DOUBLE_SIESTA_BOARDS),
)
def test_double_siesta_worths(board, players, standard, classic):
    for variant, expected in (("standard", standard), ("classic", classic)):
        pos = Position(players=players, variant=variant, board=board, check_start=False)
        assert pos.worths() == expected, variant
        assert pos.scores == list(expected), variant
        assert reference_worths(board, players, variant) == expected, variant


def test_the_variant_is_kept():
    assert Position(players=2).variant == "standard"
    assert Position(players=2, variant="classic").variant == "classic"


def test_double_siesta_scored_when_completed_by_a_turn():
    for variant in ("standard", "classic"):
        pos = Position(players=2, variant=variant, board=["S1##"])
        assert pos.play("HE1 RF1 SG1") == (1 + 3 + 2, 0), variant


def test_crossing_scored_when_completed_by_a_turn_in_standard_only():
    board = ["", "", "", "S1#"]
    assert Position(2, "standard", board).play("RC3 SC2 RA5") == (3, 0)
    assert Position(2, "classic", board).play("RC3 SC2 RA5") == (1, 0)

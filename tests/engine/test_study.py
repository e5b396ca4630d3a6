"""The study tools (games.engine.study) against brute force on small positions: the best few
turns, the reach of a turn in progress, the checks of a hand-made setup and the turn features."""

import pytest

from games.engine import IllegalMoveError, Position, SetupError, Termination, Turn
from games.engine.search import best_turn
from games.engine.study import (
    check_setup,
    plain_worth,
    position_for,
    siesta_counts,
    single_best,
    solution_cores,
    top_turns,
    turn_features,
    turn_reach,
)
from tests.engine.helpers import siestas, snapshot
from tests.engine.test_search import BOARDS, SUPPLIES, brute_force, make_position

CASES = [
    (board, supply, variant)
    for board in BOARDS
    for supply in ("full", "1-sun", "2-shadows", "mover-1-roof", "1-of-each")
    for variant in ("standard", "classic")
]


@pytest.mark.parametrize(("board_name", "supply_name", "variant"), CASES)
def test_top_turns_are_legal_distinct_and_start_with_the_maximum(board_name, supply_name, variant):
    pos = make_position(board_name, supply_name, variant)
    turns = brute_force(pos)
    maximum = max(turns.values(), default=0)
    before = snapshot(pos)
    top = top_turns(pos, 5)
    assert snapshot(pos) == before
    if maximum == 0:
        assert top == []
        return
    assert top[0][0] == maximum
    points = [p for p, _ in top]
    assert points == sorted(points, reverse=True)
    assert len({frozenset(str(p) for p in t.placements) for _, t in top}) == len(top)
    for p, turn in top:
        assert turns[str(turn)] == p  # a legal turn scoring exactly what is shown


@pytest.mark.parametrize(("board_name", "supply_name", "variant"), CASES)
def test_turn_reach_is_the_brute_force_maximum_over_completions(board_name, supply_name, variant):
    pos = make_position(board_name, supply_name, variant)
    turns = brute_force(pos)
    if not turns:
        return
    best = max(turns, key=turns.get)
    placements = Turn.parse(best).placements
    before = snapshot(pos)
    for size in range(1, len(placements) + 1):
        prefix = Turn(placements[:size])
        reach = turn_reach(pos, prefix)
        assert snapshot(pos) == before
        expected = max(
            (points for text, points in turns.items() if text.startswith(str(prefix))),
            default=0,
        )
        assert reach.reachable == expected
        assert reach.points == pos.preview(prefix)[0]


def test_turn_reach_of_a_start_that_cannot_score_is_zero():
    pos = Position(2, board=["S1##"], check_start=False)
    reach = turn_reach(pos, "SA2")  # scores nothing yet; a roof and a shadow can still make 4
    assert reach.points == (0, 0)
    assert reach.reachable == 4
    one_roof = Position(2, board=["S1##"], roofs=[1, 15], check_start=False)
    reach = turn_reach(one_roof, "RA2")  # the mover's last roof ends the game, scoring nothing
    assert reach.end is Termination.LAST_ROOF
    assert reach.reachable == 0


def test_turn_reach_names_the_cell_of_an_illegal_placement():
    pos = Position(2, board=["S1##"])
    with pytest.raises(IllegalMoveError) as info:
        turn_reach(pos, "HE1 SF1")
    assert info.value.cell == "F1"
    assert pos.board_text()[0] == "S1##........"


def test_solution_cores_and_single_best():
    pos = Position(2, board=["S1##"])
    points, cores = solution_cores(pos)
    assert points == best_turn(pos).points == 6
    assert cores
    for core in cores:
        assert pos.preview(core)[0][0] == 6
    assert single_best(pos) == 1  # one more shadow: the most a single piece scores here


def test_check_setup_names_the_cell():
    def problem(board, **kwargs):
        with pytest.raises(SetupError) as info:
            check_setup(Position(2, board=board, check_start=False, **kwargs))
        return info.value

    assert problem(["S#"]).cell == "A1"
    assert problem(["..#"]).cell == "C1"  # a shadow in no siesta
    assert problem(["S1#", "", "....S1#"]).cell == "E3"  # not joined to the first group
    error = problem(["S1#"], suns=25)
    assert "suns" in str(error)
    assert problem(["S1#"], roofs=[15, 15]).cell is None
    check_setup(Position(2, board=["S1##", "S2##"], check_start=False))
    check_setup(Position(2, check_start=False))


@pytest.mark.parametrize("variant", ["standard", "classic"])
def test_turn_features_count_double_siestas_in_one_line(variant):
    pos = Position(2, variant, ["S1#.S"], check_start=False)
    features = turn_features(pos, "RD1 RD2 RE2")  # S1#1S: one shadow, two siestas, +2
    assert features.points == (3, 0)
    assert (features.doubles, features.crossings) == (1, 0)
    assert (features.rows, features.columns) == (1, 0)
    assert features.end is None
    assert pos.board_text()[0] == "S1#.S......."


def test_turn_features_count_crossings_in_the_standard_variant_only():
    board = ["..S", "..1", ".1#"]
    standard = turn_features(Position(2, "standard", board, check_start=False), "SA3 RD3 RE3")
    assert standard.points == (3, 0)
    assert (standard.doubles, standard.crossings) == (0, 1)
    classic = turn_features(Position(2, "classic", board, check_start=False), "SA3 RD3 RE3")
    assert classic.points == (1, 0)
    assert (classic.doubles, classic.crossings) == (0, 0)


def test_turn_features_report_the_end():
    last_sun = Position(2, board=[".1#"], suns=1, check_start=False)
    assert turn_features(last_sun, "SA1").end is Termination.LAST_SUN
    last_shadow = Position(2, board=["S1#"], shadows=1, check_start=False)
    assert turn_features(last_shadow, "HD1").end is Termination.LAST_SHADOW


@pytest.mark.parametrize("variant", ["standard", "classic"])
def test_plain_worth_leaves_out_the_bonus(variant):
    pos = Position(2, variant, ["S1#1S"])
    assert pos.worth(1) == 4
    assert plain_worth(pos, 1) == 2


def test_position_for_hands_the_move_to_another_seat():
    pos = Position(3, board=["S1##"], scores=[4, 1, 0])
    other = position_for(pos, 3)
    assert other.to_move == 3
    assert other.board_text() == pos.board_text()
    assert other.scores == [4, 1, 0]
    assert other.supply() == pos.supply()


def test_supplies_cases_stay_covered():
    assert set(SUPPLIES) >= {"full", "1-sun", "2-shadows", "mover-1-roof", "1-of-each"}


@pytest.mark.parametrize(
    ("board", "expected"),
    [
        # One siesta: its sun, roof and shadows; the lone sun after it is not part of it.
        (["S1##.S"], ["111100"]),
        # Both suns of the run belong to it; read right to left too.
        (["SS1#", "#2S"], ["1111", "111"]),
        # S R H R S: two siestas share the shadow.
        (["S1#2S"], ["11211"]),
        # A row's and a column's siestas cross on the shadow at C1.
        (["S1#", "..2", "..S"], ["112", "001", "001"]),
        # Not a siesta: no shadow after the roofs, or a gap.
        (["S1.#", "S12S"], ["0000", "0000"]),
    ],
)
def test_siesta_counts(board, expected):
    counts = siesta_counts(board)
    assert [row[: len(want)] for row, want in zip(counts, expected, strict=False)] == expected
    assert len(counts) == 12
    assert all(len(row) == 12 for row in counts)


@pytest.mark.parametrize("name", sorted(BOARDS))
def test_siesta_counts_of_shadows_agree_with_the_reference(name):
    board = BOARDS[name][1]
    counts = "".join(siesta_counts(board))
    expected = [0] * 144
    for _, shadows, _ in siestas(board):
        for cell in shadows:
            expected[cell] += 1
    text = "".join(row.ljust(12, ".") for row in board)
    shadow_cells = [i for i, char in enumerate(text) if char == "#"]
    assert [int(counts[i]) for i in shadow_cells] == [expected[i] for i in shadow_cells]

"""The exact search: ``best_turn`` against brute force on small positions (endgame supplies
included), ``has_scoring_turn``, ``best_turns`` with ties, and the turn generators."""

import random

import pytest

from games.engine import Piece, Placement, Position, Termination, Turn
from games.engine.errors import IllegalMoveError
from games.engine.notation import CELLS, parse_cell
from games.engine.scoring import _exhaustive_best
from games.engine.search import (
    best_turn,
    best_turns,
    has_scoring_turn,
    legal_turns,
    random_turn,
    scoring_turns,
)
from tests.engine.helpers import NEIGHBOURS, NO_SCORING_MOVE_BOARD, snapshot


def brute_force(pos: Position) -> dict[str, int]:
    """Every legal scoring turn of the player to move (as text) with its points for them, found
    with the position's own placement rules (``Position.place``), not the search's."""
    seat = pos.to_move
    base = pos.worth(seat)
    found: dict[str, int] = {}

    def extend(placed: list[Placement]) -> None:
        occupied = pos.occupied
        candidates = (
            {
                n
                for c in range(CELLS)
                if occupied >> c & 1
                for n in NEIGHBOURS[c]
                if not occupied >> n & 1
            }
            if occupied
            else range(CELLS)
        )
        for cell in candidates:
            for piece in Piece:
                placement = Placement(piece, cell)
                try:
                    ended = pos.place(placement, seat)
                except IllegalMoveError:
                    continue
                turn = [*placed, placement]
                if ended is not None or len(turn) == 3:
                    gain = pos.worth(seat) - base
                    if gain > 0:
                        found[str(Turn(tuple(turn)))] = gain
                else:
                    extend(turn)
                pos.unplace(cell)

    extend([])
    return found


# Small positions: (players, variant-independent board, seat to move).
BOARDS = {
    "extend-or-double": (2, ["S1##"], 1),
    "three-players": (3, ["S1##", "...2", "...S"], 2),
    "four-players-crossing": (4, ["", "", "", "S1#", "..4", "..S"], 4),
}

# Supplies left (seat 0 in "roofs" stands for the player to move).
SUPPLIES = {
    "full": {},
    "1-sun": {"suns": 1},
    "2-suns": {"suns": 2},
    "3-suns": {"suns": 3},
    "1-shadow": {"shadows": 1},
    "2-shadows": {"shadows": 2},
    "3-shadows": {"shadows": 3},
    "mover-1-roof": {"mover_roofs": 1},
    "mover-2-roofs": {"mover_roofs": 2},
    "1-of-each": {"suns": 1, "shadows": 1, "mover_roofs": 1},
    "2-of-each": {"suns": 2, "shadows": 2, "mover_roofs": 2},
}


def make_position(board_name: str, supply_name: str, variant: str, *, check_start=False):
    players, board, to_move = BOARDS[board_name]
    supply = dict(SUPPLIES[supply_name])
    roofs = None
    if "mover_roofs" in supply:
        roofs = [15] * players
        roofs[to_move - 1] = supply.pop("mover_roofs")
    return Position(
        players,
        variant,
        board,
        to_move=to_move,
        roofs=roofs,
        check_start=check_start,
        **supply,
    )


def assert_best_turn_is_exact(pos: Position, maximum: int) -> None:
    before = snapshot(pos)
    best = best_turn(pos)
    assert snapshot(pos) == before, "the search must leave the position as it found it"
    assert best.points == maximum
    assert has_scoring_turn(pos) == (maximum > 0)
    assert snapshot(pos) == before
    if maximum == 0:
        assert best.turn is None
        return
    mover = pos.to_move
    assert pos.check(best.turn)[mover - 1] == maximum
    pos.play(best.turn)
    if len(best.turn) < 3:
        # A short turn is only legal when its last placement ended the game.
        assert pos.end in (Termination.LAST_SUN, Termination.LAST_SHADOW, Termination.LAST_ROOF)
    pos.undo()
    assert snapshot(pos) == before


@pytest.mark.parametrize("variant", ["standard", "classic"])
@pytest.mark.parametrize("supply_name", list(SUPPLIES))
@pytest.mark.parametrize("board_name", list(BOARDS))
def test_best_turn_is_the_brute_force_maximum(board_name, supply_name, variant):
    pos = make_position(board_name, supply_name, variant)
    turns = brute_force(pos)
    maximum = max(turns.values(), default=0)
    assert _exhaustive_best(pos)[0] == maximum
    assert_best_turn_is_exact(pos, maximum)
    # A set-up position whose mover cannot score is over at once.
    checked = make_position(board_name, supply_name, variant, check_start=True)
    assert checked.over == (maximum == 0)


@pytest.mark.parametrize("variant", ["standard", "classic"])
@pytest.mark.parametrize("supply_name", ["full", "1-sun", "1-shadow", "mover-1-roof", "2-of-each"])
def test_legal_turns_are_exactly_the_brute_force_turns(supply_name, variant):
    pos = make_position("three-players", supply_name, variant)
    expected = brute_force(pos)
    found = {str(turn): points for turn, points in legal_turns(pos)}
    assert found == expected
    for text, points in list(found.items())[:200]:
        assert pos.check(text)[pos.to_move - 1] == points


@pytest.mark.parametrize(("variant", "maximum"), [("standard", 9), ("classic", 6)])
def test_best_turn_finds_siestas_that_cross_on_a_shadow(variant, maximum):
    # Standard: RC6 makes a column siesta crossing row 7's on C7 (1 + 2) and RE7 SF7 a Double
    # Siesta in row 7 (2 + 2). RC6 and RE7 share no row or column: only the crossing links them,
    # and their points together are more than the sum of their parts.
    pos = Position(2, variant, ["..S", "", "S.#", "..2", "..S", "", "S1##"])
    assert max(brute_force(pos).values()) == maximum
    assert_best_turn_is_exact(pos, maximum)


@pytest.mark.parametrize("variant", ["standard", "classic"])
def test_a_scoring_placement_that_cannot_be_completed_is_no_scoring_turn(variant):
    # HL1 scores a point, but with no suns and no roofs left, no second placement is legal.
    setup = {"board": ["........S1#"], "suns": 0, "roofs": [0, 15]}
    pos = Position(2, variant, check_start=False, **setup)
    assert pos.preview("HL1") == ((1, 0), None)
    assert brute_force(pos) == {}
    assert_best_turn_is_exact(pos, 0)
    assert Position(2, variant, **setup).end is Termination.NO_SCORING_MOVE


@pytest.mark.parametrize("variant", ["standard", "classic"])
def test_best_turn_places_the_game_ending_piece_last(variant):
    # S1## with one sun left: HE1 RF1 SG1 makes S1###1S (3 + 3 + 2 - 2 = 6); the sun must come
    # last, since placing it ends the game.
    pos = make_position("extend-or-double", "1-sun", variant)
    best = best_turn(pos)
    assert best.points == 6
    assert best.turn.placements[-1] == Placement(Piece.SUN, parse_cell("G1"))
    pos.play(best.turn)
    assert pos.end is Termination.LAST_SUN


@pytest.mark.parametrize("variant", ["standard", "classic"])
def test_best_turn_of_a_single_game_ending_placement(variant):
    # One of each piece left: whatever is placed first ends the game.
    pos = make_position("four-players-crossing", "1-of-each", variant)
    best = best_turn(pos)
    assert best.points == 1
    assert str(best.turn) == "HC3"
    assert pos.play(best.turn) == (0, 0, 0, 1)
    assert pos.end is Termination.LAST_SHADOW


@pytest.mark.parametrize("variant", ["standard", "classic"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_best_turn_after_the_opening(players, variant):
    pos = Position(players, variant)
    pos.play("SE6 RF6 HG6")
    maximum = max(brute_force(pos).values(), default=0)
    assert maximum == 2
    assert_best_turn_is_exact(pos, maximum)


@pytest.mark.parametrize("variant", ["standard", "classic"])
@pytest.mark.parametrize("players", [2, 4])
def test_best_turn_on_an_empty_board_is_the_opening(players, variant):
    pos = Position(players, variant)
    best = best_turn(pos)
    assert best.points == 1
    assert pos.check(best.turn)[0] == 1
    assert _exhaustive_best(pos)[0] == 1


@pytest.mark.parametrize(
    ("supply", "scores"),
    [
        ({"suns": 1}, False),
        ({"roofs": [1, 15]}, False),
        ({"shadows": 1}, True),
        ({"suns": 2, "roofs": [2, 15], "shadows": 1}, True),
    ],
)
def test_opening_with_endgame_supplies(supply, scores):
    pos = Position(2, check_start=False, **supply)
    maximum = _exhaustive_best(pos)[0]
    assert (maximum > 0) == scores
    assert_best_turn_is_exact(pos, maximum)


def test_no_scoring_move_position():
    pos = Position(4, board=NO_SCORING_MOVE_BOARD)
    assert not pos.over
    maximum = max(brute_force(pos).values(), default=0)
    assert maximum >= 3
    assert_best_turn_is_exact(pos, maximum)

    pos.play("HH9 HI9 HJ9", check_end=False)
    assert pos.to_move == 2
    assert brute_force(pos) == {}
    assert _exhaustive_best(pos) == (0, [])
    assert_best_turn_is_exact(pos, 0)

    pos.undo()
    assert pos.play("HH9 HI9 HJ9") == (3, 8, 0, 0)
    assert pos.end is Termination.NO_SCORING_MOVE
    assert best_turn(pos).turn is None
    assert best_turn(pos).points == 0
    assert best_turns(pos) == (0, [])
    assert not has_scoring_turn(pos)
    assert scoring_turns(pos, random.Random(0)) == []
    assert random_turn(pos, random.Random(0)) is None
    assert list(legal_turns(pos)) == []


TIE_POSITIONS = [
    pytest.param("extend-or-double", "full", "standard", id="extend-or-double"),
    pytest.param("three-players", "2-of-each", "classic", id="three-players-endgame"),
    pytest.param("four-players-crossing", "full", "standard", id="four-players-crossing"),
]


@pytest.mark.parametrize(("board_name", "supply_name", "variant"), TIE_POSITIONS)
def test_best_turns_with_ties_all_score_the_maximum(board_name, supply_name, variant):
    pos = make_position(board_name, supply_name, variant)
    maximum = max(brute_force(pos).values())
    for rng in (None, random.Random(5)):
        points, turns = best_turns(pos, ties=True, rng=rng)
        assert points == maximum
        assert 1 <= len(turns) <= 64
        assert len({str(turn) for turn in turns}) == len(turns)
        for turn in turns:
            assert pos.check(turn)[pos.to_move - 1] == maximum
    points, turns = best_turns(pos)
    assert points == maximum
    assert len(turns) == 1


def test_best_turns_after_the_opening_has_many_ties():
    pos = Position(2)
    pos.play("SE6 RF6 HG6")
    points, turns = best_turns(pos, ties=True)
    assert points == 2
    assert len(turns) > 1
    for turn in turns:
        assert pos.check(turn)[1] == 2


@pytest.mark.parametrize("variant", ["standard", "classic"])
def test_scoring_and_random_turns_are_legal_and_score(variant):
    pos = make_position("four-players-crossing", "full", variant)
    maximum = best_turn(pos).points
    rng = random.Random(3)
    choices = scoring_turns(pos, rng)
    assert choices
    for gain, turn in choices:
        points = pos.check(turn)[pos.to_move - 1]
        assert 1 <= gain <= points <= maximum
    assert max(gain for gain, _ in choices) == maximum
    for _ in range(20):
        turn = random_turn(pos, rng)
        assert turn is not None
        assert 1 <= pos.check(turn)[pos.to_move - 1] <= maximum


def _endgame_positions(seed: int, count: int) -> list[Position]:
    """Boards of random games, given small supplies so that brute force stays affordable and
    the existence search meets its hard cases (game-ending placements, turns that cannot be
    completed, no scoring turn at all)."""
    from tests.engine.helpers import pick_turn

    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        players = rng.choice((2, 3, 4))
        variant = rng.choice(("standard", "classic"))
        game = Position(players, variant)
        for _ in range(rng.randint(1, 8)):
            if game.over:
                break
            game.play(pick_turn(game, rng))
        if game.over:
            continue
        positions.append(
            Position(
                players,
                variant,
                game.board_text(),
                to_move=game.to_move,
                suns=rng.randint(0, 2),
                shadows=rng.randint(1, 2),
                roofs=[rng.randint(1, 2) for _ in range(players)],
                check_start=False,
            )
        )
    return positions


def test_has_scoring_turn_is_the_brute_force_existence():
    answers = []
    for pos in _endgame_positions(5, 40):
        before = snapshot(pos)
        expected = bool(brute_force(pos))
        assert has_scoring_turn(pos) == expected, pos.board_text()
        assert snapshot(pos) == before, "the search must leave the position as it found it"
        answers.append(expected)
    assert answers.count(False) >= 3, "both answers must be exercised"
    assert answers.count(True) >= 3


def test_has_scoring_turn_agrees_with_best_turn_over_whole_games():
    """Every position of a few random games: a scoring turn exists exactly when the exact best
    turn scores."""
    from tests.engine.helpers import pick_turn

    rng = random.Random(11)
    for index in range(2):
        pos = Position(2 + index, ("standard", "classic")[index % 2])
        while not pos.over:
            assert has_scoring_turn(pos) == (best_turn(pos).points > 0)
            pos.play(pick_turn(pos, rng))

"""Properties of random legal games (2–4 players, both variants), checked with hypothesis.

A game is drawn as a seed: turns are picked with ``random_turn`` and ``scoring_turns`` from a
``random.Random`` seeded with it, so hypothesis shrinks towards small seeds and a failure is
reproduced from the seed it prints.
"""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import IllegalMoveError, Piece, Placement, Position, Termination, Turn, cell_name
from games.engine.notation import CELLS, SIZE
from games.engine.position import ROOFS_PER_PLAYER, TOTAL_SHADOWS, TOTAL_SUNS
from games.engine.record import GameRecord, replay
from games.engine.search import best_turn, random_turn, scoring_turns
from tests.engine.helpers import (
    NEIGHBOURS,
    cells_holding,
    pick_turn,
    reference_worths,
    siestas,
    snapshot,
)

players = st.sampled_from([2, 3, 4])
variants = st.sampled_from(["standard", "classic"])
seeds = st.integers(min_value=0, max_value=2**32 - 1)

ENDINGS = (Termination.LAST_SUN, Termination.LAST_SHADOW, Termination.LAST_ROOF)


def check_invariants(pos: Position) -> None:
    """What holds after every turn of a game that started from an empty board."""
    board = pos.board_text()
    worths = pos.worths()
    assert pos.scores == list(worths)
    assert worths == reference_worths(board, pos.players, pos.variant)

    supply = pos.supply()
    assert min(supply["suns"], supply["shadows"], *supply["roofs"]) >= 0
    assert len(cells_holding(board, "S")) + supply["suns"] == TOTAL_SUNS
    assert len(cells_holding(board, "#")) + supply["shadows"] == TOTAL_SHADOWS
    for seat in range(1, pos.players + 1):
        assert len(cells_holding(board, str(seat))) + supply["roofs"][seat - 1] == ROOFS_PER_PLAYER

    shadows = set(cells_holding(board, "#"))
    for sun in cells_holding(board, "S"):
        assert not shadows.intersection(NEIGHBOURS[sun]), f"a sun next to a shadow at {sun}"
    in_some_siesta = set().union(*(cells for _, cells, _ in siestas(board)))
    for shadow in shadows:
        assert pos.in_siesta(shadow)
        assert shadow in in_some_siesta


def transposed(board: list[str]) -> list[str]:
    return ["".join(row[col] for row in board) for col in range(SIZE)]


def mirrored(board: list[str]) -> list[str]:
    return [row[::-1] for row in board]


@settings(max_examples=12, deadline=None)
@given(players=players, variant=variants, seed=seeds)
def test_random_games_keep_the_invariants_and_replay(players, variant, seed):
    rng = random.Random(seed)
    pos = Position(players, variant)
    start = snapshot(pos)
    while not pos.over:
        mover = pos.to_move
        turn = pick_turn(pos, rng)
        points = pos.play(turn)
        assert points[mover - 1] >= 1
        assert min(points) >= 0, "a turn never takes points away"
        assert len(turn) == 3 or pos.end in ENDINGS
        if pos.end in ENDINGS:
            assert pos.to_move is None
        elif pos.over:
            assert pos.end is Termination.NO_SCORING_MOVE
        else:
            assert pos.to_move == mover % players + 1
        check_invariants(pos)

    # The record of the game replays to the same position.
    moves = [str(played.turn) for played in pos.history]
    replayed = replay(GameRecord(players, variant, moves=moves))
    assert replayed.error is None
    assert replayed.position.scores == pos.scores
    assert replayed.position.board_text() == pos.board_text()
    assert replayed.position.supply() == pos.supply()
    assert replayed.position.end == pos.end

    # Reading rows as columns, or right to left, changes no one's worth.
    board = pos.board_text()
    for other in (transposed(board), mirrored(board)):
        same = Position(players, variant, other, check_start=False, suns=0, shadows=0)
        assert same.worths() == pos.worths()

    # Undoing every turn gets back to the empty board.
    while pos.history:
        pos.undo()
    assert snapshot(pos) == start


def mutate(turn: Turn, rng: random.Random) -> Turn:
    """A random variation of a legal turn, which may or may not be legal."""
    placements = list(turn.placements)
    index = rng.randrange(len(placements))
    kind = rng.randrange(7)
    if kind == 0:
        placements[index] = Placement(rng.choice(list(Piece)), placements[index].cell)
    elif kind == 1:
        placements[index] = Placement(placements[index].piece, rng.randrange(CELLS))
    elif kind == 2:
        cell = rng.choice(NEIGHBOURS[placements[index].cell])
        placements[index] = Placement(placements[index].piece, cell)
    elif kind == 3:
        rng.shuffle(placements)
    elif kind == 4 and len(placements) > 1:
        del placements[index]
    elif kind == 5:
        placements.insert(index, placements[index])
    else:
        placements.append(Placement(rng.choice(list(Piece)), rng.randrange(CELLS)))
    return Turn(tuple(placements))


def play_or_error(pos: Position, turn: Turn) -> IllegalMoveError | None:
    try:
        pos.play(turn)
    except IllegalMoveError as error:
        return error
    return None


@settings(max_examples=15, deadline=None)
@given(players=players, variant=variants, seed=seeds)
def test_rejected_turns_change_nothing(players, variant, seed):
    rng = random.Random(seed)
    pos = Position(players, variant)
    for _ in range(rng.randrange(12)):
        if pos.over:
            break
        pos.play(pick_turn(pos, rng))
    if pos.over:
        return
    rejected = 0
    for _ in range(30):
        legal = pick_turn(pos, rng, scoring_share=0.1)
        assert pos.preview(legal)[0] == pos.check(legal)
        turn = mutate(legal, rng)
        before = snapshot(pos)
        error = play_or_error(pos, turn)
        if error is None:
            pos.undo()
            assert snapshot(pos) == before
            continue
        rejected += 1
        assert snapshot(pos) == before, f"{turn} was rejected ({error}) but changed things"
        if error.cell is not None:
            assert error.cell in str(error)
            assert error.cell in [cell_name(p.cell) for p in turn.placements]
    assert rejected > 0


@settings(max_examples=15, deadline=None)
@given(players=players, variant=variants, seed=seeds)
def test_best_turn_is_legal_and_beats_every_sampled_turn(players, variant, seed):
    rng = random.Random(seed)
    pos = Position(players, variant)
    for _ in range(rng.randrange(16)):
        if pos.over:
            break
        pos.play(pick_turn(pos, rng))
    if pos.over:
        return
    mover = pos.to_move - 1
    before = snapshot(pos)
    best = best_turn(pos)
    assert snapshot(pos) == before
    assert best.turn is not None, "a game that is not over has a scoring turn"
    assert pos.check(best.turn)[mover] == best.points
    samples = [turn for _ in range(30) if (turn := random_turn(pos, rng)) is not None]
    samples += [turn for _, turn in scoring_turns(pos, rng)]
    for turn in samples:
        assert 1 <= pos.check(turn)[mover] <= best.points, str(turn)
    assert snapshot(pos) == before

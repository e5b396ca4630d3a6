"""Bots: every level plays legal turns in every game shape; medium is exactly greedy; hard and
expert look ahead. Pure engine tests (no database)."""

from __future__ import annotations

import functools
import io
import random
import time
from dataclasses import replace

import pytest
from django.core.management import CommandError, call_command

from bench import botmatch, bots_bench
from games import bots
from games.bots import HardSettings, choose_turn, hard_turn
from games.engine import Piece, Position, Termination, Turn
from games.engine.expert import Expert, ExpertSettings, expert_turn, review
from games.engine.search import best_turn, scoring_turns

SHAPES = [(players, variant) for players in (2, 3, 4) for variant in ("standard", "classic")]
QUICK_HARD = HardSettings(width=3, deep=2, budget=0.1)
QUICK_EXPERT = ExpertSettings(work=6_000, width=4)


@functools.cache
def _greedy_game(players: int, variant: str, turns: int, seed: int) -> Position:
    rng = random.Random(seed)
    pos = Position(players, variant)
    for _ in range(turns):
        if pos.over:
            break
        pos.play(bots.medium_turn(pos, rng))
    return pos


def _midgame(players: int, variant: str, turns: int, seed: int = 0) -> Position:
    """A position after ``turns`` greedy turns (or fewer if the game ended)."""
    return _greedy_game(players, variant, turns, seed).copy()


def _endgame(players: int, variant: str) -> Position:
    """A mid-game board with almost no suns and roofs left: most turns end the game."""
    pos = _midgame(players, variant, 8)
    return Position(
        players,
        variant,
        pos.board_text(),
        to_move=pos.to_move or 1,
        suns=2,
        shadows=pos.shadows,
        roofs=[1] * players,
        scores=pos.scores,
    )


def _check_legal_and_play(pos: Position, turn) -> int:
    """Play ``turn`` with the engine's checks (an illegal turn raises) and return the mover's
    points."""
    assert turn is not None, "a bot found no turn in a game that is not over"
    seat = pos.to_move
    points = pos.play(turn)
    assert points[seat - 1] >= 1
    return points[seat - 1]


@pytest.mark.parametrize(("players", "variant"), SHAPES)
@pytest.mark.parametrize("level", bots.LEVELS)
def test_every_level_plays_legal_turns(level, players, variant):
    """At the start, in the middle, and at the end of a game (where turns end it)."""
    rng = random.Random(f"{level}{players}{variant}")
    settings = QUICK_HARD if level == "hard" else None
    for pos, turns in ((Position(players, variant), 2), (_midgame(players, variant, 8), 3)):
        for _ in range(turns):
            board_before = pos.board_text()
            turn = choose_turn(pos, level, rng, settings, QUICK_EXPERT)
            assert pos.board_text() == board_before, "the bot must not change the position"
            _check_legal_and_play(pos, turn)
    end = _endgame(players, variant)
    while not end.over:
        _check_legal_and_play(end, choose_turn(end, level, rng, settings, QUICK_EXPERT))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_hard_with_default_settings_plays_a_legal_turn(players):
    pos = _midgame(players, "standard", 10)
    _check_legal_and_play(pos, choose_turn(pos, "hard", random.Random(1)))


@pytest.mark.parametrize(("players", "variant"), SHAPES)
def test_medium_always_scores_the_engines_maximum(players, variant):
    rng = random.Random(f"max{players}{variant}")
    pos = _midgame(players, variant, 4)
    for _ in range(4):
        best = best_turn(pos).points
        turn = bots.medium_turn(pos, rng)
        assert _check_legal_and_play(pos, turn) == best
        # Vary the game: the next player plays a random scoring turn.
        _check_legal_and_play(pos, bots.easy_turn(pos, rng))


def test_medium_breaks_ties_at_random():
    """On the empty board's second turn several best turns exist: medium varies among them."""
    pos = Position(2)
    pos.play("SE6 RF6 HG6")
    best = best_turn(pos).points
    chosen = {str(bots.medium_turn(pos, random.Random(seed))) for seed in range(12)}
    assert len(chosen) > 1
    assert all(pos.check(turn)[1] == best for turn in chosen)


def test_easy_plays_scoring_turns_that_vary():
    pos = _midgame(2, "standard", 6)
    chosen = set()
    for seed in range(10):
        turn = bots.easy_turn(pos, random.Random(seed))
        assert pos.check(turn)[pos.to_move - 1] >= 1
        chosen.add(str(turn))
    assert len(chosen) > 3


@pytest.mark.parametrize("players", [2, 3, 4])
def test_expert_with_default_settings_plays_a_legal_turn(players):
    pos = _midgame(players, "standard", 10)
    _check_legal_and_play(pos, choose_turn(pos, "expert", random.Random(1)))


def test_expert_is_deterministic_for_a_seed_and_spends_its_work_budget():
    """Work is counted in placements tried, not time: the same seed gives the same turn and the
    same work, whatever the machine's load; the budget is kept to within one candidate's line."""
    pos = _midgame(2, "classic", 9)
    settings = ExpertSettings(work=12_000)
    first, second = Expert(pos, random.Random(4), settings), Expert(pos, random.Random(4), settings)
    assert str(first.choose().turn) == str(second.choose().turn)
    assert first.work.spent == second.work.spent
    assert first.work.spent < 12_000 + 15_000
    assert str(expert_turn(pos, random.Random(4), settings)) == str(first.choose().turn)


def test_expert_screens_more_candidates_than_its_minimum():
    pos = _midgame(2, "standard", 8)
    expert = Expert(pos, random.Random(0), ExpertSettings(work=40_000, min_width=1))
    looked: list[str] = []
    evaluate = expert.evaluate

    def counting(turn, *, deep):
        looked.append(str(turn))
        return evaluate(turn, deep=deep)

    expert.evaluate = counting
    line = expert.choose()
    assert line is not None
    assert len(set(looked)) >= 3
    assert str(line.turn) in looked


def _screened(pos: Position, settings: ExpertSettings) -> list[tuple[str, set[int]]]:
    """The turns the expert screens (in order), each with the cells of the reply found after it."""
    expert = Expert(pos, random.Random(0), settings)
    looked: list[tuple[str, set[int]]] = []
    evaluate = expert.evaluate

    def counting(turn, *, deep):
        line = evaluate(turn, deep=deep)
        if not deep and line is not None:
            looked.append((str(turn), {cell for _code, cell in line.threat}))
        return line

    expert.evaluate = counting
    assert expert.choose() is not None
    return looked


def test_expert_tries_to_spoil_the_reply_its_best_candidates_open():
    """After screening, the best candidates are tried again with a piece on a cell of the reply
    found after them: turns the expert would not have looked at otherwise, each legal and each on
    a cell of a reply found before it."""
    pos = _midgame(2, "standard", 8)
    settings = ExpertSettings(work=60_000)
    without = {turn for turn, _cells in _screened(pos, replace(settings, refute=0))}
    looked = _screened(pos, settings)
    added = [(index, turn) for index, (turn, _cells) in enumerate(looked) if turn not in without]
    assert added
    for index, turn in added:
        cells = {p.cell for p in Turn.parse(turn).placements}
        assert any(cells & threat for _earlier, threat in looked[:index])
        _check_legal_and_play(pos.copy(), Turn.parse(turn))


def test_expert_line_counts_the_reply_it_opens():
    """A turn's line value is its lead after the next player's best reply: with a reply of its
    own the expert's margin can only be what the exact search allows."""
    pos = _midgame(2, "standard", 8)
    expert = Expert(pos, random.Random(0), ExpertSettings())
    for seat in (1, 2):
        if seat != pos.to_move:
            expert._components_of(seat)
    expert._components_of(pos.to_move)
    greedy = best_turn(pos)
    line = expert.evaluate(greedy.turn, deep=False)
    assert line is not None
    assert line.points == greedy.points
    after = pos.copy()
    after.play(greedy.turn)
    exact_reply = best_turn(after).points
    ((seat, reply),) = line.replies
    assert seat == after.to_move
    # The local search finds replies that are legal and exact in points, never more than the best.
    assert 0 < reply <= exact_reply


def test_expert_values_each_roof_its_turn_places():
    """A line is worth its lead plus ``roof_weight`` for each roof the candidate places: the
    same line with the weight at 0 differs by exactly that."""
    pos = _midgame(2, "standard", 8)
    greedy = best_turn(pos).turn
    assert greedy is not None
    values = []
    for weight in (0.0, 1.0, 2.5):
        expert = Expert(pos, random.Random(0), ExpertSettings(roof_weight=weight))
        expert.prepare()
        line = expert.evaluate(greedy, deep=True)
        assert line is not None
        assert not line.over
        values.append(line.value)
    roofs = sum(1 for placement in greedy.placements if placement.piece is Piece.ROOF)
    assert roofs >= 1  # a scoring turn on a young board claims a siesta
    assert values[1] - values[0] == pytest.approx(roofs)
    assert values[2] - values[0] == pytest.approx(2.5 * roofs)


def test_review_names_the_roofs_a_turn_does_not_place():
    """With roofs worth much, a scoring turn without one loses against the expert's turn for
    that reason, counted in roofs."""
    pos = _midgame(2, "standard", 6)
    turns = scoring_turns(pos, random.Random(0))
    roofless = next(
        turn for _points, turn in turns if all(p.piece is not Piece.ROOF for p in turn.placements)
    )
    seen = review(pos, roofless, random.Random(0), ExpertSettings(work=15_000, roof_weight=20))
    assert seen is not None
    assert seen.reason == "fewer_roofs"
    assert seen.reason_points == seen.best.roofs >= 1
    assert seen.played.roofs == 0


def test_no_turn_when_the_game_is_over():
    pos = _endgame(2, "classic")
    pos.end_game(pos.end or Termination.LAST_SUN)
    for level in bots.LEVELS:
        assert choose_turn(pos, level, random.Random(0)) is None


def test_hard_keeps_within_its_time_budget():
    pos = _midgame(4, "standard", 10)
    settings = HardSettings(width=50, budget=0.15, wall_cap=5.0)
    start = time.thread_time()
    turn = hard_turn(pos, random.Random(2), settings)
    spent = time.thread_time() - start
    _check_legal_and_play(pos, turn)
    # One candidate line (up to four exact searches) may run past the budget, not fifty.
    assert spent < 0.15 + 1.0


# -- the benchmark ------------------------------------------------------------------------------


def test_wilson_interval_matches_known_values():
    # 65 wins in 100 games: 55.3%–73.6% (Wilson score interval, z = 1.96).
    low, high = bots_bench.wilson(65, 100)
    assert (round(low, 3), round(high, 3)) == (0.553, 0.736)
    assert bots_bench.wilson(0, 10)[0] == 0.0
    assert bots_bench.wilson(10, 10)[1] == 1.0


def test_the_measured_level_takes_every_seat_and_both_variants():
    plan = bots_bench.schedule(8, 4, ["hard", "medium"])
    assert [game.levels.index("hard") + 1 for game in plan] == [1, 2, 3, 4, 1, 2, 3, 4]
    assert all(sorted(game.levels) == ["hard", "medium", "medium", "medium"] for game in plan)
    assert {game.variant for game in plan} == {"standard", "classic"}
    assert len({game.seed for game in plan}) == 8


def test_a_benchmark_game_is_played_to_its_end_and_replays_to_its_scores():
    game = bots_bench.MatchGame(seed=3, players=3, variant="classic", levels=("easy",) * 3)
    result = bots_bench.play(game)
    assert result.turns >= 5
    assert result.winners == [
        seat for seat, score in enumerate(result.scores, 1) if score == max(result.scores)
    ]
    assert len(result.think["easy"]) == result.turns


def test_the_botmatch_command_prints_win_rate_and_think_times():
    out = io.StringIO()
    call_command(
        botmatch.Command(), "--games", "2", "--processes", "1", "easy",
        stdout=out, stderr=io.StringIO(),
    )  # fmt: skip
    text = out.getvalue()
    assert "easy first alone in" in text
    assert "95% CI" in text
    assert "think time median easy" in text
    assert "mean placing" in text
    assert "seed " in text
    with pytest.raises(CommandError):
        call_command(botmatch.Command(), "--games", "1", "easy", "--hard", "depth=3")
    with pytest.raises(CommandError):
        call_command(botmatch.Command(), "--games", "1", "easy", "--expert", "work=lots")


def test_settings_options_keep_integer_fields_integers():
    assert bots_bench.expert_options(["work=9000", "follow_weight=0.25"]) == {
        "work": 9000,
        "follow_weight": 0.25,
    }
    assert isinstance(bots_bench.expert_options(["work=9000"])["work"], int)
    with pytest.raises(ValueError, match="--expert"):
        bots_bench.expert_options(["depth=2"])


def test_mean_interval_is_the_normal_approximation():
    # Mean 2, sample standard deviation sqrt(2/3), 4 values: 2 ± 1.96 * sqrt(2/3) / 2.
    low, high = bots_bench.mean_interval([1.0, 2.0, 2.0, 3.0])
    assert low == pytest.approx(2 - 0.98 * (2 / 3) ** 0.5)
    assert high == pytest.approx(2 + 0.98 * (2 / 3) ** 0.5)
    assert bots_bench.mean_interval([1.5]) == (1.5, 1.5)


def test_summary_gives_placing_intervals_per_game():
    """The other seats' places are averaged within each game before the interval, and the gap
    is taken game by game."""
    games = [
        bots_bench.MatchGame(seed, 3, "standard", ("expert", "hard", "hard")) for seed in (1, 2)
    ]
    results = [
        bots_bench.GameResult(games[0], [30, 20, 10], [1], 10),
        bots_bench.GameResult(games[1], [10, 30, 20], [2], 10),
    ]
    summary = bots_bench.summarise(results, "expert")
    assert summary.mean_placing == 2.0  # first, then third
    assert summary.field_placing == 2.0
    low, high = summary.gap_interval
    assert low < -1 < 1 < high  # gaps of -1.5 and +1.5: no conclusion from two games
    assert "difference +0.00" in "\n".join(summary.lines(3))


def test_placing_shares_tied_places():
    assert bots_bench.placing([10, 20, 5], 2) == 1
    assert bots_bench.placing([10, 20, 5], 3) == 3
    assert bots_bench.placing([20, 20, 5, 1], 1) == 1.5
    assert bots_bench.placing([20, 20, 5, 1], 4) == 4


def test_rotations_share_their_random_opening():
    """The measured level meets the same opening in every seat; the next rotation gets another."""
    plan = bots_bench.schedule(4, 2, ["expert", "hard"], seed=7, opening=3)
    assert plan[0].opening_seed == plan[1].opening_seed != plan[2].opening_seed
    first, second = (
        bots_bench.play(
            bots_bench.MatchGame(
                g.seed, 2, g.variant, ("easy", "easy"), opening=3, opening_seed=g.opening_seed
            )
        )
        for g in plan[:2]
    )
    assert first.turns >= 3
    assert second.turns >= 3


def test_fresh_seeds_differ_between_runs():
    assert len({bots_bench.fresh_seed() for _ in range(5)}) > 1


# A late position (seat 1 to move, 81–86 behind, one sun left) found in a hard-against-medium
# game. The greedy turn scores 8 and leaves the last sun to seat 2, whose best reply scores 12 with
# it and ends the game: 89–98. Placing the last sun now scores 7 and ends the game: 88–86.
LAST_SUN_BOARD = [
    ".........S..",
    "........S1#.",
    ".......S1#1S",
    "......S1#1S.",
    ".....S2#2S..",
    "....S1##1S..",
    ".#1S22#1S...",
    ".1S2###2S...",
    ".S.S2#1S2S..",
    "....S1S2#2S.",
    ".....S2###2S",
    ".........#2S",
]


def _last_sun_position() -> Position:
    return Position(
        2, "standard", LAST_SUN_BOARD, suns=1, shadows=58, roofs=[3, 2], scores=[81, 86]
    )


def test_greedy_play_loses_the_last_sun_position():
    pos = _last_sun_position()
    pos.play(bots.medium_turn(pos, random.Random(0)))
    assert not pos.over
    reply = best_turn(pos)
    pos.play(reply.turn)
    assert pos.end is Termination.LAST_SUN
    assert pos.winners() == [2]


@pytest.mark.parametrize("seed", [0, 1])
def test_expert_ends_the_game_when_that_wins_it(seed):
    pos = _last_sun_position()
    turn = expert_turn(pos, random.Random(seed))
    assert pos.play(turn) == (7, 0)
    assert pos.end is Termination.LAST_SUN
    assert pos.winners() == [1]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hard_ends_the_game_when_that_wins_it(seed):
    pos = _last_sun_position()
    # The default CPU budget; no wall-clock cap, so that a busy machine changes nothing.
    turn = hard_turn(pos, random.Random(seed), HardSettings(wall_cap=60))
    assert pos.play(turn) == (7, 0)
    assert pos.end is Termination.LAST_SUN
    assert pos.winners() == [1]

"""Puzzle generation on recorded games (which positions qualify, de-duplication, idempotency),
solving (every maximal turn and only those), ratings, the daily puzzle and streaks."""

from __future__ import annotations

import random

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from games import selectors, services
from games.analysis import analysis_compute, game_analyse
from games.engine import Position
from games.engine.record import GameRecord
from games.engine.search import best_turn, legal_turns
from games.engine.study import single_best, solution_cores
from games.models import Game
from learn import services as learn_services
from learn.models import Puzzle, PuzzleAttempt, PuzzlePlayer, ScannedGame
from learn.puzzles import MIN_MISS, MIN_OVER_OBVIOUS, PuzzleCandidate, examine, find_puzzles
from learn.selectors import puzzle_position
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.learn.helpers import recorded


def test_exactly_the_qualifying_positions_become_puzzles():
    record = recorded(seed=2, turns=8)
    turns = analysis_compute(record)["turns"]
    found = {c.ply: c for c in find_puzzles(record, turns)}
    assert found
    pos = GameRecord.from_json(record).start()
    for index, move in enumerate(record["moves"]):
        best = best_turn(pos).points
        played = pos.check(move)[pos.to_move - 1]
        missed_enough = best - played >= MIN_MISS and best - single_best(pos) >= MIN_OVER_OBVIOUS
        if index in found:
            candidate = found[index]
            assert missed_enough
            assert candidate.best_points == best
            assert candidate.played_points == played
            assert pos.check(candidate.solution)[pos.to_move - 1] == best
            assert candidate.board == pos.board_text()
            assert candidate.to_move == pos.to_move
            assert 1 <= candidate.difficulty <= 5
        elif best - played < MIN_MISS:
            assert index not in found
        pos.play(move)


def test_a_position_whose_best_turns_share_nothing_is_not_a_puzzle():
    # Two separate siestas to extend for 6 each: two best ideas with no piece in common.
    pos = Position(2, board=["S1##", "", "", "", "", "", "", "", "", "", "", "S1##"])
    points, cores = solution_cores(pos)
    assert points == 6
    assert len(cores) == 2
    assert not {str(p) for p in cores[0].placements} & {str(p) for p in cores[1].placements}
    assert examine(pos, 0, "HE1 HF1 HG1", 0) is None
    # A played turn that scored nearly the best is no puzzle either.
    assert examine(Position(2, board=["S1##"]), 0, "HE1", 4) is None


def _small_puzzle() -> Puzzle:
    pos = Position(2, board=["S1##", "S1##"])
    best = best_turn(pos)
    candidate = PuzzleCandidate(
        ply=0,
        players=2,
        variant="standard",
        board=pos.board_text(),
        to_move=1,
        supply=pos.supply(),
        scores=list(pos.scores),
        best_points=best.points,
        solution=str(best.turn),
        cores=[str(best.turn)],
        played_move="HE1 HF1 HG1",
        played_points=1,
        obvious_points=1,
        themes=["double_siesta"],
        difficulty=3,
    )
    return learn_services.puzzle_create(candidate=candidate, source_record={"moves": []})[0]


@pytest.mark.django_db
def test_every_maximal_turn_solves_and_only_those():
    puzzle = _small_puzzle()
    pos = puzzle_position(puzzle)
    outcomes = {str(turn): points for turn, points in legal_turns(pos)}
    best = max(outcomes.values())
    assert best == puzzle.best_points == 7
    maximal = [t for t, p in outcomes.items() if p == best]
    others = [t for t, p in outcomes.items() if p < best]
    assert len(maximal) > 1
    rng = random.Random(1)
    for move in rng.sample(maximal, min(8, len(maximal))):
        result = learn_services.puzzle_attempt_make(puzzle_id=puzzle.pk, move=move)
        assert result.solved
        assert result.points == best
    for move in rng.sample(others, 8):
        result = learn_services.puzzle_attempt_make(puzzle_id=puzzle.pk, move=move)
        assert not result.solved
        assert result.points == outcomes[move]
    with pytest.raises(learn_services.PuzzleError) as info:
        learn_services.puzzle_attempt_make(puzzle_id=puzzle.pk, move="SA2 RB3 HC3")
    assert info.value.cell == "A2"


@pytest.fixture
def puzzle(db):
    return _small_puzzle()


@pytest.mark.django_db
def test_the_first_attempt_is_rated_and_both_ratings_move(puzzle):
    user = UserFactory()
    before = puzzle.rating
    result = learn_services.puzzle_attempt_make(
        puzzle_id=puzzle.pk, move=puzzle.solution, user=user
    )
    assert result.rated
    assert result.solved
    expected = learn_services.expected(1500.0, before)
    assert result.rating_after == pytest.approx(1500 + 40 * (1 - expected), abs=0.1)
    puzzle.refresh_from_db()
    assert puzzle.rating == pytest.approx(before - 16 * (1 - expected), abs=0.1)
    player = PuzzlePlayer.objects.get(user=user)
    assert (player.rated, player.solved, player.streak, player.best_streak) == (1, 1, 1, 1)
    again = learn_services.puzzle_attempt_make(puzzle_id=puzzle.pk, move="HE1 HF1 HG1", user=user)
    assert not again.rated
    player.refresh_from_db()
    assert player.rated == 1
    assert player.rating == result.rating_after
    assert PuzzleAttempt.objects.filter(user=user).count() == 2


@pytest.mark.django_db
def test_a_miss_lowers_the_rating_and_breaks_the_streak(puzzle):
    user = UserFactory()
    PuzzlePlayer.objects.create(user=user, streak=3, best_streak=3)
    result = learn_services.puzzle_attempt_make(puzzle_id=puzzle.pk, move="HE1 HF1 HG1", user=user)
    assert result.rated
    assert not result.solved
    assert result.rating_after < result.rating_before
    player = PuzzlePlayer.objects.get(user=user)
    assert (player.streak, player.best_streak) == (0, 3)


@pytest.mark.django_db
def test_the_daily_puzzle_is_chosen_once_and_counts_a_daily_streak(puzzle):
    import datetime

    from django.utils import timezone

    today = timezone.localdate()
    assert learn_services.daily_puzzle_for(day=today) == puzzle
    assert learn_services.daily_puzzle_for(day=today) == puzzle
    user = UserFactory()
    PuzzlePlayer.objects.create(user=user, daily_streak=4, last_daily=today - datetime.timedelta(1))
    learn_services.puzzle_attempt_make(puzzle_id=puzzle.pk, move=puzzle.solution, user=user)
    assert PuzzlePlayer.objects.get(user=user).daily_streak == 5


@pytest.mark.django_db
def test_the_attempt_api_works_signed_out_without_rating(puzzle):
    client = APIClient()
    url = f"/api/puzzles/{puzzle.pk}/attempts/"
    data = client.post(url, {"move": puzzle.solution}, format="json").json()
    assert data["solved"]
    assert not data["rated"]
    assert data["rating_after"] is None
    assert data["streak"] == 1
    assert not data["practice"]
    again = client.post(url, {"move": puzzle.solution}, format="json").json()
    assert (again["practice"], again["streak"]) == (True, 1)  # the same puzzle: practice
    bad = client.post(url, {"move": "SA2 RB3 HC3"}, format="json")
    assert bad.status_code == 400
    assert bad.json()["cell"] == "A2"
    assert (
        client.post("/api/puzzles/999999/attempts/", {"move": "SA1"}, format="json").status_code
        == 404
    )
    assert not PuzzleAttempt.objects.exists()


def _finished_game() -> Game:
    record = recorded(seed=2, turns=8)
    game = make_game(players=2, variant=record["variant"])
    for move in record["moves"]:
        game.refresh_from_db()
        seat = game.seats.get(seat=game.to_move)
        services.game_move_make(game_id=game.pk, user=seat.user, move=move, ply=game.ply)
    services.game_resign(game_id=game.pk, user=game.seats.get(seat=1).user)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


@pytest.mark.django_db
def test_puzzles_from_an_analysed_game_once_and_deduplicated():
    game = _finished_game()
    assert learn_services.puzzles_from_game(game_id=game.pk) is None  # not analysed yet
    game_analyse(game_id=game.pk)
    expected = find_puzzles(selectors.game_record(game), game.analysis.data["turns"])
    created = learn_services.puzzles_from_game(game_id=game.pk)
    assert created == len(expected) > 0
    assert Puzzle.objects.filter(source_game=game).count() == created
    assert ScannedGame.objects.get(game=game).puzzles == created
    assert learn_services.puzzles_from_game(game_id=game.pk) == 0  # once
    # The same positions found again (another game, the same record) are not stored twice.
    ScannedGame.objects.all().delete()
    assert learn_services.puzzles_from_game(game_id=game.pk) == 0
    assert Puzzle.objects.count() == created


@pytest.mark.django_db
def test_a_private_game_gives_no_puzzle_and_is_marked_searched():
    """A game of an invitation-only tournament (``Game.private``): no puzzle links to it."""
    game = _finished_game()
    Game.objects.filter(pk=game.pk).update(private=True)
    game_analyse(game_id=game.pk)
    assert learn_services.puzzles_from_game(game_id=game.pk) == 0
    assert not Puzzle.objects.filter(source_game=game).exists()
    assert ScannedGame.objects.get(game=game).puzzles == 0


@pytest.mark.django_db
def test_the_periodic_task_searches_analysed_games():
    from learn.tasks import puzzles_from_analysed_games

    game = _finished_game()
    assert puzzles_from_analysed_games() == 0
    game_analyse(game_id=game.pk)
    assert puzzles_from_analysed_games() > 0
    assert puzzles_from_analysed_games() == 0


@pytest.mark.django_db
def test_make_puzzles_is_idempotent(capsys):
    call_command("make_puzzles", games=2, processes=1, players="2")
    first = Puzzle.objects.count()
    assert first > 0
    capsys.readouterr()
    call_command("make_puzzles", games=2, processes=1, players="2")
    assert Puzzle.objects.count() == first
    assert "0 games played (2 already searched)" in capsys.readouterr().out
    # Forgetting which games were searched changes nothing either: the positions are known.
    Puzzle.objects.update(source_label="")
    call_command("make_puzzles", games=2, processes=1, players="2")
    assert Puzzle.objects.count() == first
    assert "0 new puzzles" in capsys.readouterr().out


WRONG = "HE1 HF1 HG1"
ANSWER_FIELDS = ("best_points", "solution", "cores", "source")


def _attempt(client, puzzle, move):
    response = client.post(f"/api/puzzles/{puzzle.pk}/attempts/", {"move": move}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def _give_up(client, puzzle):
    response = client.post(f"/api/puzzles/{puzzle.pk}/give-up/")
    assert response.status_code == 200, response.content
    return response.json()


def _signed_in(user):
    client = APIClient()
    client.force_login(user)
    return client


@pytest.mark.django_db
@pytest.mark.parametrize("signed_in", [False, True])
def test_a_wrong_turn_reveals_nothing_of_the_answer(puzzle, signed_in):
    client = _signed_in(UserFactory()) if signed_in else APIClient()

    response = client.post(f"/api/puzzles/{puzzle.pk}/attempts/", {"move": WRONG}, format="json")

    data = response.json()
    assert (data["solved"], data["points"], data["rated"]) == (False, 3, signed_in)
    assert all(data[field] is None for field in ANSWER_FIELDS), data
    assert puzzle.solution not in response.content.decode()
    # Trying again is allowed, and still shows nothing until a solve.
    assert all(_attempt(client, puzzle, WRONG)[field] is None for field in ANSWER_FIELDS)
    solved = _attempt(client, puzzle, puzzle.solution)
    assert (solved["solution"], solved["best_points"]) == (puzzle.solution, 7)
    assert solved["practice"]


@pytest.mark.django_db
def test_only_the_first_result_moves_the_rating_later_ones_are_practice(puzzle):
    user = UserFactory()
    client = _signed_in(user)

    miss = _attempt(client, puzzle, WRONG)
    assert (miss["rated"], miss["practice"]) == (True, False)
    assert miss["rating_after"] < miss["rating_before"] == 1500
    rating = PuzzlePlayer.objects.get(user=user).rating
    puzzle.refresh_from_db()
    puzzle_rating = puzzle.rating

    hit = _attempt(client, puzzle, puzzle.solution)
    gave_up = _give_up(client, puzzle)

    assert (hit["solved"], hit["rated"], hit["practice"]) == (True, False, True)
    assert (gave_up["rated"], gave_up["practice"]) == (False, True)
    player = PuzzlePlayer.objects.get(user=user)
    puzzle.refresh_from_db()
    assert (player.rating, player.rated, player.solved, player.streak) == (rating, 1, 0, 0)
    assert puzzle.rating == puzzle_rating
    assert PuzzleAttempt.objects.filter(user=user, rated=True).count() == 1


@pytest.mark.django_db
def test_giving_up_shows_the_answer_and_is_a_rated_loss_for_a_player(puzzle):
    user = UserFactory()
    PuzzlePlayer.objects.create(user=user, streak=2, best_streak=2)
    client = _signed_in(user)

    data = _give_up(client, puzzle)

    assert (data["gave_up"], data["solved"], data["rated"]) == (True, False, True)
    assert (data["solution"], data["best_points"]) == (puzzle.solution, 7)
    assert data["source"]["url"].startswith("/analysis/")
    assert data["rating_after"] < data["rating_before"]
    assert data["streak"] == 0
    attempt = PuzzleAttempt.objects.get(user=user)
    assert (attempt.gave_up, attempt.rated, attempt.move, attempt.solved) == (True, True, "", False)
    # Solving it now, with the answer known, changes nothing.
    later = _attempt(client, puzzle, puzzle.solution)
    assert (later["rated"], later["practice"], later["rating_after"]) == (False, True, None)
    assert PuzzlePlayer.objects.get(user=user).rating == data["rating_after"]


@pytest.mark.django_db
def test_an_answer_seen_signed_out_is_not_rated_after_signing_in(puzzle):
    """The browser that gave up signed out, then signed in: its solve is practice."""
    user = UserFactory()
    client = APIClient()
    revealed = _give_up(client, puzzle)
    assert (revealed["solution"], revealed["rated"], revealed["streak"]) == (
        puzzle.solution,
        False,
        0,
    )
    client.force_login(user)  # the session keeps what it saw

    data = _attempt(client, puzzle, puzzle.solution)

    assert (data["solved"], data["rated"], data["practice"]) == (True, False, True)
    assert not PuzzlePlayer.objects.filter(user=user, rated__gt=0).exists()
    page = client.get(f"/puzzles/{puzzle.pk}/")
    assert page.context["state"]["practice"]


@pytest.mark.django_db
def test_attempts_signed_out_cannot_farm_the_answer(puzzle):
    """The issue's report: every attempt used to answer with the solution. Now only a solve or
    a give-up does, and a give-up signed out rates nothing."""
    client = APIClient()
    rating = puzzle.rating
    bodies = [_attempt(client, puzzle, WRONG) for _ in range(5)]
    assert all(body["solution"] is None for body in bodies)
    assert _give_up(client, puzzle)["solution"] == puzzle.solution
    puzzle.refresh_from_db()
    assert (puzzle.rating, puzzle.rated_attempts, puzzle.attempts) == (rating, 0, 6)


@pytest.mark.django_db
def test_give_up_of_an_unknown_puzzle_is_a_404():
    response = APIClient().post("/api/puzzles/999999/give-up/")
    assert response.status_code == 404
    assert response.json()["error"] == "There is no puzzle 999999."


@pytest.mark.django_db
def test_a_script_signed_in_by_token_is_rated_once_without_a_session(puzzle):
    from django.contrib.sessions.models import Session
    from rest_framework.authtoken.models import Token

    user = UserFactory()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")

    first = _attempt(client, puzzle, WRONG)
    second = _attempt(client, puzzle, puzzle.solution)

    assert (first["rated"], second["rated"], second["practice"]) == (True, False, True)
    assert not Session.objects.exists()


# A position after 8 greedy turns (seed 2 of a greedy game): the turn of most points now,
# SF5 RH7 SH8, leaves the next player more than the expert's HH7 RH8 SH9 does.
BEST_TURN_MOVES = [
    "SE6 RF6 HG6", "RE5 HE4 HE3", "HH6 RI6 SJ6", "RF4 SG4 HD4",
    "RG5 RG7 SG8", "HC4 RB4 SA4", "RH4 SH3 HH5", "RE2 SE1 RI7",
]  # fmt: skip
BEST_TURN_PLAYED = "SF5 RH7 SH8"


def _best_turn_position() -> Position:
    pos = Position(2, "standard")
    for move in BEST_TURN_MOVES:
        pos.play(move)
    return pos


@pytest.mark.django_db
def test_a_best_turn_puzzle_is_labelled_checked_deeper_and_solved_by_its_look_ahead():
    """The second kind of puzzle: the expert's turn leads the turn played and the turn of most
    points now after the replies, by a margin the deeper search confirms; an answer solves it
    when its line is worth as much, whatever it scores now."""
    from games.engine.expert import PUZZLE_MARGIN
    from learn.puzzles import examine_best_turn

    pos = _best_turn_position()
    candidate = examine_best_turn(pos, len(BEST_TURN_MOVES), BEST_TURN_PLAYED, 0)
    assert candidate is not None
    assert candidate.kind == "best_turn"
    assert candidate.solution != str(best_turn(pos).turn)
    assert candidate.solution_value is not None
    assert candidate.best_points == pos.check(candidate.solution)[pos.to_move - 1]
    puzzle, _new = learn_services.puzzle_create(
        candidate=candidate, source_record={"moves": BEST_TURN_MOVES}
    )
    assert puzzle.kind == Puzzle.Kind.BEST_TURN
    solved = learn_services.puzzle_attempt_make(puzzle_id=puzzle.pk, move=candidate.solution)
    assert solved.solved
    greedy = learn_services.puzzle_attempt_make(puzzle_id=puzzle.pk, move=BEST_TURN_PLAYED)
    assert not greedy.solved
    assert greedy.points >= solved.points  # more points now, and still not the best turn
    assert PUZZLE_MARGIN > 0

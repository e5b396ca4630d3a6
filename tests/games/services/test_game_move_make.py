"""game_move_make: a legal move is stored and the turn passes; every refusal changes nothing; the
move that ends the game finishes it and announces it once."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from core.errors import ErrorKind
from games import services
from games.models import Game, Turn
from games.selectors import game_get, position_of
from games.services import Conflict, InvalidMove, NotAllowed, StalePly
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.games.services.helpers import (
    assert_deadline,
    best_move,
    play_until_the_last_turn,
    seat_user,
    snapshot,
)

pytestmark = pytest.mark.django_db

FIRST_MOVE = "SA1 RB1 HC1"  # seat 1 at ply 0: scores (1, 0)
SECOND_MOVE = "HD1 RE1 SF1"  # seat 2 at ply 1: scores (1, 2)


def test_two_player_game_starts_and_moves():
    game = make_game()
    assert game.status == Game.Status.ACTIVE
    creator = game.seats.get(seat=1).user
    result = services.game_move_make(game_id=game.pk, user=creator, move="SA1 RB1 HC1", ply=0)
    assert (result.ply, result.points) == (1, [1, 0])


def test_a_legal_move_is_stored_in_its_normal_notation_and_the_turn_passes():
    game = make_game(turn_seconds=45)
    version = game.version
    before = timezone.now()
    result = services.game_move_make(
        game_id=game.pk, user=seat_user(game, 1), move="  sa1 rb1  hc1 ", ply=0
    )
    after = timezone.now()

    assert (result.ply, result.points, result.game.pk) == (1, [1, 0], game.pk)
    [turn] = Turn.objects.filter(game=game)
    assert (turn.ply, turn.seat, turn.move, turn.points) == (1, 1, FIRST_MOVE, [1, 0])
    assert (turn.hint, turn.by_bot) == (False, False)
    game.refresh_from_db()
    assert game.board[0] == "S1#........."
    assert game.board[1:] == ["." * 12] * 11
    assert (game.suns, game.shadows) == (24, 74)
    seats = list(game.seats.order_by("seat"))
    assert [(s.score, s.roofs_left) for s in seats] == [(1, 14), (0, 15)]
    assert (game.ply, game.to_move, game.status, game.version) == (1, 2, "active", version + 1)
    assert_deadline(game, before, after)


def test_turns_go_round_the_table_and_score_for_every_seat():
    game = make_game(players=3)
    services.game_move_make(game_id=game.pk, user=seat_user(game, 1), move=FIRST_MOVE, ply=0)
    result = services.game_move_make(
        game_id=game.pk, user=seat_user(game, 2), move=SECOND_MOVE, ply=1
    )
    assert (result.ply, result.points) == (2, [1, 2, 0])
    game.refresh_from_db()
    assert game.to_move == 3
    assert [(s.score, s.roofs_left) for s in game.seats.order_by("seat")] == [
        (2, 14),
        (2, 14),
        (0, 15),
    ]
    assert list(game.turns.values_list("ply", "seat", "move")) == [
        (1, 1, FIRST_MOVE),
        (2, 2, SECOND_MOVE),
    ]
    # Seat 3 plays the engine's best and the turn comes back to seat 1.
    services.game_move_make(game_id=game.pk, user=seat_user(game, 3), move=best_move(game), ply=2)
    game.refresh_from_db()
    assert (game.ply, game.to_move) == (3, 1)


def test_a_move_is_pushed_to_watchers_once(watch, django_capture_on_commit_callbacks):
    game = make_game()
    watcher = watch(game.pk)
    with django_capture_on_commit_callbacks(execute=True):
        services.game_move_make(game_id=game.pk, user=seat_user(game, 1), move=FIRST_MOVE, ply=0)
    game.refresh_from_db()
    [event] = watcher.events()
    assert event["version"] == event["game"]["version"] == game.version
    assert (event["game"]["ply"], event["game"]["to_move"]) == (1, 2)
    assert [t["move"] for t in event["game"]["turns"]] == [FIRST_MOVE]


def test_the_deadline_is_dropped_while_a_bot_is_to_move():
    game = make_game(bots=[(2, "medium")])
    assert game.deadline is not None
    # No on-commit callbacks run here, so the bot's task waits.
    services.game_move_make(game_id=game.pk, user=seat_user(game, 1), move=FIRST_MOVE, ply=0)
    game.refresh_from_db()
    assert (game.to_move, game.deadline) == (2, None)


@pytest.mark.parametrize(
    ("move", "cell", "error"),
    [
        ("SA1 RF6 HC1", "F6", "F6 is not next to any piece"),
        ("SA1 SA1 HC1", "A1", "A1 is already occupied"),
        ("HA1 RB1 SC1", "A1", "shadow at A1 would not be part of any siesta"),
        ("SA1 RB1 HB2", "B2", "shadow at B2"),
        ("SA1 SA2 SA3", None, "scores no point for player 1"),
        ("SA1", None, "three pieces"),
        ("SA1 RB1 HC1 SD1", None, "at most three"),
        ("SM1 RB1 HC1", None, "M1 is off the board"),
        ("XX", None, "'XX' is not a placement"),
    ],
)
def test_an_illegal_move_names_its_cell_and_changes_nothing(
    move: str, cell: str | None, error: str, watch, django_capture_on_commit_callbacks
):
    game = make_game()
    before = snapshot(game)
    watcher = watch(game.pk)
    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(InvalidMove) as refused,
    ):
        services.game_move_make(game_id=game.pk, user=seat_user(game, 1), move=move, ply=0)
    assert refused.value.kind == ErrorKind.INVALID
    assert refused.value.cell == cell
    assert error in refused.value.message
    assert snapshot(game) == before
    assert not Turn.objects.filter(game=game).exists()
    assert watcher.events() == []


def test_an_illegal_move_later_in_the_game_changes_nothing():
    game = make_game()
    services.game_move_make(game_id=game.pk, user=seat_user(game, 1), move=FIRST_MOVE, ply=0)
    before = snapshot(game)
    with pytest.raises(InvalidMove) as refused:
        services.game_move_make(game_id=game.pk, user=seat_user(game, 2), move="SD1 RE1 HF1", ply=1)
    assert refused.value.cell == "D1"
    assert "sun at D1 would be next to a shadow" in refused.value.message
    assert snapshot(game) == before
    assert Turn.objects.filter(game=game).count() == 1


@pytest.mark.parametrize("move", ["", "   ", "\t\n", None, 123])
def test_an_empty_move_is_refused(move: object):
    game = make_game()
    before = snapshot(game)
    with pytest.raises(InvalidMove, match="Send a move like") as refused:
        services.game_move_make(
            game_id=game.pk,
            user=seat_user(game, 1),
            move=move,  # type: ignore[arg-type]  # as a careless caller might send
            ply=0,
        )
    assert refused.value.cell is None
    assert snapshot(game) == before


def test_only_the_seat_to_move_may_move():
    game = make_game()
    before = snapshot(game)
    with pytest.raises(NotAllowed, match="not your turn") as refused:
        services.game_move_make(game_id=game.pk, user=seat_user(game, 2), move=FIRST_MOVE, ply=0)
    assert refused.value.kind == ErrorKind.NOT_ALLOWED
    assert snapshot(game) == before


@pytest.mark.parametrize("ply", [0, 3, None])
@pytest.mark.parametrize("who", ["spectator", "anonymous", "nobody"])
def test_someone_without_a_seat_may_not_move(who: str, ply: int | None):
    game = make_game()
    user = {"spectator": UserFactory(), "anonymous": AnonymousUser(), "nobody": None}[who]
    before = snapshot(game)
    with pytest.raises(NotAllowed, match="not playing in this game"):
        services.game_move_make(game_id=game.pk, user=user, move=FIRST_MOVE, ply=ply)
    assert snapshot(game) == before


@pytest.mark.parametrize("ply", [0, 2, None])
def test_a_move_for_another_ply_is_stale(ply: int | None):
    game = make_game()
    services.game_move_make(game_id=game.pk, user=seat_user(game, 1), move=FIRST_MOVE, ply=0)
    before = snapshot(game)
    with pytest.raises(StalePly) as refused:
        services.game_move_make(game_id=game.pk, user=seat_user(game, 2), move=SECOND_MOVE, ply=ply)
    assert (refused.value.kind, refused.value.ply) == (ErrorKind.CONFLICT, 1)
    assert "ply 1" in refused.value.message
    assert snapshot(game) == before


def test_a_repeated_submit_is_stale_and_plays_once():
    game = make_game()
    first = seat_user(game, 1)
    services.game_move_make(game_id=game.pk, user=first, move=FIRST_MOVE, ply=0)
    before = snapshot(game)
    with pytest.raises(StalePly) as refused:
        services.game_move_make(game_id=game.pk, user=first, move=FIRST_MOVE, ply=0)
    assert refused.value.ply == 1
    assert snapshot(game) == before
    assert list(game.turns.values_list("ply", "move")) == [(1, FIRST_MOVE)]


def test_no_move_before_the_game_starts():
    game = make_game(players=3, start=False)
    with pytest.raises(Conflict, match="not started"):
        services.game_move_make(game_id=game.pk, user=seat_user(game, 1), move=FIRST_MOVE, ply=0)
    game.refresh_from_db()
    assert (game.ply, game.board[0], game.version) == (0, "." * 12, 1)


def test_no_move_after_the_end():
    game = make_game()
    services.game_resign(game_id=game.pk, user=seat_user(game, 2))
    before = snapshot(game)
    with pytest.raises(Conflict, match="over") as refused:
        services.game_move_make(game_id=game.pk, user=seat_user(game, 1), move=FIRST_MOVE, ply=0)
    assert refused.value.kind == ErrorKind.CONFLICT
    assert snapshot(game) == before


def test_a_player_who_is_out_may_not_move():
    game = make_game(players=3)
    out = seat_user(game, 1)
    services.game_resign(game_id=game.pk, user=out)  # seat 1 is to move; a bot will play it
    with pytest.raises(NotAllowed, match="out of this game"):
        services.game_move_make(game_id=game.pk, user=out, move=FIRST_MOVE, ply=0)
    assert not Turn.objects.filter(game=game).exists()


def test_the_move_that_ends_the_game_finishes_it_once(
    finished_outcomes, watch, django_capture_on_commit_callbacks
):
    game = make_game()
    last = play_until_the_last_turn(game)
    game.refresh_from_db()
    expected = position_of(game_get(game.pk))
    expected.play(last)
    assert expected.over
    version, ply = game.version, game.ply
    watcher = watch(game.pk)

    with django_capture_on_commit_callbacks(execute=True):
        result = services.game_move_make(
            game_id=game.pk, user=seat_user(game, game.to_move), move=last, ply=ply
        )

    assert result.ply == ply + 1
    game.refresh_from_db()
    assert (game.status, game.end_reason) == ("finished", expected.end.value)
    assert (game.to_move, game.deadline, game.ply) == (None, None, ply + 1)
    assert game.finished_at is not None
    assert game.winners == expected.winners()
    assert [s.score for s in game.seats.order_by("seat")] == list(expected.scores)
    assert list(game.turns.values_list("ply", flat=True)) == list(range(1, ply + 2))
    assert game.version == version + 1
    [outcome] = finished_outcomes
    assert (outcome.game_id, outcome.end_reason, outcome.winners) == (
        game.pk,
        game.end_reason,
        game.winners,
    )
    [event] = watcher.events()
    assert event["version"] == version + 1
    assert event["game"]["status"] == "finished"
    assert event["game"]["result"]["winners"] == game.winners

    with pytest.raises(Conflict, match="over"):
        services.game_move_make(
            game_id=game.pk, user=seat_user(game, 1), move=FIRST_MOVE, ply=game.ply
        )
    assert len(finished_outcomes) == 1


# -- the turn clock is checked when a move arrives ----------------------------------------------


def _past_deadline(game: Game, seconds: int = 2) -> None:
    Game.objects.filter(pk=game.pk).update(
        deadline=timezone.now() - timezone.timedelta(seconds=seconds)
    )


def test_a_move_after_the_deadline_is_refused_and_the_player_times_out(
    finished_outcomes, django_capture_on_commit_callbacks
):
    """Before the fix the move was accepted until the periodic sweep ran."""
    game = make_game()
    _past_deadline(game)
    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(services.TurnTimedOut) as refused,
    ):
        services.game_move_make(game_id=game.pk, user=seat_user(game, 1), move=FIRST_MOVE, ply=0)
    assert refused.value.kind == ErrorKind.CONFLICT
    game.refresh_from_db()
    # Exactly what the sweep does: the seat is out by timeout, the other player wins.
    assert (game.status, game.end_reason, game.winners, game.ply) == (
        "finished",
        "timeout",
        [2],
        0,
    )
    assert game.seats.get(seat=1).out_reason == "timeout"
    assert not Turn.objects.filter(game=game).exists()
    assert [o.end_reason for o in finished_outcomes] == ["timeout"]
    # The sweep, running afterwards, finds nothing more to do.
    assert services.game_turn_timeouts_expire() == []


def test_with_three_players_a_late_move_puts_the_mover_out_and_play_goes_on():
    game = make_game(players=3)
    _past_deadline(game)
    with pytest.raises(services.TurnTimedOut):
        services.game_move_make(game_id=game.pk, user=seat_user(game, 1), move=FIRST_MOVE, ply=0)
    game.refresh_from_db()
    assert game.status == "active"
    assert game.seats.get(seat=1).out_reason == "timeout"


def test_a_move_just_before_the_deadline_is_played():
    game = make_game()
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() + timezone.timedelta(seconds=5))
    result = services.game_move_make(
        game_id=game.pk, user=seat_user(game, 1), move=FIRST_MOVE, ply=0
    )
    assert result.ply == 1


def test_a_hint_after_the_deadline_is_refused_the_same_way():
    game = make_game()
    _past_deadline(game)
    with pytest.raises(services.TurnTimedOut):
        services.game_hint(game_id=game.pk, user=seat_user(game, 1))
    game.refresh_from_db()
    assert (game.status, game.end_reason) == ("finished", "timeout")
    assert not game.seats.get(seat=1).hinted

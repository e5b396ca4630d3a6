"""game_turn_preview: the check of a turn in progress for the player to move. It answers the
points so far, whether the turn is complete and whether it ends the game; it refuses as a move
would, naming the cell; it stores nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser

from core.errors import ErrorKind
from games import services
from games.models import Turn
from games.selectors import game_get, position_of
from games.services import Conflict, InvalidMove, NotAllowed, NotFound, StalePly
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.games.services.helpers import play_until_the_last_turn, seat_user, snapshot

pytestmark = pytest.mark.django_db


def _preview(game, move: str, *, seat: int = 1, ply: int | None = 0) -> dict:
    return services.game_turn_preview(
        game_id=game.pk, user=seat_user(game, seat), move=move, ply=ply
    )


@pytest.mark.parametrize(
    ("move", "points", "complete"),
    [
        ("SA1", [0, 0], False),
        ("sa1 rb1", [0, 0], False),
        ("SA1 RB1 HC1", [1, 0], True),
    ],
)
def test_points_so_far_and_whether_the_turn_is_complete(
    move: str, points: list[int], complete: bool, watch, django_capture_on_commit_callbacks
):
    game = make_game()
    before = snapshot(game)
    watcher = watch(game.pk)
    with django_capture_on_commit_callbacks(execute=True):
        preview = _preview(game, move)
    assert preview == {"points": points, "complete": complete, "ends_game": False}
    assert snapshot(game) == before
    assert not Turn.objects.filter(game=game).exists()
    assert watcher.events() == []


def test_points_a_turn_gives_the_other_seats_are_shown():
    game = make_game()
    services.game_move_make(game_id=game.pk, user=seat_user(game, 1), move="SA1 RB1 HC1", ply=0)
    assert _preview(game, "HD1", seat=2, ply=1)["points"] == [1, 0]
    assert _preview(game, "HD1 RE1 SF1", seat=2, ply=1) == {
        "points": [1, 2],
        "complete": True,
        "ends_game": False,
    }


def test_a_turn_that_ends_the_game_is_complete_and_says_so():
    game = make_game()
    last = play_until_the_last_turn(game)
    game.refresh_from_db()
    seat = game.to_move
    ended = position_of(game_get(game.pk))
    ended.play(last)
    assert ended.end is not None
    assert ended.end.value != "no_scoring_move"  # a placement ends it, not the next seat's lack
    placements = last.split()
    # The placement that ends the game is the last one; before it the turn is in progress.
    for count in range(1, len(placements)):
        partial = _preview(game, " ".join(placements[:count]), seat=seat, ply=game.ply)
        assert partial["ends_game"] is False
        assert partial["complete"] is False
    before = snapshot(game)
    preview = _preview(game, last, seat=seat, ply=game.ply)
    assert (preview["complete"], preview["ends_game"]) == (True, True)
    result = services.game_move_make(
        game_id=game.pk, user=seat_user(game, seat), move=last, ply=game.ply
    )
    assert snapshot(game) != before
    assert preview["points"] == result.points


@pytest.mark.parametrize(
    ("move", "cell", "error"),
    [
        ("SA1 RF6", "F6", "F6 is not next to any piece"),
        ("SA1 SA1", "A1", "A1 is already occupied"),
        ("HA1", "A1", "shadow at A1"),
        ("SA1 SA2 SA3", None, "scores no point"),  # complete, so it must score
        ("SA1 RB1 HC1 SD1", None, "at most three"),
        ("SM1", None, "M1 is off the board"),
        ("XX", None, "'XX' is not a placement"),
        ("", None, "empty move"),
    ],
)
def test_errors_name_the_cell_and_store_nothing(move: str, cell: str | None, error: str):
    game = make_game()
    before = snapshot(game)
    with pytest.raises(InvalidMove) as refused:
        _preview(game, move)
    assert (refused.value.kind, refused.value.cell) == (ErrorKind.INVALID, cell)
    assert error in refused.value.message
    assert snapshot(game) == before


def test_only_the_player_to_move_may_check():
    game = make_game()
    for user in (seat_user(game, 2), UserFactory(), AnonymousUser(), None):
        with pytest.raises(NotAllowed):
            services.game_turn_preview(game_id=game.pk, user=user, move="SA1", ply=0)


def test_a_stale_ply_is_refused_and_no_ply_is_not_checked():
    game = make_game()
    with pytest.raises(StalePly) as refused:
        _preview(game, "SA1", ply=1)
    assert refused.value.ply == 0
    assert _preview(game, "SA1", ply=None)["points"] == [0, 0]


def test_no_check_before_the_start_or_after_the_end_or_of_no_game():
    game = make_game(players=3, start=False)
    with pytest.raises(Conflict, match="not started"):
        _preview(game, "SA1")
    game = make_game()
    services.game_resign(game_id=game.pk, user=seat_user(game, 2))
    with pytest.raises(Conflict, match="over"):
        _preview(game, "SA1")
    with pytest.raises(NotFound):
        services.game_turn_preview(game_id=10**9, user=UserFactory(), move="SA1", ply=0)


def test_a_player_who_is_out_may_not_check():
    game = make_game(players=3)
    services.game_resign(game_id=game.pk, user=seat_user(game, 1))
    with pytest.raises(NotAllowed, match="out of this game"):
        _preview(game, "SA1")

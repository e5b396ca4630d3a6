"""game_create: what it refuses (creating nothing), the open game it makes, and the game it starts
at once when bots fill every other seat."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from core.errors import ErrorKind
from games import services
from games.models import EMPTY_BOARD, Game, Seat, Turn
from games.services import BotSpec, InvalidInput
from tests.factories import UserFactory
from tests.games.services.helpers import assert_deadline

pytestmark = pytest.mark.django_db

WEEK = 7 * 24 * 3600


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"players": 1}, "2, 3 or 4 players"),
        ({"players": 5}, "2, 3 or 4 players"),
        ({"players": 3, "mode": "teams"}, "Team games need 4 players"),
        ({"players": 2, "mode": "teams"}, "Team games need 4 players"),
        ({"mode": "solo"}, "Unknown mode solo"),
        ({"variant": "modern"}, "Unknown variant modern"),
        ({"bots": [BotSpec(1, "easy")]}, "distinct seats from 2 to 2"),
        ({"players": 3, "bots": [BotSpec(2, "easy"), BotSpec(2, "hard")]}, "from 2 to 3"),
        ({"players": 3, "bots": [BotSpec(4, "easy")]}, "from 2 to 3"),
        ({"bots": [BotSpec(0, "easy")]}, "from 2 to 2"),
        ({"bots": [BotSpec(2, "grandmaster")]}, "Unknown bot level grandmaster"),
        ({"bots": [BotSpec(2, "")]}, "Unknown bot level"),
        ({"turn_seconds": 9}, "between 10 seconds and 7 days"),
        ({"turn_seconds": 0}, "between 10 seconds and 7 days"),
        ({"turn_seconds": WEEK + 1}, "between 10 seconds and 7 days"),
    ],
)
def test_invalid_options_are_refused_and_create_nothing(options: dict[str, Any], message: str):
    user = UserFactory()
    with pytest.raises(InvalidInput) as refused:
        services.game_create(user=user, **options)
    assert refused.value.kind == ErrorKind.INVALID
    assert message in refused.value.message
    assert (Game.objects.count(), Seat.objects.count()) == (0, 0)


@pytest.mark.parametrize("turn_seconds", [10, WEEK])
def test_the_turn_time_limits_themselves_are_accepted(turn_seconds: int):
    game = services.game_create(user=UserFactory(), turn_seconds=turn_seconds)
    game.refresh_from_db()
    assert game.turn_seconds == turn_seconds


def test_an_open_game_seats_its_creator_first_and_waits():
    creator = UserFactory()
    game = services.game_create(
        user=creator, players=3, variant="classic", rated=False, turn_seconds=60
    )
    game.refresh_from_db()
    assert (game.status, game.players, game.mode, game.variant) == ("open", 3, "ffa", "classic")
    assert (game.rated, game.turn_seconds, game.created_by) == (False, 60, creator)
    assert (game.ply, game.to_move, game.deadline, game.started_at) == (0, None, None, None)
    assert (game.board, game.suns, game.shadows, game.winners) == (EMPTY_BOARD, 25, 75, [])
    assert game.version == 1
    seats = list(game.seats.order_by("seat"))
    assert [(s.seat, s.user, s.bot_level, s.team) for s in seats] == [
        (1, creator, "", None),
        (2, None, "", None),
        (3, None, "", None),
    ]
    assert all((s.score, s.roofs_left, s.hinted, s.out_reason) == (0, 15, False, "") for s in seats)


def test_creating_a_game_pushes_its_state_to_its_group(watch, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        game = services.game_create(user=UserFactory(), players=4)
    watcher = watch(game.pk)  # the id is known only now; the push waits for the commit
    for callback in callbacks:
        callback()
    [event] = watcher.events()
    assert (event["type"], event["version"]) == ("game.state", 1)
    assert (event["game"]["id"], event["game"]["status"]) == (game.pk, "open")


@pytest.mark.parametrize(
    ("players", "bots"),
    [
        (2, [BotSpec(2, "easy")]),
        (3, [BotSpec(3, "hard"), BotSpec(2, "medium")]),
        (4, [BotSpec(2, "easy"), BotSpec(3, "medium"), BotSpec(4, "hard")]),
    ],
)
def test_bots_in_every_other_seat_start_the_game_at_once(
    players: int, bots: list[BotSpec], django_capture_on_commit_callbacks
):
    creator = UserFactory()
    before = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        game = services.game_create(user=creator, players=players, bots=bots, turn_seconds=90)
    after = timezone.now()
    game.refresh_from_db()
    assert (game.status, game.to_move, game.ply) == ("active", 1, 0)
    assert before <= game.started_at <= after
    assert_deadline(game, before, after)  # seat 1 is always the creator, a person
    assert game.version == 1  # made and started in one change
    levels = {bot.seat: bot.level for bot in bots}
    assert [(s.user, s.bot_level) for s in game.seats.order_by("seat")] == [
        (creator, ""),
        *[(None, levels[seat]) for seat in range(2, players + 1)],
    ]
    # The person is to move: no bot has played.
    assert not Turn.objects.filter(game=game).exists()


def test_a_team_game_filled_by_bots_draws_its_teams_at_once():
    game = services.game_create(
        user=UserFactory(),
        players=4,
        mode="teams",
        bots=[BotSpec(seat, "easy") for seat in (2, 3, 4)],
    )
    teams = sorted(game.seats.values_list("team", flat=True))
    assert teams == [1, 1, 2, 2]


def test_bots_in_some_seats_leave_the_game_open_for_people():
    game = services.game_create(user=UserFactory(), players=3, bots=[BotSpec(3, "easy")])
    game.refresh_from_db()
    assert (game.status, game.to_move, game.deadline) == ("open", None, None)
    assert [s.is_filled for s in game.seats.order_by("seat")] == [True, False, True]

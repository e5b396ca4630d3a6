"""``game_create_seated``: a game that starts with its players already seated (tournaments)."""

from __future__ import annotations

import pytest

from games import services
from games.models import Game
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_players_sit_in_the_order_given_and_the_game_starts(
    watch, django_capture_on_commit_callbacks
):
    users = UserFactory.create_batch(3)
    with django_capture_on_commit_callbacks(execute=True):
        game = services.game_create_seated(users=users, variant="classic", turn_seconds=60)
    game.refresh_from_db()
    assert (game.status, game.players, game.variant, game.rated, game.created_by) == (
        "active",
        3,
        "classic",
        True,
        None,
    )
    assert list(game.seats.order_by("seat").values_list("user", flat=True)) == [u.pk for u in users]
    assert (game.to_move, game.deadline is not None, game.version) == (1, True, 1)


def test_team_games_draw_their_teams():
    game = services.game_create_seated(users=UserFactory.create_batch(4), mode="teams")
    teams = sorted(game.seats.values_list("team", flat=True))
    assert teams == [1, 1, 2, 2]


@pytest.mark.parametrize(
    ("count", "options", "words"),
    [
        (1, {}, "2, 3 or 4"),
        (5, {}, "2, 3 or 4"),
        (3, {"mode": "teams"}, "4 players"),
        (2, {"variant": "big"}, "Unknown"),
    ],
)
def test_refusals_change_nothing(count, options, words):
    with pytest.raises(services.InvalidInput, match=words):
        services.game_create_seated(users=UserFactory.create_batch(count), **options)
    assert not Game.objects.exists()


def test_a_player_takes_one_seat():
    user = UserFactory()
    with pytest.raises(services.InvalidInput, match="one seat"):
        services.game_create_seated(users=[user, user])

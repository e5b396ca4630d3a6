"""game_create_seated: a game with every seat taken (quick pairing, challenges, rematches)."""

from __future__ import annotations

import pytest

from games import services
from games.models import Game
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_seats_in_the_given_order_and_the_game_starts(django_capture_on_commit_callbacks):
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    with django_capture_on_commit_callbacks() as callbacks:
        game = services.game_create_seated(
            users=[bo, "hard", ana], variant="classic", rated=False, turn_seconds=300
        )
    seats = list(game.seats.order_by("seat"))
    assert [(s.user.username if s.user else None, s.bot_level) for s in seats] == [
        ("bo", ""),
        (None, "hard"),
        ("ana", ""),
    ]
    assert game.status == Game.Status.ACTIVE
    assert (game.to_move, game.players, game.variant, game.rated) == (1, 3, "classic", False)
    assert game.created_by is None
    assert game.deadline is not None
    assert callbacks  # the state is pushed to watchers after the commit


def test_teams_are_drawn():
    game = services.game_create_seated(users=[UserFactory() for _ in range(4)], mode="teams")
    assert sorted(game.seats.values_list("team", flat=True)) == [1, 1, 2, 2]


@pytest.mark.parametrize(
    "seats",
    [
        lambda ana: [ana, ana],
        lambda ana: [ana, "genius"],
        lambda ana: [ana],
        lambda ana: [ana, "easy", "easy", "easy", "easy"],
    ],
)
def test_refusals_change_nothing(seats):
    with pytest.raises(services.InvalidInput):
        services.game_create_seated(users=seats(UserFactory()))
    assert not Game.objects.exists()


def test_game_create_still_opens_a_game_with_free_seats():
    ana = UserFactory()
    game = services.game_create(user=ana, players=3, bots=[services.BotSpec(3, "easy")])
    seats = list(game.seats.order_by("seat"))
    assert [s.user_id for s in seats] == [ana.pk, None, None]
    assert [s.bot_level for s in seats] == ["", "", "easy"]
    assert game.status == Game.Status.OPEN

"""game_cancel: the creator withdraws an open game nobody joined; everything else is refused."""

from __future__ import annotations

import pytest

from games import services
from games.models import Game
from games.services import Conflict, NotAllowed, NotFound
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.games.services.helpers import seat_user

pytestmark = pytest.mark.django_db


def test_the_creator_cancels_an_open_game():
    game = make_game(players=3, start=False)
    services.game_cancel(game_id=game.pk, user=seat_user(game, 1))
    assert not Game.objects.filter(pk=game.pk).exists()


def test_only_the_creator_may_cancel():
    game = make_game(players=3, start=False)
    joiner = UserFactory()
    services.game_join(game_id=game.pk, user=joiner)
    with pytest.raises(NotAllowed):
        services.game_cancel(game_id=game.pk, user=UserFactory())
    with pytest.raises(NotAllowed):
        services.game_cancel(game_id=game.pk, user=joiner)
    assert Game.objects.filter(pk=game.pk).exists()


def test_a_game_someone_joined_or_that_started_is_not_cancelled():
    waiting = make_game(players=3, start=False)
    services.game_join(game_id=waiting.pk, user=UserFactory())
    with pytest.raises(Conflict):
        services.game_cancel(game_id=waiting.pk, user=seat_user(waiting, 1))
    started = make_game()
    with pytest.raises(Conflict):
        services.game_cancel(game_id=started.pk, user=seat_user(started, 1))
    assert Game.objects.filter(pk__in=[waiting.pk, started.pk]).count() == 2


def test_an_unknown_game():
    with pytest.raises(NotFound):
        services.game_cancel(game_id=424242, user=UserFactory())

import pytest

from games import services
from games.models import Game
from tests.games.factories import make_game


@pytest.mark.django_db
def test_two_player_game_starts_and_moves():
    game = make_game()
    assert game.status == Game.Status.ACTIVE
    creator = game.seats.get(seat=1).user
    result = services.game_move_make(game_id=game.pk, user=creator, move="SA1 RB1 HC1", ply=0)
    assert (result.ply, result.points) == (1, [1, 0])


@pytest.mark.django_db
def test_bot_answers_in_process(django_capture_on_commit_callbacks):
    game = make_game(players=2, bots=[(2, "medium")])
    creator = game.seats.get(seat=1).user
    with django_capture_on_commit_callbacks(execute=True):
        services.game_move_make(game_id=game.pk, user=creator, move="SA1 RB1 HC1", ply=0)
    game.refresh_from_db()
    assert game.ply == 2
    assert game.to_move == 1

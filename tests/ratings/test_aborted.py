"""One definition of an aborted game, ``GameOutcome.aborted`` (ended before every seat had played
a turn): the game page, the API's winners and the ratings agree on it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games import services
from games.engine import GameOutcome
from games.models import Game
from ratings.models import RatedGame, RatingChange, Reason
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.ratings.play import play_round, play_turn

pytestmark = pytest.mark.django_db


def test_the_outcome_is_aborted_until_every_seat_has_moved():
    assert GameOutcome.of([3, 0], out=[2], moved=[1]).aborted
    assert GameOutcome.of([3, 0], out=[2], moved=[1]).shown_winners == []
    assert GameOutcome.of([3, 0], out=[2], moved=[1]).winners == [1]  # the standing: tournaments
    assert not GameOutcome.of([3, 4], out=[2], moved=[1, 2]).aborted
    assert GameOutcome.of([3, 4], out=[2], moved=[1, 2]).shown_winners == [1]
    assert not GameOutcome.of([3, 4]).aborted


def _three_views(client, game: Game) -> tuple[dict, dict, str]:
    api = client.get(f"/api/games/{game.pk}/").json()
    page = client.get(reverse("game", args=[game.pk])).content.decode()
    return api, RatedGame.objects.get(game_id=game.pk).__dict__, page


@pytest.mark.parametrize("turns_before", [1, 2])
def test_page_api_and_ratings_agree(client, turns_before):
    """Seat 1 moves, then seat 2 resigns: before its first turn the game is aborted everywhere;
    after it, seat 1 wins everywhere and the game is rated."""
    ana, bo = UserFactory(), UserFactory()
    game = make_game(users=[ana, bo], rated=True)
    for _ in range(turns_before):
        play_turn(game.pk)
    game.refresh_from_db()
    if game.to_move == 2:
        services.game_resign(game_id=game.pk, user=bo)
    else:
        services.game_resign(game_id=game.pk, user=ana)
    game.refresh_from_db()
    aborted = turns_before == 1
    api, rated, page = _three_views(client, game)
    assert f'"aborted": {str(aborted).lower()}' in page  # the page's state (lib/seats.js reads it)
    assert api["result"]["aborted"] is aborted
    assert (api["result"]["winners"] == []) is aborted
    assert (rated["reason"] == Reason.ABORTED) is aborted
    assert not RatingChange.objects.filter(game_id=game.pk, counted=True).exists() or not aborted
    assert all(seat["rating_reason"] == rated["reason"] for seat in api["seats"])


def test_a_four_player_game_with_one_seat_unmoved_is_aborted(client):
    users = [UserFactory() for _ in range(4)]
    game = make_game(players=4, users=users, rated=True)
    for _ in range(3):
        play_turn(game.pk)
    for user in (users[3], users[1], users[2]):  # the last seat never moved
        services.game_resign(game_id=game.pk, user=user)
    game.refresh_from_db()
    api, rated, _page = _three_views(client, game)
    assert api["result"] == {**api["result"], "aborted": True, "winners": []}
    assert rated["reason"] == Reason.ABORTED


def test_the_rated_end_shows_each_rating_change(client):
    ana, bo = UserFactory(), UserFactory()
    game = make_game(users=[ana, bo], rated=True)
    play_round(game)
    services.game_resign(game_id=game.pk, user=bo)
    api = client.get(f"/api/games/{game.pk}/").json()
    by_name = {seat["username"]: seat for seat in api["seats"]}
    assert by_name[ana.username]["rating"] == 1500
    assert by_name[ana.username]["rating_change"] > 0
    assert by_name[bo.username]["rating_change"] < 0
    assert by_name[ana.username]["rating_reason"] == "rated"
    page = client.get(reverse("game", args=[game.pk])).content.decode()
    assert "Rating %(before)s" in page  # the banner's words, drawn by lib/seats.js

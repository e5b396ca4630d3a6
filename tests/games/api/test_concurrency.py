"""Two submits for the same ply at the same moment: the row lock lets exactly one play."""

import threading

import pytest
from django.db import connection
from django.urls import reverse

from games.engine import Position
from games.models import Turn
from tests.factories import UserFactory
from tests.games.api.helpers import token_client
from tests.games.factories import make_game

MOVES = ["SA1 RB1 HC1", "SL12 RK12 HJ12"]


@pytest.mark.requires_postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attempt", range(3))
def test_two_moves_for_the_same_ply_play_once(attempt):
    for move in MOVES:  # each is legal on its own
        Position(players=2).play(move)
    alice = UserFactory()
    game = make_game(users=[alice, UserFactory()])
    clients = [token_client(alice), token_client(alice)]  # two tabs, or a script and a browser
    url = reverse("api-game-moves", args=[game.pk])
    start = threading.Barrier(len(MOVES))
    statuses: dict[str, int] = {}
    errors: list[BaseException] = []

    def submit(client, move: str) -> None:
        try:
            start.wait(timeout=10)
            statuses[move] = client.post(url, {"move": move, "ply": 0}, format="json").status_code
        except BaseException as exc:  # surfaced below: a thread's failure must fail the test
            errors.append(exc)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=submit, args=(client, move))
        for client, move in zip(clients, MOVES, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert not errors
    assert sorted(statuses.values()) == [201, 409]
    winner = next(move for move, code in statuses.items() if code == 201)
    turns = list(Turn.objects.filter(game=game))
    assert [(t.ply, t.move) for t in turns] == [(1, winner)]
    game.refresh_from_db()
    assert (game.ply, game.to_move) == (1, 2)

"""Pages that never go stale, on the lobby socket (on every signed-in page): a page opened after
its round was paired missed the ``tournament_game`` push, so its ``welcome`` carries the current
tournament game; a page back in view sends ``sync`` and gets it again."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games.models import Seat
from tests.factories import UserFactory
from tests.payloads import assert_documented
from tests.social.sockets import QUIET, receive
from tests.tournaments.factories import make_tournament
from tests.tournaments.helpers import finish, round_games, start

pytestmark = pytest.mark.django_db(transaction=True)


def _round_two_paired():
    tournament = start(make_tournament(players=2, rounds=2))
    [first] = round_games(tournament, 1)
    finish(first)  # round 2 is paired and pushed: no page of theirs is open
    tournament.refresh_from_db()
    [second] = round_games(tournament, 2)
    user = Seat.objects.get(game=second, seat=1).user
    return tournament, second, user


async def test_a_page_opened_after_the_push_gets_the_game_in_its_welcome_and_on_sync(sockets):
    tournament, game, user = await database_sync_to_async(_round_two_paired)()
    page = await sockets.open("/ws/lobby/", user=user)
    welcome = await receive(page)
    assert_documented("lobby", welcome)
    assert welcome["tournament_game"]["game"] == game.pk
    assert welcome["tournament_game"]["round"] == 2
    assert welcome["tournament_game"]["tournament"] == tournament.pk

    await page.send_json_to({"type": "sync"})
    again = await receive(page)
    assert_documented("lobby", again)
    assert again == {
        "type": "tournament_game",
        **welcome["tournament_game"],
        "starts_in": again["starts_in"],
    }


async def test_without_a_tournament_game_the_welcome_says_none_and_sync_sends_nothing(sockets):
    user = await database_sync_to_async(UserFactory)()
    page = await sockets.open("/ws/lobby/", user=user)
    assert (await receive(page))["tournament_game"] is None
    await page.send_json_to({"type": "sync"})
    assert await page.receive_nothing(timeout=QUIET)


async def test_an_anonymous_page_may_sync_and_gets_nothing(sockets):
    page = await sockets.open("/ws/lobby/")
    welcome = await receive(page)
    assert "tournament_game" not in welcome
    await page.send_json_to({"type": "sync"})
    assert await page.receive_nothing(timeout=QUIET)

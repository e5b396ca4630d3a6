"""The lobby socket jumps a waiting person into their game: the seek's match (or expiry) is pushed
to every page they have open, and a page opened later finds the waiting seek in its welcome."""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from social.services.seeks import SEEK_LIFETIME, seek_cancel, seeks_match
from tests.factories import UserFactory
from tests.social.factories import make_seek
from tests.social.sockets import receive, receive_type

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_match_is_pushed_to_every_page_of_both_people(sockets):
    ana, bo = await database_sync_to_async(lambda: (UserFactory(), UserFactory()))()
    seek = await database_sync_to_async(make_seek)(ana)
    lobby = await sockets.open("/ws/lobby/", user=ana)
    other_tab = await sockets.open("/ws/lobby/", user=ana)
    welcome = await receive(lobby)
    assert welcome["seek"]["id"] == seek.pk
    assert welcome["seek"]["status"] == "waiting"
    await receive(other_tab)

    # bo's seek commits and triggers the sweep: the game exists, both of ana's pages learn it.
    theirs = await database_sync_to_async(make_seek)(bo)
    for page in (lobby, other_tab):
        pushed = await receive_type(page, "seek")
        assert pushed["seek"]["id"] == seek.pk
        assert pushed["seek"]["status"] == "matched"
        assert pushed["seek"]["game"] is not None
    await database_sync_to_async(theirs.refresh_from_db)()
    assert theirs.game_id == pushed["seek"]["game"]


async def test_expiry_and_cancel_are_pushed(sockets):
    ana = await database_sync_to_async(UserFactory)()
    stale = await database_sync_to_async(make_seek)(
        ana, at=timezone.now() - SEEK_LIFETIME - timedelta(seconds=1)
    )
    page = await sockets.open("/ws/lobby/", user=ana)
    await receive(page)
    await database_sync_to_async(seeks_match)()
    assert (await receive_type(page, "seek"))["seek"]["status"] == "expired"

    fresh = await database_sync_to_async(make_seek)(ana)
    await database_sync_to_async(seek_cancel)(seek_id=fresh.pk, user=ana)
    cancelled = await receive_type(page, "seek")
    assert cancelled["seek"] == {**cancelled["seek"], "id": fresh.pk, "status": "cancelled"}
    assert stale.pk != fresh.pk

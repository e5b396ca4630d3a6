"""Rematch: every person of the finished game must ask, bots always accept, the new game has the
same players, bots and settings with the seats rotated by one, and the old game's watchers learn
of it live ({"type": "rematch", "game": id})."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from rest_framework.test import APIClient

from games.models import Game
from games.services import Conflict, NotAllowed
from social.models import Rematch
from social.services.rematch import rematch_ask
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.social.factories import finished_game
from tests.social.sockets import receive_type


def seat_takers(game: Game) -> list[str]:
    return [
        s.user.username if s.user else f"bot:{s.bot_level}" for s in game.seats.order_by("seat")
    ]


@pytest.mark.django_db
def test_every_person_must_ask_then_the_game_starts_with_seats_rotated():
    ana, bo, cy = (UserFactory(username=n) for n in ("ana", "bo", "cy"))
    old = finished_game(users=[ana, bo, cy], players=3, variant="classic", turn_seconds=300)
    assert seat_takers(old) == ["ana", "bo", "cy"]

    first = rematch_ask(game_id=old.pk, user=ana)
    assert first == {"game": None, "asked": ["ana"], "waiting_for": ["bo", "cy"]}
    # Asking twice changes nothing.
    assert rematch_ask(game_id=old.pk, user=ana)["waiting_for"] == ["bo", "cy"]
    assert rematch_ask(game_id=old.pk, user=cy)["waiting_for"] == ["bo"]
    assert not Rematch.objects.exists()

    last = rematch_ask(game_id=old.pk, user=bo)
    assert last["game"] is not None
    assert last["waiting_for"] == []
    new = Game.objects.get(pk=last["game"])
    assert new.status == Game.Status.ACTIVE
    assert (new.players, new.mode, new.variant, new.rated, new.turn_seconds) == (
        3,
        "ffa",
        "classic",
        True,
        300,
    )
    assert seat_takers(new) == ["cy", "ana", "bo"]  # seat n → n + 1, the last to seat 1
    # A late ask gets the game that exists.
    assert rematch_ask(game_id=old.pk, user=cy)["game"] == new.pk
    assert Game.objects.count() == 2


@pytest.mark.django_db
def test_bots_accept_and_keep_their_levels():
    ana = UserFactory(username="ana")
    old = finished_game(users=[ana], players=3, bots=[(2, "hard"), (3, "easy")])
    answer = rematch_ask(game_id=old.pk, user=ana)
    new = Game.objects.get(pk=answer["game"])
    assert seat_takers(new) == ["bot:easy", "ana", "bot:hard"]
    assert new.status == Game.Status.ACTIVE


@pytest.mark.django_db
def test_only_people_of_a_finished_game_may_ask():
    ana, bo, stranger = UserFactory(), UserFactory(), UserFactory()
    active = make_game(users=[ana, bo])
    with pytest.raises(Conflict):
        rematch_ask(game_id=active.pk, user=ana)
    old = finished_game(users=[ana, bo])
    with pytest.raises(NotAllowed):
        rematch_ask(game_id=old.pk, user=stranger)


@pytest.mark.django_db
def test_rematch_api():
    ana, bo, stranger = UserFactory(username="ana"), UserFactory(username="bo"), UserFactory()
    old = finished_game(users=[ana, bo])
    client = APIClient()
    client.force_authenticate(stranger)
    assert client.post(f"/api/games/{old.pk}/rematch/").status_code == 403
    assert client.post("/api/games/999999/rematch/").status_code == 404
    assert client.get("/api/games/999999/rematch/").status_code == 404
    client.force_authenticate(ana)
    answer = client.post(f"/api/games/{old.pk}/rematch/")
    assert answer.status_code == 200
    assert answer.json() == {"game": None, "waiting_for": ["bo"], "asked": ["ana"]}
    client.force_authenticate(bo)
    done = client.post(f"/api/games/{old.pk}/rematch/").json()
    assert done["game"]
    assert done["waiting_for"] == []
    assert client.get(f"/api/games/{old.pk}/rematch/").json()["game"] == done["game"]


@pytest.mark.django_db(transaction=True)
async def test_watchers_see_the_offer_and_the_new_game_live(sockets):
    ana, bo = await database_sync_to_async(lambda: (UserFactory(), UserFactory()))()
    old = await database_sync_to_async(finished_game)(users=[ana, bo])
    spectator = await sockets.open(f"/ws/games/{old.pk}/")
    player = await sockets.open(f"/ws/games/{old.pk}/", user=bo)
    await receive_type(spectator, "state")
    await receive_type(player, "state")

    await database_sync_to_async(rematch_ask)(game_id=old.pk, user=ana)
    offer = await receive_type(player, "rematch_offer")
    assert offer == {
        "type": "rematch_offer",
        "asked": [ana.username],
        "waiting_for": [bo.username],
    }

    answer = await database_sync_to_async(rematch_ask)(game_id=old.pk, user=bo)
    for socket in (spectator, player):
        assert await receive_type(socket, "rematch") == {"type": "rematch", "game": answer["game"]}

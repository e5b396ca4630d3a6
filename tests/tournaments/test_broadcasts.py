"""Every broadcast and frame of a tournament, from a whole tournament (join, leave, start, byes,
results, new rounds, the end), round-trips through JSON and matches ``tournaments.state``; so do
the round notices and the games' states it causes."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async

from games.state import GameStateEvent
from social.state import SocialMessageEvent
from tests.factories import UserFactory
from tests.payloads import assert_documented, assert_round_trips
from tests.tournaments.factories import make_tournament
from tests.tournaments.helpers import committed, finish, round_games, start
from tests.tournaments.test_consumers import _next, _open
from tournaments import services
from tournaments.models import Tournament
from tournaments.state import TournamentSocketFrame, TournamentStateEvent

EVENTS: dict[str, Any] = {
    "tournament.state": TournamentStateEvent,
    "game.state": GameStateEvent,
    "social.message": SocialMessageEvent,
}


@pytest.mark.django_db
def test_a_whole_swiss_with_a_bye(broadcasts):
    tournament = make_tournament(players=3, rounds=2)
    late = UserFactory()
    committed(services.tournament_join, tournament_id=tournament.pk, user=late)
    committed(services.tournament_leave, tournament_id=tournament.pk, user=late)
    tournament = start(tournament)
    for _round in range(2):
        for game in round_games(tournament):
            finish(game)
        tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED

    assert broadcasts.types() == set(EVENTS)
    for _group, event in broadcasts.sent:
        assert_round_trips(event, EVENTS[event["type"]])
    states = [e["tournament"] for e in broadcasts.of_type("tournament.state")]
    assert [s["version"] for s in states] == sorted(s["version"] for s in states)
    assert {"scheduled", "running", "finished"} <= {s["status"] for s in states}
    last = states[-1]
    assert last["winners"]
    assert last["standings"]
    assert any(rnd["byes"] for rnd in last["pairings"])
    assert all(g["points"] is not None for rnd in last["pairings"] for g in rnd["games"])
    kinds = {
        e["message"]["notification"]["kind"]
        for e in broadcasts.of_type("social.message")
        if e["message"]["type"] == "notification"
    }
    assert "tournament_round" in kinds


@pytest.mark.django_db(transaction=True)
async def test_every_frame_of_the_tournament_socket():
    tournament = await database_sync_to_async(make_tournament)(players=2, rounds=1)
    socket = await _open(f"/ws/tournaments/{tournament.pk}/")
    try:
        frames = [await _next(socket)]
        await socket.send_json_to({"type": "what"})
        frames.append(await _next(socket))
    finally:
        await socket.disconnect()
    unknown = await _open("/ws/tournaments/999999/")
    frames.append(await _next(unknown))
    await unknown.disconnect()
    for frame in frames:
        assert_round_trips(frame, TournamentSocketFrame)
        assert_documented("tournament", frame)
    assert [f["type"] for f in frames] == ["tournament", "error", "error"]

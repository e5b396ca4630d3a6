"""The chat of a tournament, on the tournament socket ``/ws/tournaments/{id}/``: one room for
everyone watching, under the rules of the games' chat (1-300 characters, presets, a rate limit,
mute, staff removal); the tournament's states keep coming on the same socket."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games import services as game_services
from social.models import ChatMessage
from social.services.chat import CHAT_RATE, tournament_chat_post
from social.state import ChatHistoryFrame, ChatLine
from tests.factories import UserFactory
from tests.payloads import assert_documented, assert_round_trips
from tests.social.chat_checks import check_mute, remove_in_admin
from tests.social.sockets import receive_type
from tests.tournaments.factories import make_tournament
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def people():
    return UserFactory(username="ana"), UserFactory(username="bo")


async def open_chat(sockets, tournament_id, user=None, language=None):
    socket = await sockets.open(f"/ws/tournaments/{tournament_id}/", user=user, language=language)
    await receive_type(socket, "tournament")
    await socket.send_json_to({"type": "chat_history"})
    history = await receive_type(socket, "chat_history")
    return socket, history


async def test_lines_reach_every_watcher_and_the_state_still_comes(sockets, people):
    ana, bo = people
    tournament = await database_sync_to_async(make_tournament)(players=[ana])
    writer, history = await open_chat(sockets, tournament.pk, ana)
    assert_round_trips(history, ChatHistoryFrame)
    assert_documented("tournament", history)
    assert history == {"type": "chat_history", "room": "tournament", "muted": False, "messages": []}
    reader, _ = await open_chat(sockets, tournament.pk, language="es")  # signed out: reads only

    await writer.send_json_to({"type": "chat", "text": "<b>good luck</b> all"})
    line = await receive_type(reader, "chat")
    assert_round_trips(line, ChatLine)
    assert_documented("tournament", line)
    assert (line["username"], line["text"], line["room"]) == (
        "ana",
        "<b>good luck</b> all",
        "tournament",
    )
    await writer.send_json_to({"type": "chat", "preset": "gg"})
    assert (await receive_type(reader, "chat"))["text"] == "Buena partida"

    await database_sync_to_async(tournament_services.tournament_join)(
        tournament_id=tournament.pk, user=bo
    )
    assert (await receive_type(reader, "tournament"))["tournament"]["players"][-1][
        "username"
    ] == "bo"
    _late, history = await open_chat(sockets, tournament.pk, bo)
    assert [m["text"] for m in history["messages"]] == ["<b>good luck</b> all", "Good game"]
    # A line belongs to its tournament: the game chats do not see it.
    assert await database_sync_to_async(ChatMessage.objects.filter(game=None).count)() == 2


async def test_the_limits_of_the_games_chat_apply(sockets, people):
    ana, _bo = people
    tournament = await database_sync_to_async(make_tournament)()
    player, _ = await open_chat(sockets, tournament.pk, ana)
    anonymous, _ = await open_chat(sockets, tournament.pk)
    for bad in ({"text": ""}, {"text": "x" * 301}, {"text": 5}, {"preset": "nope"}):
        await player.send_json_to({"type": "chat", "id": "c", **bad})
        error = await receive_type(player, "error")
        assert error["id"] == "c"
        assert error["error"]
    await anonymous.send_json_to({"type": "chat", "text": "hi"})
    assert (await receive_type(anonymous, "error"))["error"] == "Sign in to chat."
    await anonymous.send_json_to({"type": "chat_mute", "muted": True})
    assert (await receive_type(anonymous, "error"))["error"]

    limit, _window = CHAT_RATE
    for index in range(limit):
        await player.send_json_to({"type": "chat", "text": f"line {index}"})
        await receive_type(player, "chat")
    await player.send_json_to({"type": "chat", "id": "fast", "text": "one too many"})
    error = await receive_type(player, "error")
    assert error["id"] == "fast"
    assert "too fast" in error["error"]
    assert await database_sync_to_async(ChatMessage.objects.count)() == limit


@pytest.mark.django_db
def test_the_rate_limit_is_per_person_and_chat(people):
    ana, bo = people
    tournament = make_tournament()
    other = make_tournament()
    limit, _window = CHAT_RATE
    for index in range(limit):
        tournament_chat_post(tournament_id=tournament.pk, user=ana, text=f"{index}")
    with pytest.raises(game_services.Conflict):
        tournament_chat_post(tournament_id=tournament.pk, user=ana, text="more")
    tournament_chat_post(tournament_id=other.pk, user=ana, text="elsewhere")
    tournament_chat_post(tournament_id=tournament.pk, user=bo, text="bo may talk")
    with pytest.raises(game_services.NotFound):
        tournament_chat_post(tournament_id=other.pk + 100, user=bo, text="nowhere")


async def test_a_person_can_mute_the_tournament_chat(sockets, people):
    ana, bo = people
    tournament = await database_sync_to_async(make_tournament)()
    muted, _ = await open_chat(sockets, tournament.pk, ana)
    talker, _ = await open_chat(sockets, tournament.pk, bo)
    await check_mute(muted, talker, lambda: open_chat(sockets, tournament.pk, ana))


async def test_staff_remove_a_tournament_line_in_the_admin(sockets, people):
    ana, bo = people
    tournament = await database_sync_to_async(make_tournament)()
    reader, _ = await open_chat(sockets, tournament.pk, bo)
    message = await database_sync_to_async(tournament_chat_post)(
        tournament_id=tournament.pk, user=ana, text="rude words"
    )
    await receive_type(reader, "chat")

    await remove_in_admin(message.pk)
    assert await receive_type(reader, "chat_removed") == {"type": "chat_removed", "id": message.pk}
    _late, history = await open_chat(sockets, tournament.pk, bo)
    assert history["messages"] == []

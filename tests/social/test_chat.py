"""Chat on the game socket: players' and spectators' rooms apart during play and merged after the
end, 1-300 characters, a rate limit, quick messages in each reader's language, mute, and staff
removal. Text is stored and sent as written; the page script only sets it as textContent."""

from __future__ import annotations

from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from django.conf import settings

from games import services as game_services
from social.models import ChatMessage
from social.services.chat import CHAT_RATE, chat_post
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.social.chat_checks import check_mute, remove_in_admin
from tests.social.sockets import drain, receive_type

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def people():
    return UserFactory(username="ana"), UserFactory(username="bo"), UserFactory(username="cy")


async def open_chat(sockets, game_id, user=None, language=None):
    socket = await sockets.open(f"/ws/games/{game_id}/", user=user, language=language)
    await receive_type(socket, "state")
    await socket.send_json_to({"type": "chat_history"})
    history = await receive_type(socket, "chat_history")
    return socket, history


async def test_players_and_spectators_are_apart_during_play_and_merged_after(sockets, people):
    ana, bo, cy = people
    game = await database_sync_to_async(make_game)(users=[ana, bo])
    player, history = await open_chat(sockets, game.pk, ana)
    assert history == {"type": "chat_history", "room": "players", "muted": False, "messages": []}
    other_player, _ = await open_chat(sockets, game.pk, bo)
    spectator, history = await open_chat(sockets, game.pk, cy)
    assert history["room"] == "spectators"
    anonymous, _ = await open_chat(sockets, game.pk)

    await player.send_json_to({"type": "chat", "text": "good luck!"})
    line = await receive_type(other_player, "chat")
    assert (line["username"], line["text"], line["room"]) == ("ana", "good luck!", "players")
    assert line["at"].endswith("Z")
    assert (await receive_type(player, "chat"))["text"] == "good luck!"

    await spectator.send_json_to({"type": "chat", "text": "play F5!"})
    assert (await receive_type(anonymous, "chat"))["text"] == "play F5!"
    # Spectators can't coach, and don't read the players either.
    assert [f for f in await drain(player) if f["type"] == "chat"] == []
    assert [f for f in await drain(other_player) if f["type"] == "chat"] == []
    seen = [
        (f["username"], f["text"], f["room"]) for f in await drain(spectator) if f["type"] == "chat"
    ]
    assert seen == [("cy", "play F5!", "spectators")]

    # The game ends: the rooms merge, for the pages open and for the replay.
    await database_sync_to_async(game_services.game_resign)(game_id=game.pk, user=ana)
    merged = await receive_type(player, "chat_history")
    assert merged["room"] == "after"
    assert [m["text"] for m in merged["messages"]] == ["good luck!", "play F5!"]
    after = await receive_type(spectator, "chat_history")
    assert [m["text"] for m in after["messages"]] == ["good luck!", "play F5!"]
    await spectator.send_json_to({"type": "chat", "text": "well played"})
    assert (await receive_type(player, "chat"))["room"] == "after"

    _late, history = await open_chat(sockets, game.pk)
    assert [m["text"] for m in history["messages"]] == ["good luck!", "play F5!", "well played"]


async def test_limits_and_signed_out_writers_get_errors_and_nothing_is_stored(sockets, people):
    ana, bo, _cy = people
    game = await database_sync_to_async(make_game)(users=[ana, bo])
    player, _ = await open_chat(sockets, game.pk, ana)
    anonymous, _ = await open_chat(sockets, game.pk)

    for bad in (
        {"text": ""},
        {"text": "   "},
        {"text": "x" * 301},
        {"text": 5},
        {"preset": "nope"},
    ):
        await player.send_json_to({"type": "chat", "id": "c", **bad})
        error = await receive_type(player, "error")
        assert error["id"] == "c"
        assert error["error"]
    await anonymous.send_json_to({"type": "chat", "text": "hi"})
    assert (await receive_type(anonymous, "error"))["error"]

    await player.send_json_to({"type": "chat", "text": "x" * 300})
    assert len((await receive_type(player, "chat"))["text"]) == 300
    assert await database_sync_to_async(ChatMessage.objects.count)() == 1


@pytest.mark.django_db
def test_rate_limit_per_person_and_game(people):
    ana, bo, _cy = people
    game = make_game(users=[ana, bo])
    limit, _window = CHAT_RATE
    for index in range(limit):
        chat_post(game_id=game.pk, user=ana, text=f"line {index}")
    with pytest.raises(game_services.Conflict):
        chat_post(game_id=game.pk, user=ana, text="one too many")
    chat_post(game_id=game.pk, user=bo, text="bo may still talk")
    assert ChatMessage.objects.filter(user=ana).count() == limit


async def test_markup_is_sent_as_written_never_as_html(sockets, people):
    ana, bo, _cy = people
    game = await database_sync_to_async(make_game)(users=[ana, bo])
    player, _ = await open_chat(sockets, game.pk, ana)
    text = '<img src=x onerror="alert(1)"><b>hi</b>'
    await player.send_json_to({"type": "chat", "text": text})
    assert (await receive_type(player, "chat"))["text"] == text
    # The page script sets chat text with textContent only.
    script = (Path(settings.BASE_DIR) / "static/js/chat.js").read_text()
    assert "innerHTML" not in script
    assert "insertAdjacentHTML" not in script
    assert "text.textContent = message.text" in script


async def test_quick_messages_show_in_each_readers_language(sockets, people):
    ana, bo, cy = people
    game = await database_sync_to_async(make_game)(users=[ana, bo])
    english, _ = await open_chat(sockets, game.pk, ana)
    spanish, _ = await open_chat(sockets, game.pk, bo, language="es")
    german_watcher, _ = await open_chat(sockets, game.pk, cy, language="de")

    await english.send_json_to({"type": "chat", "preset": "gg"})
    mine = await receive_type(english, "chat")
    theirs = await receive_type(spanish, "chat")
    assert (mine["preset"], mine["text"]) == ("gg", "Good game")
    assert (theirs["preset"], theirs["text"]) == ("gg", "Buena partida")
    await german_watcher.send_json_to({"type": "chat", "preset": "thanks"})
    assert (await receive_type(german_watcher, "chat"))["text"] == "Danke"


async def test_a_player_can_mute_the_chat(sockets, people):
    ana, bo, _cy = people
    game = await database_sync_to_async(make_game)(users=[ana, bo])
    muted, _ = await open_chat(sockets, game.pk, ana)
    talker, _ = await open_chat(sockets, game.pk, bo)

    await check_mute(muted, talker, lambda: open_chat(sockets, game.pk, ana))


async def test_staff_remove_a_message_in_the_admin(sockets, people):
    ana, bo, _cy = people
    game = await database_sync_to_async(make_game)(users=[ana, bo])
    reader, _ = await open_chat(sockets, game.pk, bo)
    message = await database_sync_to_async(chat_post)(game_id=game.pk, user=ana, text="rude words")
    await receive_type(reader, "chat")

    await remove_in_admin(message.pk)
    assert await receive_type(reader, "chat_removed") == {"type": "chat_removed", "id": message.pk}
    _late, history = await open_chat(sockets, game.pk, bo)
    assert history["messages"] == []

"""Every broadcast and frame of the social app, from real flows, round-trips through JSON and
matches its TypedDict (``social.state``): seeks matched and cancelled, challenges, notices, chat
lines and their removal, rematch offers and the rematch, and the frames of both sockets."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import TestCase

from games import services as game_services
from games.state import GameFrame, GameStateEvent
from social.services.challenges import challenge_accept, challenge_create, challenge_decline
from social.services.chat import chat_post, chat_remove
from social.services.notices import SLOW_TURN_SECONDS
from social.services.rematch import rematch_ask, rematch_status
from social.services.seeks import seek_cancel
from social.state import (
    ChatFrame,
    ChatMessageEvent,
    ChatRemovedEvent,
    GameRematchEvent,
    LobbyFrame,
    RematchOfferEvent,
    RematchStatus,
    SocialMessageEvent,
)
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.games.services.helpers import play_best_turn
from tests.payloads import assert_documented, assert_round_trips
from tests.social.factories import finished_game, make_seek
from tests.social.sockets import drain, receive, receive_type

EVENTS: dict[str, Any] = {
    "game.state": GameStateEvent,
    "social.message": SocialMessageEvent,
    "chat.message": ChatMessageEvent,
    "chat.removed": ChatRemovedEvent,
    "rematch.offer": RematchOfferEvent,
    "game.rematch": GameRematchEvent,
}


def _committed(call: Any, /, **kwargs: Any) -> Any:
    with TestCase.captureOnCommitCallbacks(execute=True):
        return call(**kwargs)


@pytest.mark.django_db
def test_every_social_broadcast(broadcasts):
    ana, bo, cy = (UserFactory(username=name) for name in ("ana", "bo", "cy"))
    _committed(make_seek, user=ana)
    _committed(make_seek, user=bo)  # matched with ana's
    cancelled = _committed(make_seek, user=cy)
    _committed(seek_cancel, seek_id=cancelled.pk, user=cy)
    accepted = _committed(challenge_create, challenger=ana, username="cy")
    _committed(challenge_accept, challenge_id=accepted.pk, user=cy)
    declined = _committed(challenge_create, challenger=bo, username="cy")
    _committed(challenge_decline, challenge_id=declined.pk, user=cy)
    slow = make_game(users=[ana, bo], turn_seconds=SLOW_TURN_SECONDS)
    _committed(play_best_turn, game=slow)  # bo's turn in a slow game: a notice
    line = _committed(chat_post, game_id=slow.pk, user=ana, text="<b>hi</b> ¡olé!")
    _committed(chat_post, game_id=slow.pk, user=bo, preset="gg")
    _committed(chat_remove, message_ids=[line.pk])
    over = finished_game(users=[ana, bo])
    assert_round_trips(rematch_status(game_id=over.pk), RematchStatus)
    _committed(rematch_ask, game_id=over.pk, user=ana)
    _committed(rematch_ask, game_id=over.pk, user=bo)

    assert broadcasts.types() == set(EVENTS)
    pushed = set()
    for _group, event in broadcasts.sent:
        decoded = assert_round_trips(event, EVENTS[event["type"]])
        if decoded["type"] == "social.message":
            message = decoded["message"]
            pushed.add((message["type"], message.get("notification", {}).get("kind")))
    assert pushed >= {
        ("seek", None),
        ("challenge", None),
        ("notification", "challenge"),
        ("notification", "challenge_answer"),
        ("notification", "your_turn"),
    }
    seeks = [
        e["message"]["seek"]["status"]
        for e in broadcasts.of_type("social.message")
        if e["message"]["type"] == "seek"
    ]
    assert {"matched", "cancelled"} <= set(seeks)


@pytest.mark.django_db(transaction=True)
async def test_every_frame_of_the_lobby_and_the_chat(sockets):
    ana, bo = await database_sync_to_async(lambda: (UserFactory(), UserFactory()))()
    frames = []
    anonymous = await sockets.open("/ws/lobby/")
    frames.append(await receive(anonymous))
    lobby = await sockets.open("/ws/lobby/", user=ana)
    frames.append(await receive(lobby))
    for message in ({"type": "ping"}, {"type": "what"}):
        await lobby.send_json_to(message)
        frames.append(await receive(lobby))
    await database_sync_to_async(challenge_create)(challenger=bo, username=ana.username)
    frames += await drain(lobby)
    for frame in frames:
        assert_round_trips(frame, LobbyFrame)
        assert_documented("lobby", frame)
    assert {f["type"] for f in frames} == {"welcome", "pong", "error", "challenge", "notification"}

    game = await database_sync_to_async(make_game)(users=[ana, bo])
    chat = await sockets.open(f"/ws/games/{game.pk}/", user=ana)
    await receive_type(chat, "state")
    await chat.send_json_to({"type": "chat_history"})
    await chat.send_json_to({"type": "chat", "text": "hello"})
    await chat.send_json_to({"type": "chat", "preset": "good_luck"})
    await chat.send_json_to({"type": "chat_mute", "muted": True})
    await chat.send_json_to({"type": "chat_mute", "muted": False})
    frames = await drain(chat)
    lines = [f["id"] for f in frames if f["type"] == "chat"]
    await database_sync_to_async(chat_remove)(message_ids=lines[:1])
    await database_sync_to_async(game_services.game_resign)(game_id=game.pk, user=bo)
    await database_sync_to_async(rematch_ask)(game_id=game.pk, user=ana)
    await database_sync_to_async(rematch_ask)(game_id=game.pk, user=bo)
    frames += await drain(chat)
    for frame in frames:
        assert_round_trips(frame, GameFrame | ChatFrame)
        assert_documented("game", frame)
    assert {f["type"] for f in frames} >= {
        "chat_history",
        "chat",
        "chat_mute",
        "chat_removed",
        "rematch_offer",
        "rematch",
        "state",
    }

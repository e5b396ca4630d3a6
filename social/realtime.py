"""Pushes of the social app: to one person's pages (the lobby socket), to a game's watchers and
to a tournament's.

Sent after commits; a channel layer that is away (Redis down) is logged, never raised, so a
request that already committed never fails for it."""

from __future__ import annotations

from core.broadcast import group_send
from games.realtime import game_group
from social.state import GameGroupEvent, LobbyPush, SocialMessageEvent, TournamentGroupEvent
from tournaments.realtime import tournament_group

LOBBY_GROUP = "lobby"


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def to_user(user_id: int, message: LobbyPush) -> None:
    """Send ``message`` (a frame of the lobby socket) to every page the person has open."""
    event: SocialMessageEvent = {"type": "social.message", "message": message}
    group_send(user_group(user_id), event)


def to_game(game_id: int, event: GameGroupEvent) -> None:
    """A group event for the watchers of a game (handled by ``social.consumers``)."""
    group_send(game_group(game_id), event)


def to_tournament(tournament_id: int, event: TournamentGroupEvent) -> None:
    """A chat event for the watchers of a tournament (handled by ``social.consumers``)."""
    group_send(tournament_group(tournament_id), event)

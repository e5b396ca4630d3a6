"""Reads of accounts: a user's personal access tokens, and a person's recent games as their
profile lists them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import QuerySet

from accounts.models import PersonalAccessToken
from games.engine import GameOutcome, SeatResult
from games.selectors import bot_label, game_list, game_state
from games.state import GameState


def personal_tokens_of(*, user: AbstractBaseUser) -> QuerySet[PersonalAccessToken]:
    """The user's personal tokens, newest first, the expired ones too (until revoked)."""
    return PersonalAccessToken.objects.filter(user_id=user.pk)


@dataclass(frozen=True)
class RecentGame:
    """One of a player's games as the profile lists it (from the public game shape)."""

    id: int
    status: str
    mode: str
    created_at: datetime
    seats: list[dict[str, Any]]
    my_seat: int | None
    my_score: int | None
    outcome: str | None
    """For a finished game: "win", "draw" (a shared win) or "loss"; else None."""


def _outcome(state: GameState, seat: int | None) -> str | None:
    """The seat's verdict in a finished game, from the public shape's seats."""
    if state["result"] is None or seat is None:
        return None
    outcome = GameOutcome(
        tuple(
            SeatResult(seat=s["seat"], score=s["score"], out=s["resigned"], team=s["team"])
            for s in state["seats"]
        )
    )
    return outcome.verdict(seat).value


def user_recent_games(*, username: str, limit: int = 20, viewer: Any = None) -> list[RecentGame]:
    """``username``'s most recent games, any status, those ``viewer`` may find (their private
    games to themselves only: ``games.selectors.games_visible``)."""
    games = []
    for game in game_list(player=username, viewer=viewer)[:limit]:
        state = game_state(game)
        mine = next((s for s in state["seats"] if s["username"] == username), None)
        seat = mine["seat"] if mine else None
        games.append(
            RecentGame(
                id=state["id"],
                status=state["status"],
                mode=state["mode"],
                created_at=game.created_at,
                seats=[{**s, "bot_label": bot_label(s["bot"])} for s in state["seats"]],
                my_seat=seat,
                my_score=mine["score"] if mine else None,
                outcome=_outcome(state, seat),
            )
        )
    return games

"""Helpers for tournaments created by players: a player with enough finished games."""

from __future__ import annotations

from typing import Any

from games import services as games
from games.models import Game
from tests.factories import UserFactory


def veteran(games_finished: int = 3, **fields: Any) -> Any:
    """A player with ``games_finished`` finished games (played against a fresh opponent)."""
    user = UserFactory(**fields)
    for _ in range(games_finished):
        game = games.game_create_seated(
            users=[user, UserFactory()],
            mode="ffa",
            variant="standard",
            rated=False,
            turn_seconds=60,
        )
        Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    return user

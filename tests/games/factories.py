"""Factories for games. Games are made through the services, as players make them."""

from __future__ import annotations

from collections.abc import Sequence

from games import services
from games.models import Game
from tests.factories import UserFactory


def make_game(
    *,
    players: int = 2,
    users: Sequence | None = None,
    bots: Sequence[tuple[int, str]] = (),
    start: bool = True,
    **options,
) -> Game:
    """A game created by the first user; with ``start`` every free seat is joined by a new (or
    given) user so that the game is active."""
    users = list(users) if users is not None else [UserFactory()]
    game = services.game_create(
        user=users[0],
        players=players,
        bots=[services.BotSpec(seat, level) for seat, level in bots],
        **options,
    )
    if start:
        bot_seats = {seat for seat, _ in bots}
        extra = iter(users[1:])
        for seat in range(2, players + 1):
            if seat not in bot_seats:
                services.game_join(game_id=game.pk, user=next(extra, None) or UserFactory())
    game.refresh_from_db()
    return game

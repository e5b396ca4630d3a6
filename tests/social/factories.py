"""Factories for the social app: seeks and finished games, made through the services."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from games import services as game_services
from games.models import Game
from social.models import Seek
from social.services.seeks import SEEK_LIFETIME, seek_create
from tests.factories import UserFactory
from tests.games.factories import make_game


def make_seek(
    user=None, *, at: datetime | None = None, rating: float | None = None, **options
) -> Seek:
    """A waiting seek; ``at`` backdates it (the matcher measures waits from ``created_at``),
    ``rating`` overrides the rating it was made with."""
    seek = seek_create(user=user or UserFactory(), **options)
    changes = {}
    if at is not None:
        changes["created_at"] = at
        changes["expires_at"] = at + SEEK_LIFETIME
    if rating is not None:
        changes["rating"] = rating
    if changes:
        Seek.objects.filter(pk=seek.pk).update(**changes)
        seek.refresh_from_db()
    return seek


def finished_game(*, users: Sequence | None = None, players: int = 2, bots=(), **options) -> Game:
    """A game brought to its end by its people resigning one after the other, from seat 1."""
    game = make_game(players=players, users=users, bots=bots, **options)
    people = [s for s in game.seats.order_by("seat") if s.user_id]
    for seat in people:
        game_services.game_resign(game_id=game.pk, user=seat.user)
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
    assert game.status == Game.Status.FINISHED
    return game

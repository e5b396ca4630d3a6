"""Factories for tournaments: made through the services, as staff and players make them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.utils import timezone

from tests.factories import UserFactory
from tournaments import services
from tournaments.models import Tournament


def make_tournament(
    *,
    players: int | Sequence[Any] = 0,
    starts_in: timedelta = timedelta(hours=1),
    **options: Any,
) -> Tournament:
    """A scheduled tournament (2-seat Swiss of 3 rounds unless told) joined by ``players`` new
    users, or by the users given."""
    settings: dict[str, Any] = {
        "name": "Test cup",
        "format": "swiss",
        "table_size": 2,
        "mode": "ffa",
        "variant": "standard",
        "rounds": 3,
        "turn_seconds": 120,
        "max_players": 16,
        "min_players": 2,
    }
    settings.update(options)
    if settings["format"] == "round_robin":
        settings["rounds"] = options.get("rounds")
    tournament = services.tournament_create(
        user=None, starts_at=timezone.now() + starts_in, **settings
    )
    users = [UserFactory() for _ in range(players)] if isinstance(players, int) else players
    for user in users:
        services.tournament_join(tournament_id=tournament.pk, user=user)
    tournament.refresh_from_db()
    return tournament

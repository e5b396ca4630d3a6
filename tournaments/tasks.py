"""Celery tasks of the tournaments app. Thin: they take ids and call services.

They run like every app's tasks (``core.inprocess``): through the broker with Redis,
in-process threads without; ``sweep`` is in ``CELERY_BEAT_SCHEDULE``, so ``make beat`` sends it
and the in-process beat of ``make run`` runs it.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from core.inprocess import enqueue
from tournaments import services


@shared_task(acks_late=True)  # type: ignore[untyped-decorator]
def game_ended(game_id: int) -> bool:
    """A game ended: its tournament (if any) records it and pairs the next round when the round
    is over. Keyed by the game id and idempotent: a repeat changes nothing."""
    return services.tournament_game_ended(game_id=game_id)


@shared_task  # type: ignore[untyped-decorator]
def sweep() -> dict[str, Any]:
    """Periodic: create scheduled tournaments, start due ones, catch up running ones."""
    return services.tournaments_sweep()


def enqueue_game_ended(game_id: int) -> None:
    """Called once the transaction that finished a tournament game has committed."""
    enqueue(game_ended, game_id)

"""Celery tasks of the learn app. Thin: they take ids and call services.

``puzzles_from_analysed_games`` runs periodically (``CELERY_BEAT_SCHEDULE``; in-process under
``make run``): it searches every analysed finished game once for puzzles. ``puzzle_pool_top_up``
(queue ``analyses``) tops the pool up from them and bot games until SIESTA_PUZZLE_POOL wait, while
the cores are idle."""

from __future__ import annotations

import os

from celery import shared_task
from django.conf import settings

from learn.selectors import games_awaiting_puzzles
from learn.services import puzzle_pool_top_up as top_up
from learn.services import puzzles_from_game as search

BATCH = 10


@shared_task(acks_late=True)  # type: ignore[untyped-decorator]
def puzzles_from_game(game_id: int) -> int | None:
    """Search one analysed finished game for puzzles (once). Returns the new puzzles."""
    return search(game_id=game_id)


@shared_task  # type: ignore[untyped-decorator]
def puzzles_from_analysed_games() -> int:
    """Periodic: search the analysed finished games not searched yet (a batch per run)."""
    created = 0
    for game_id in games_awaiting_puzzles(limit=BATCH):
        created += search(game_id=game_id) or 0
    return created


def cores_idle() -> bool:
    """Whether the box's cores are idle enough for engine work nobody waits for: the 1-minute
    load average per core below ``SIESTA_PUZZLE_POOL_MAX_LOAD`` (negative: never)."""
    limit = float(settings.SIESTA_PUZZLE_POOL_MAX_LOAD)
    if limit < 0:
        return False
    return os.getloadavg()[0] / (os.cpu_count() or 1) < limit


@shared_task  # type: ignore[untyped-decorator]
def puzzle_pool_top_up() -> int:
    """Periodic: keep SIESTA_PUZZLE_POOL puzzles waiting, a few games of engine work per run,
    only while the cores are idle (``cores_idle``): it never competes with play. At install,
    ``manage.py top_up_puzzles`` fills the pool."""
    if not cores_idle():
        return 0
    return top_up(
        target=settings.SIESTA_PUZZLE_POOL, games=settings.SIESTA_PUZZLE_POOL_GAMES
    ).created

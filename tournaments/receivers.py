"""How tournaments hear of the games app: a finished game enqueues ``game_ended`` on commit."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction

from games.selectors import FinishedGame
from tournaments.models import Pairing
from tournaments.tasks import enqueue_game_ended


def game_finished_enqueue(sender: Any, *, outcome: FinishedGame, **kwargs: Any) -> None:
    """Runs inside the finishing transaction; the tournament work runs after its commit, so
    pairing never holds up (or waits on) the finished game's row lock."""
    if Pairing.objects.filter(game_id=outcome.game_id).exists():
        transaction.on_commit(partial(enqueue_game_ended, outcome.game_id))

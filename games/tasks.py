"""Celery tasks of the games app. Thin: they take ids and call services."""

from __future__ import annotations

import logging
import random
from datetime import timedelta

from celery import shared_task

logger = logging.getLogger(__name__)


@shared_task(acks_late=True)
def bot_move(game_id: int, ply: int) -> bool:
    """Play the bot's turn of ``game_id`` at ``ply``; a stale or repeated task changes nothing."""
    from games import bots, services
    from games.models import Game
    from games.selectors import game_seats, position_of

    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != Game.Status.ACTIVE or game.ply != ply:
        return False
    seats = game_seats(game)
    seat = next(s for s in seats if s.seat == game.to_move)
    if not seat.played_by_bot:
        return False
    turn = bots.choose_turn(position_of(game, seats), seat.level_for_bot, random.Random())
    if turn is None:
        return False
    return services.game_bot_move_make(game_id=game_id, ply=ply, move=str(turn))


@shared_task
def expire_turns() -> list[int]:
    """Periodic: players whose turn time ran out are out."""
    from games import services

    return services.game_turn_timeouts_expire()


@shared_task
def requeue_bot_turns() -> int:
    """Periodic: re-enqueue bot turns still waiting, so a lost task never stalls a game."""
    from games import services

    waiting = services.bot_turns_waiting(older_than=timedelta(seconds=5))
    for game_id, ply in waiting:
        enqueue_bot_move(game_id, ply)
    return len(waiting)


def enqueue_bot_move(game_id: int, ply: int) -> None:
    bot_move.delay(game_id, ply)


def enqueue_analysis(game_id: int) -> None:
    """Analysis of finished games arrives with the analysis work; nothing to do until then."""

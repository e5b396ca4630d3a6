"""Celery tasks of the games app. Thin: they take ids and call services.

How they are enqueued and run (a broker and workers, or threads of the server's process without
one): ``core.inprocess``. The services enqueue bot turns and analyses through
``games.enqueue``, which names these tasks (each is declared under that name here): the tasks
import the services, never the other way round.

Enqueuing never fails the request that committed: a task that could not be sent (broker down) is
logged, and the periodic sweeps below send it again (bot turns still waiting, finished games
without analysis).
"""

from __future__ import annotations

import logging
import random
from datetime import timedelta

from celery import shared_task

from games import bots, services
from games.analysis import game_analyse, games_awaiting_analysis
from games.enqueue import ANALYSE_GAME, BOT_MOVE, enqueue_analysis, enqueue_bot_move
from games.models import Game
from games.selectors import game_seats, position_of

logger = logging.getLogger(__name__)

BOT_TURN_STALL = timedelta(seconds=5)
"""A bot turn still waiting this long after the last turn is enqueued again."""

ANALYSIS_STALL = timedelta(minutes=1)
"""A finished game still without its analysis this long after the end is analysed again."""


@shared_task(name=BOT_MOVE, acks_late=True)  # type: ignore[untyped-decorator]
def bot_move(game_id: int, ply: int) -> bool:
    """Play the bot's turn of ``game_id`` at ``ply``.

    Whatever the task finds (the game moved on, ended, was resigned, or this task already ran),
    it changes nothing unless it is still that bot's turn at ``ply``: the move service checks it
    again on the rows its write applies to (at their version). Returns whether it played."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != Game.Status.ACTIVE or game.ply != ply:
        return False
    seats = game_seats(game)
    seat = game.seat_to_move(seats)
    if seat is None or not seat.played_by_bot:
        return False
    turn = bots.choose_turn(position_of(game, seats), seat.level_for_bot, random.Random())
    if turn is None:
        logger.warning("bot found no scoring turn in game %s at ply %s", game_id, ply)
        return False
    try:
        return services.game_bot_move_make(game_id=game_id, ply=ply, move=str(turn))
    except services.GameServiceError as exc:
        logger.error("bot turn %s refused in game %s at ply %s: %s", turn, game_id, ply, exc)
        return False


@shared_task(name=ANALYSE_GAME, acks_late=True)  # type: ignore[untyped-decorator]
def analyse_game(game_id: int) -> bool:
    """Analyse a finished game (once: a repeat finds the stored analysis). Returns whether an
    analysis is stored."""
    return game_analyse(game_id=game_id) is not None


@shared_task  # type: ignore[untyped-decorator]
def expire_turns() -> list[int]:
    """Periodic: players whose turn time ran out are out."""
    return services.game_turn_timeouts_expire()


@shared_task  # type: ignore[untyped-decorator]
def expire_open_games() -> list[int]:
    """Periodic: open games nobody joined for ``SIESTA_OPEN_GAME_MINUTES`` are cancelled."""
    return services.game_open_expire()


@shared_task  # type: ignore[untyped-decorator]
def requeue_bot_turns() -> int:
    """Periodic: re-enqueue bot turns still waiting, so a lost task never stalls a game."""
    waiting = services.bot_turns_waiting(older_than=BOT_TURN_STALL)
    for game_id, ply in waiting:
        enqueue_bot_move(game_id, ply)
    return len(waiting)


@shared_task  # type: ignore[untyped-decorator]
def requeue_analyses() -> int:
    """Periodic: analyse finished games whose analysis never arrived (a lost task)."""
    waiting = games_awaiting_analysis(finished_before=ANALYSIS_STALL)
    for game_id in waiting:
        enqueue_analysis(game_id)
    return len(waiting)

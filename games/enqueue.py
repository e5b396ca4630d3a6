"""Enqueuing the games app's tasks: what the services call after their commits.

Why a module of its own, which names the tasks rather than importing them: the tasks call the
services (``games.tasks.bot_move`` plays a bot's turn through ``game_bot_move_make``) and the
services enqueue tasks (that turn makes it the next bot's turn), so a services module that imported
the tasks' module would close a circle. Here the tasks are named as Celery itself names them across
processes (``send_task``), and ``games.tasks`` declares each task under the name given here, so the
import graph points one way::

    games.tasks -> games.services -> games.enqueue -> core.inprocess

``GamesConfig.ready`` imports ``games.tasks`` so that the names are registered in every process.
Other apps follow the same pattern (``social.enqueue``), and every app sends through the one
``core.inprocess.enqueue``: the broker with Redis, this process's threads without.
"""

from __future__ import annotations

from core.inprocess import enqueue

BOT_MOVE = "games.tasks.bot_move"
ANALYSE_GAME = "games.tasks.analyse_game"


def enqueue_bot_move(game_id: int, ply: int) -> None:
    """Called by the services once the commit that made it a bot's turn is done."""
    enqueue(BOT_MOVE, game_id, ply)


def enqueue_analysis(game_id: int) -> None:
    """Called by the services once the commit that finished the game is done."""
    enqueue(ANALYSE_GAME, game_id)

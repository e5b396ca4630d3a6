"""Post-game analysis: every turn of a finished game against the best the engine finds.

``analysis_compute`` is pure (a record in, numbers out); ``game_analyse`` is the service that
stores them once per game; ``analysis_state`` is the selector behind
``GET /api/games/{id}/analysis/`` (API.md).

For each turn: the points the mover scored, the most any legal turn could have scored them in that
position (exact), one turn that does, and the difference. For each player: points scored, points
available (the sum of those maxima), the total missed, accuracy = scored ÷ available in percent
(100 when nothing was available) and the three biggest misses.

Beside that exact "most points now" answer, each turn has the expert's view (``expert``: the
turn's lead once the others have made their best replies, the turn the expert would play
instead, the loss against it and a short reason as a code); turns that lose at least
``MISTAKE`` points of lead against that view, or the game, are mistakes. The expert's view is a
search with a budget, not an exact answer: the page says which is which.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from games.engine.expert import WIN, ExpertSettings, Line, review
from games.engine.record import GameRecord
from games.engine.search import best_turn
from games.models import Analysis, Game
from games.selectors import game_get, game_or_not_found, game_record

logger = logging.getLogger(__name__)

BIG_MISS = 3
"""Missed points from which a turn counts as a big miss (the replay page marks it)."""

MISTAKE = 4
"""Lead lost against the expert's view from which a turn counts as a mistake."""

ANALYSIS_EXPERT = ExpertSettings(work=15_000)
"""The expert's budget per turn in an analysis (about a fifth of a second): a whole game's
look-ahead stays within a few seconds of the analyses queue."""


def _lead(line: Line) -> float:
    """The lead a line leads to: the margin over the best other seat (at the game's end when it
    ends on the way), plus the share of the next turn the expert counts."""
    if not line.over:
        return round(line.value, 1)
    if line.value > WIN * 0.75:
        return round(line.value - WIN, 1)
    if line.value < -WIN * 0.75:
        return round(line.value + WIN, 1)
    return 0.0


def expert_view(position: Any, move: str, seed: int) -> dict[str, Any] | None:
    """The expert's view of ``move`` in ``position`` (API.md, analysis ``expert``)."""
    seen = review(position, move, random.Random(seed), ANALYSIS_EXPERT)
    if seen is None:
        return None
    outcome_lost = seen.reason in ("ends_lost", "misses_win")
    loss = round(seen.best.value - seen.played.value, 1) if not outcome_lost else None
    return {
        "lead": _lead(seen.played),
        "best_move": str(seen.best.turn),
        "best_lead": _lead(seen.best),
        "loss": loss,
        "reason": seen.reason,
        "reason_points": seen.reason_points,
        "mistake": outcome_lost or (loss is not None and loss >= MISTAKE),
    }


def analysis_compute(record: dict[str, Any] | GameRecord) -> dict[str, Any]:
    """Replay ``record`` with the engine and compare every turn with the best one available.

    Raises the engine's ``RecordError``/``IllegalMoveError`` for a record that does not replay."""
    record = record if isinstance(record, GameRecord) else GameRecord.from_json(record)
    position = record.start()
    hinted = set(record.hints)
    turns: list[dict[str, Any]] = []
    for index, move in enumerate(record.moves):
        seat = position.to_move
        if seat is None:
            raise ValueError(f"turn {index + 1} ({move}) was played after the end of the game")
        best = best_turn(position)
        expert = expert_view(position, move, index)
        points = position.play(move)
        played = points[seat - 1]
        turns.append(
            {
                "ply": index + 1,
                "seat": seat,
                "move": str(position.history[-1].turn),
                "played_points": played,
                "best_points": best.points,
                "best_move": str(best.turn) if best.turn else None,
                # A turn is never worth more than the exact best; max() guards the invariant.
                "missed": max(0, best.points - played),
                "hint": index in hinted,
                "expert": expert,
            }
        )
    return {"turns": turns, "players": _players(record.players, turns)}


def _players(players: int, turns: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    result = []
    for seat in range(1, players + 1):
        mine = [t for t in turns if t["seat"] == seat]
        scored = sum(t["played_points"] for t in mine)
        available = sum(t["best_points"] for t in mine)
        misses = sorted(
            (t for t in mine if t["missed"] > 0), key=lambda t: (-t["missed"], t["ply"])
        )[:3]
        result.append(
            {
                "seat": seat,
                "turns": len(mine),
                "points": scored,
                "available": available,
                "missed_total": sum(t["missed"] for t in mine),
                "accuracy": round(scored / available * 100, 1) if available else 100.0,
                "hints": sum(1 for t in mine if t["hint"]),
                "mistakes": sum(1 for t in mine if (t.get("expert") or {}).get("mistake")),
                "biggest_misses": [
                    {
                        "ply": t["ply"],
                        "move": t["move"],
                        "played_points": t["played_points"],
                        "best_points": t["best_points"],
                        "best_move": t["best_move"],
                        "missed": t["missed"],
                    }
                    for t in misses
                ],
            }
        )
    return result


# -- service ----------------------------------------------------------------------------------


def game_analyse(*, game_id: int) -> Analysis | None:
    """Analyse a finished game and store the result once (a repeat returns the stored one).

    None when the game does not exist or is not finished. The engine work (a few seconds) runs
    outside any transaction; the row is written under a lock, so two workers racing on one game
    store one analysis."""
    done = Analysis.objects.filter(game_id=game_id, status=Analysis.Status.DONE).first()
    if done is not None:
        return done
    try:
        game = game_get(game_id)
    except Game.DoesNotExist:
        return None
    if game.status != Game.Status.FINISHED:
        return None
    data = analysis_compute(game_record(game))
    with transaction.atomic():
        analysis, _created = Analysis.objects.select_for_update().get_or_create(game=game)
        if analysis.status != Analysis.Status.DONE:
            analysis.data = data
            analysis.status = Analysis.Status.DONE
            analysis.save(update_fields=["data", "status", "updated_at"])
    return analysis


# -- selectors --------------------------------------------------------------------------------


def analysis_state(*, game_id: int) -> dict[str, Any]:
    """The analysis as API.md describes it; ``pending`` until it is stored.

    Raises ``GameNotFound`` when there is no such game."""
    game_or_not_found(game_id, games=Game.objects.only("pk"))
    analysis = Analysis.objects.filter(game_id=game_id).first()
    if analysis is None or analysis.status != Analysis.Status.DONE:
        return {"status": Analysis.Status.PENDING.value, "turns": [], "players": []}
    return {
        "status": Analysis.Status.DONE.value,
        "turns": analysis.data.get("turns", []),
        "players": analysis.data.get("players", []),
    }


def games_awaiting_analysis(*, finished_before: timedelta, limit: int = 20) -> list[int]:
    """Finished games without a stored analysis that ended longer ago than ``finished_before``
    (their task was lost, or they ended before analyses existed), oldest first."""
    cutoff = timezone.now() - finished_before
    return list(
        Game.objects.filter(status=Game.Status.FINISHED, finished_at__lt=cutoff)
        .exclude(analysis__status=Analysis.Status.DONE)
        .order_by("finished_at")
        .values_list("pk", flat=True)[:limit]
    )

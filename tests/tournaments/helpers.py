"""Helpers for the tournament tests: run a service with its on-commit work, finish games."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar

from django.test import TestCase
from django.utils import timezone

from games import services as games
from games.models import Game
from tests.games.services.helpers import play_best_turn, seat_user
from tournaments import services
from tournaments.models import Pairing, Tournament

T = TypeVar("T")


def committed(call: Callable[..., T], /, **kwargs: Any) -> T:
    """Run a service and then what it left for after the commit (pushes, tasks, and the tasks
    those enqueue), as a real commit would."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        return call(**kwargs)


def start(tournament: Tournament) -> Tournament:
    """Start it as the sweep does once the start time has passed."""
    committed(
        services.tournament_start,
        tournament_id=tournament.pk,
        now=tournament.starts_at + timedelta(seconds=1),
    )
    tournament.refresh_from_db()
    return tournament


def round_games(tournament: Tournament, number: int | None = None) -> list[Game]:
    number = number or tournament.current_round
    ids = (
        Pairing.objects.filter(tournament=tournament, round__number=number)
        .exclude(game=None)
        .values_list("game_id", flat=True)
        .distinct()
    )
    return list(Game.objects.filter(pk__in=ids).order_by("pk"))


def finish(game: Game, *, turns: int = 2, winner: int | None = None) -> None:
    """Play ``turns`` best turns, then every person but ``winner`` (or the leader) resigns."""
    for _ in range(turns):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return
        committed(play_best_turn, game=game)
    game.refresh_from_db()
    seats = list(game.seats.order_by("seat"))
    if winner is None:
        winner = max(seats, key=lambda s: (s.score, -s.seat)).seat
    for seat in seats:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return
        if seat.seat != winner and not seat.out_reason:
            committed(games.game_resign, game_id=game.pk, user=seat_user(game, seat.seat))


def play_out(game: Game) -> None:
    """Play best turns until the game ends by the rules."""
    while True:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return
        committed(play_best_turn, game=game)


def now() -> Any:
    return timezone.now()

"""Every write to a game goes through here.

Each service is one transaction that locks the game row (``select_for_update``), checks what the
caller expects (seat, ply, status), changes the rows, bumps ``version`` and, on commit, pushes the
new state to watchers and enqueues follow-up tasks (bot turns, analysis). A ``(game, ply)`` unique
constraint stands behind the ply check.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import realtime
from games.engine import EngineError, IllegalMoveError, best_turn
from games.engine import Turn as EngineTurn
from games.models import Game, Seat, Turn
from games.selectors import game_get, game_outcome, game_seats, game_state, position_of
from games.signals import game_changed, game_finished

logger = logging.getLogger(__name__)


class GameServiceError(Exception):
    """A request the game refuses. ``status`` is the HTTP status an API answers with."""

    status = 400

    def __init__(self, message: str, *, cell: str | None = None, ply: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.cell = cell
        self.ply = ply


class InvalidInput(GameServiceError):
    status = 400


class InvalidMove(GameServiceError):
    status = 400


class NotAllowed(GameServiceError):
    status = 403


class NotFound(GameServiceError):
    status = 404


class Conflict(GameServiceError):
    status = 409


class StalePly(Conflict):
    """The move was made for another ply than the current one (stale or repeated)."""


@dataclass(frozen=True)
class MoveResult:
    ply: int
    points: list[int]
    game: Game


@dataclass(frozen=True)
class BotSpec:
    seat: int
    level: str


# -- helpers -----------------------------------------------------------------------------------


def _now() -> datetime:
    return timezone.now()


def _lock(game_id: int) -> tuple[Game, list[Seat]]:
    try:
        game = Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise NotFound(_("There is no game %(id)s.") % {"id": game_id}) from None
    seats = list(Seat.objects.select_related("user").filter(game=game).order_by("seat"))
    return game, seats


def _seat_of(seats: Sequence[Seat], user: AbstractBaseUser | None) -> Seat | None:
    if user is None or not user.is_authenticated:
        return None
    return next((s for s in seats if s.user_id == user.pk), None)


def _publish(game: Game, seats: Sequence[Seat]) -> None:
    """Bump the version, save, and push the new state to watchers once the transaction commits."""
    game.version += 1
    game.save()
    state = game_state(game, seats)
    transaction.on_commit(partial(realtime.broadcast_game_state, game.pk, state))
    transaction.on_commit(partial(_announce_change, state))


def _announce_change(state: dict[str, Any]) -> None:
    """``game_changed`` after the commit: a failing receiver is logged, never raised."""
    for receiver, result in game_changed.send_robust(sender=Game, state=state):
        if isinstance(result, Exception):
            logger.error("game_changed receiver %r failed: %r", receiver, result)


def _deadline_for(game: Game, seats: Sequence[Seat]) -> datetime | None:
    seat = next((s for s in seats if s.seat == game.to_move), None)
    if seat is None or seat.played_by_bot:
        return None
    return _now() + timedelta(seconds=game.turn_seconds)


def _schedule_bot(game: Game, seats: Sequence[Seat]) -> None:
    """If a bot is to move, enqueue its turn after the commit."""
    seat = next((s for s in seats if s.seat == game.to_move), None)
    if game.status == Game.Status.ACTIVE and seat is not None and seat.played_by_bot:
        from games.tasks import enqueue_bot_move

        transaction.on_commit(partial(enqueue_bot_move, game.pk, game.ply))


def _winners(game: Game, seats: Sequence[Seat]) -> list[int]:
    """Highest score wins, ties share; players who are out rank last. Teams: the higher sum wins,
    a team with a member out loses; equal sums are a draw (both teams listed)."""
    if game.mode == Game.Mode.TEAMS:
        sums = {t: sum(s.score for s in seats if s.team == t) for t in (1, 2)}
        standing = [t for t in (1, 2) if not any(s.is_out for s in seats if s.team == t)]
        candidates = standing or [1, 2]
        best = max(sums[t] for t in candidates)
        return [s.seat for s in seats if s.team in candidates and sums[s.team] == best]
    pool = [s for s in seats if not s.is_out] or list(seats)
    best = max(s.score for s in pool)
    return [s.seat for s in pool if s.score == best]


def _finish(game: Game, seats: Sequence[Seat], reason: str) -> None:
    """End the game and announce it once, inside the transaction (ratings react in it)."""
    game.status = Game.Status.FINISHED
    game.end_reason = reason
    game.finished_at = _now()
    game.to_move = None
    game.deadline = None
    game.winners = _winners(game, seats)
    game.save()
    game_finished.send(sender=Game, outcome=game_outcome(game))
    from games.tasks import enqueue_analysis

    transaction.on_commit(partial(enqueue_analysis, game.pk))


def _start(game: Game, seats: Sequence[Seat]) -> None:
    if game.mode == Game.Mode.TEAMS:
        order = list(seats)
        random.SystemRandom().shuffle(order)
        for index, seat in enumerate(order):
            seat.team = 1 if index < 2 else 2
            seat.save(update_fields=["team"])
    game.status = Game.Status.ACTIVE
    game.started_at = _now()
    game.to_move = 1
    game.deadline = _deadline_for(game, seats)
    _schedule_bot(game, seats)


# -- lobby ---------------------------------------------------------------------------------------


def game_settings_check(*, players: int, mode: str, variant: str, turn_seconds: int) -> None:
    """Refuse settings no game can have (InvalidInput naming the problem)."""
    if players not in (2, 3, 4):
        raise InvalidInput(_("A game has 2, 3 or 4 players."))
    if mode not in Game.Mode.values:
        raise InvalidInput(_("Unknown mode %(mode)s.") % {"mode": mode})
    if mode == Game.Mode.TEAMS and players != 4:
        raise InvalidInput(_("Team games need 4 players."))
    if variant not in Game.Variant.values:
        raise InvalidInput(_("Unknown variant %(variant)s.") % {"variant": variant})
    if not 10 <= turn_seconds <= 7 * 24 * 3600:
        raise InvalidInput(_("The turn time must be between 10 seconds and 7 days."))


def game_create_seated(
    *,
    users: Sequence[AbstractBaseUser | str],
    mode: str = Game.Mode.FFA,
    variant: str = Game.Variant.STANDARD,
    rated: bool = True,
    turn_seconds: int = 120,
    created_by: AbstractBaseUser | None = None,
) -> Game:
    """Start a game with every seat already taken: ``users`` in seat order, each a user or the
    level of a bot that takes the seat. For games the site pairs (tournament pairings, quick
    pairing, challenges, rematches). Team games draw their teams at random, as every team game
    does."""
    players = len(users)
    game_settings_check(players=players, mode=mode, variant=variant, turn_seconds=turn_seconds)
    people = [u for u in users if not isinstance(u, str)]
    if len({u.pk for u in people}) != len(people):
        raise InvalidInput(_("A player takes one seat only."))
    for level in (u for u in users if isinstance(u, str)):
        if level not in Seat.BotLevel.values:
            raise InvalidInput(_("Unknown bot level %(level)s.") % {"level": level})
    return _open(
        takers=users,
        mode=mode,
        variant=variant,
        rated=rated,
        turn_seconds=turn_seconds,
        created_by=created_by,
    )


def game_create(
    *,
    user: AbstractBaseUser,
    players: int = 2,
    mode: str = Game.Mode.FFA,
    variant: str = Game.Variant.STANDARD,
    rated: bool = True,
    turn_seconds: int = 120,
    bots: Iterable[BotSpec] = (),
) -> Game:
    """Open a game; the creator takes seat 1. It starts at once when bots fill the other seats."""
    bots = list(bots)
    game_settings_check(players=players, mode=mode, variant=variant, turn_seconds=turn_seconds)
    bot_seats: dict[int, str] = {}
    for bot in bots:
        if bot.level not in Seat.BotLevel.values:
            raise InvalidInput(_("Unknown bot level %(level)s.") % {"level": bot.level})
        if not 2 <= bot.seat <= players or bot.seat in bot_seats:
            raise InvalidInput(
                _("Bots take distinct seats from 2 to %(players)s.") % {"players": players}
            )
        bot_seats[bot.seat] = bot.level
    return _open(
        takers=[user, *(bot_seats.get(number) for number in range(2, players + 1))],
        mode=mode,
        variant=variant,
        rated=rated,
        turn_seconds=turn_seconds,
        created_by=user,
    )


def _open(
    *,
    takers: Sequence[AbstractBaseUser | str | None],
    mode: str,
    variant: str,
    rated: bool,
    turn_seconds: int,
    created_by: AbstractBaseUser | None,
) -> Game:
    """Create a game and its seats, in seat order each a user, a bot level or None (free); it
    starts when every seat is taken."""
    with transaction.atomic():
        game = Game.objects.create(
            players=len(takers),
            mode=mode,
            variant=variant,
            rated=rated,
            turn_seconds=turn_seconds,
            created_by=created_by,
        )
        seats = [
            Seat.objects.create(
                game=game,
                seat=number,
                user=None if isinstance(taker, str) else taker,
                bot_level=taker if isinstance(taker, str) else "",
            )
            for number, taker in enumerate(takers, start=1)
        ]
        if all(s.is_filled for s in seats):
            _start(game, seats)
        _publish(game, seats)
    return game


def game_join(*, game_id: int, user: AbstractBaseUser) -> Game:
    """Take the lowest free seat; the game starts when its last seat is filled."""
    with transaction.atomic():
        game, seats = _lock(game_id)
        if game.status != Game.Status.OPEN:
            raise Conflict(_("This game has already started."))
        if _seat_of(seats, user):
            raise Conflict(_("You already have a seat in this game."))
        free = next((s for s in seats if not s.is_filled), None)
        if free is None:
            raise Conflict(_("This game is full."))
        free.user = user
        free.save(update_fields=["user"])
        if all(s.is_filled for s in seats):
            _start(game, seats)
        _publish(game, seats)
    return game


# -- playing -----------------------------------------------------------------------------------


def _check_turn(game: Game, seats: Sequence[Seat], user: AbstractBaseUser | None) -> Seat:
    """The seat ``user`` may move for now, or the reason they may not."""
    if game.status != Game.Status.ACTIVE:
        if game.status == Game.Status.OPEN:
            raise Conflict(_("The game has not started yet."))
        raise Conflict(_("The game is over."))
    mine = _seat_of(seats, user)
    if mine is None:
        raise NotAllowed(_("You are not playing in this game."))
    if mine.is_out:
        raise NotAllowed(_("You are out of this game."))
    if mine.seat != game.to_move:
        raise NotAllowed(_("It is not your turn."))
    return mine


def _check_ply(
    game: Game,
    seats: Sequence[Seat],
    user: AbstractBaseUser | None,
    ply: int | None,
    *,
    required: bool,
) -> None:
    """A player's stale or repeated submit is a 409 even once the turn has passed on (API.md), so
    the ply is checked before whose turn it is; outsiders still get a 403."""
    stale = ply != game.ply if ply is not None else required
    if stale and _seat_of(seats, user) is not None:
        raise StalePly(
            _("The game is at ply %(ply)s: reload and try again.") % {"ply": game.ply},
            ply=game.ply,
        )


def _apply_move(game: Game, seats: list[Seat], seat: Seat, move: str, *, by_bot: bool) -> list[int]:
    position = position_of(game, seats)
    try:
        points = position.play(move)
    except IllegalMoveError as exc:
        raise InvalidMove(str(exc), cell=exc.cell) from None
    except EngineError as exc:
        raise InvalidMove(str(exc)) from None
    played = position.history[-1]
    try:
        with transaction.atomic():
            Turn.objects.create(
                game=game,
                ply=game.ply + 1,
                seat=seat.seat,
                move=str(played.turn),
                points=list(points),
                hint=seat.hint_pending,
                by_bot=by_bot,
            )
    except IntegrityError:
        raise StalePly(_("This turn was already played."), ply=game.ply) from None
    game.ply += 1
    game.board = position.board_text()
    game.suns = position.suns
    game.shadows = position.shadows
    for s, score, roofs in zip(seats, position.scores, position.roofs, strict=True):
        s.score = score
        s.roofs_left = roofs
        if s.pk == seat.pk:
            s.hint_pending = False
        s.save(update_fields=["score", "roofs_left", "hint_pending"])
    if position.over:
        assert position.end is not None
        _finish(game, seats, position.end.value)
    else:
        game.to_move = position.to_move
        game.deadline = _deadline_for(game, seats)
        _schedule_bot(game, seats)
    return list(points)


def game_move_make(
    *, game_id: int, user: AbstractBaseUser | None, move: str, ply: int | None
) -> MoveResult:
    """Play ``move`` for ``user``'s seat. ``ply`` must be the game's current ply."""
    if not isinstance(move, str) or not move.strip():
        raise InvalidMove(_("Send a move like SF5 RF6 HF7."))
    with transaction.atomic():
        game, seats = _lock(game_id)
        _check_ply(game, seats, user, ply, required=True)
        seat = _check_turn(game, seats, user)
        points = _apply_move(game, seats, seat, move, by_bot=False)
        _publish(game, seats)
    return MoveResult(game.ply, points, game)


def game_turn_preview(
    *, game_id: int, user: AbstractBaseUser | None, move: str, ply: int | None
) -> dict[str, Any]:
    """Check a turn in progress for the player to move; nothing is stored.

    Refusals are the services' own errors, so a check and the move it previews answer alike. A
    whole turn (three placements, or fewer that end the game) must also score, as a move must."""
    try:
        game = game_get(game_id)
    except Game.DoesNotExist:
        raise NotFound(_("There is no game %(id)s.") % {"id": game_id}) from None
    seats = game_seats(game)
    # The same checks, in the same order, as a move; read without a lock, as nothing is written.
    # The ply is optional here: a page may check placements without tracking it.
    _check_ply(game, seats, user, ply, required=False)
    _check_turn(game, seats, user)
    position = position_of(game, seats)
    try:
        placements = len(EngineTurn.parse(move).placements)
        points, ended = position.preview(move)
        complete = ended is not None or placements == 3
        if complete:
            position.check(move)
    except IllegalMoveError as exc:
        raise InvalidMove(str(exc), cell=exc.cell) from None
    except EngineError as exc:
        raise InvalidMove(str(exc)) from None
    return {
        "points": list(points),
        "complete": complete,
        "ends_game": ended is not None,
    }


def game_bot_move_make(*, game_id: int, ply: int, move: str) -> bool:
    """Play a bot's move for the seat to move if it is still that bot's turn at ``ply``.

    A stale or repeated bot task changes nothing and returns False."""
    with transaction.atomic():
        try:
            game, seats = _lock(game_id)
        except NotFound:
            return False
        if game.status != Game.Status.ACTIVE or game.ply != ply:
            return False
        seat = next(s for s in seats if s.seat == game.to_move)
        if not seat.played_by_bot:
            return False
        _apply_move(game, seats, seat, move, by_bot=True)
        _publish(game, seats)
    return True


def game_hint(*, game_id: int, user: AbstractBaseUser) -> dict[str, Any]:
    """The engine's best turn for the caller, who becomes ``hinted`` for this game."""
    with transaction.atomic():
        game, seats = _lock(game_id)
        seat = _check_turn(game, seats, user)
        best = best_turn(position_of(game, seats))
        changed = not (seat.hinted and seat.hint_pending)
        seat.hinted = True
        seat.hint_pending = True
        seat.save(update_fields=["hinted", "hint_pending"])
        if changed:
            _publish(game, seats)
    return {"move": str(best.turn) if best.turn else None, "points": best.points}


def _put_out(game: Game, seats: list[Seat], seat: Seat, reason: str) -> None:
    """``seat`` is out: in two-player games (or when no person is left) the game ends; otherwise a
    bot plays the seat for the rest of the game and it ranks last."""
    seat.out_reason = reason
    seat.hint_pending = False
    seat.save(update_fields=["out_reason", "hint_pending"])
    in_play = [s for s in seats if not s.is_out]
    people_in_play = [s for s in in_play if not s.is_bot]
    if game.players == 2 or len(in_play) < 2 or not people_in_play:
        _finish(game, seats, reason)
        return
    if game.to_move == seat.seat:
        game.deadline = None
        _schedule_bot(game, seats)


def game_resign(*, game_id: int, user: AbstractBaseUser) -> Game:
    with transaction.atomic():
        game, seats = _lock(game_id)
        if game.status != Game.Status.ACTIVE:
            raise Conflict(_("Only a game in progress can be resigned."))
        seat = _seat_of(seats, user)
        if seat is None:
            raise NotAllowed(_("You are not playing in this game."))
        if seat.is_out:
            raise Conflict(_("You are already out of this game."))
        _put_out(game, seats, seat, Seat.OutReason.RESIGNED)
        _publish(game, seats)
    return game


def game_turn_timeouts_expire(*, now: datetime | None = None) -> list[int]:
    """Put out every player whose turn time ran out (run by a periodic task). Returns game ids."""
    now = now or _now()
    expired = []
    candidates = Game.objects.filter(status=Game.Status.ACTIVE, deadline__lt=now)
    for game_id in candidates.values_list("pk", flat=True):
        with transaction.atomic():
            game, seats = _lock(game_id)
            if game.status != Game.Status.ACTIVE or not game.deadline or game.deadline >= now:
                continue
            seat = next(s for s in seats if s.seat == game.to_move)
            if seat.played_by_bot:
                game.deadline = None
                game.save(update_fields=["deadline"])
                continue
            _put_out(game, seats, seat, Seat.OutReason.TIMEOUT)
            _publish(game, seats)
            expired.append(game_id)
    return expired


def bot_turns_waiting(*, older_than: timedelta) -> list[tuple[int, int]]:
    """(game id, ply) of active games where a bot has been to move for longer than given."""
    cutoff = _now() - older_than
    waiting = []
    games = Game.objects.filter(status=Game.Status.ACTIVE).prefetch_related("seats", "turns")
    for game in games:
        seat = next((s for s in game.seats.all() if s.seat == game.to_move), None)
        if seat is None or not seat.played_by_bot:
            continue
        turns = list(game.turns.all())
        since = turns[-1].played_at if turns else (game.started_at or game.created_at)
        if since < cutoff:
            waiting.append((game.pk, game.ply))
    return waiting


__all__ = [
    "BotSpec",
    "Conflict",
    "GameServiceError",
    "InvalidInput",
    "InvalidMove",
    "MoveResult",
    "NotAllowed",
    "NotFound",
    "StalePly",
    "bot_turns_waiting",
    "game_bot_move_make",
    "game_create",
    "game_create_seated",
    "game_hint",
    "game_join",
    "game_move_make",
    "game_resign",
    "game_settings_check",
    "game_turn_preview",
    "game_turn_timeouts_expire",
]

"""Every write to a game goes through here.

Each service is one transaction that locks the game row (``select_for_update``), checks what the
caller expects (seat, ply, status), changes the rows, bumps ``version`` and, on commit, pushes the
new state to watchers and enqueues follow-up tasks (bot turns, analysis). A ``(game, ply)`` unique
constraint stands behind the ply check.

A move (a player's or a bot's) takes one path on every database (``_make_move``): its rows are read
without a lock, the move is checked and played on them, and the write (``rows.write_move``) applies
only if the game is still at the version read. Every change to a game raises its version, so that
write is the one a locked transaction would have made; a move that finds the version moved on (or
the turn's time up) is read again under the lock, in a transaction, and made by the same write.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.metrics import PLAYERS_OUT
from games import clock, engine_budget, realtime, rows
from games.engine import EngineError, IllegalMoveError, Position
from games.engine import Turn as EngineTurn
from games.engine.search import best_turn
from games.engine_messages import engine_error_message
from games.enqueue import enqueue_analysis, enqueue_bot_move
from games.errors import (
    Conflict,
    GameNotFound,
    GameServiceError,
    InvalidInput,
    InvalidMove,
    LimitReached,
    NotAllowed,
    NotFound,
    StalePly,
    TurnTimedOut,
)
from games.game_settings import GameSettings
from games.models import Game, Seat, Turn
from games.selectors import (
    finished_game,
    game_or_not_found,
    game_seats,
    game_state,
    outcome_of,
    position_of,
)
from games.signals import game_changed, game_finished
from games.state import GameState, HintResult, TurnPreview

logger = logging.getLogger(__name__)


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


_SAVED = "_siesta_saved"


def _remember(obj: Game | Seat) -> None:
    """Note the row's values as loaded, so that ``_save_changed`` writes only what changed."""
    values = {}
    for f in obj._meta.concrete_fields:
        value = getattr(obj, f.attname)
        # JSON fields hold lists or dicts a service may change in place: keep a copy of those.
        values[f.attname] = copy.deepcopy(value) if isinstance(value, list | dict) else value
    obj.__dict__[_SAVED] = values


def _save_changed(obj: Game | Seat) -> None:
    """Save the fields changed since ``_remember`` (all of them for a row never remembered): a move
    writes a few columns, never every column of the game."""
    saved = obj.__dict__.get(_SAVED)
    if saved is None:
        obj.save()
    else:
        changed = _changed_fields(obj)
        if not changed:
            return
        rows.update(type(obj), [obj], changed)  # save(update_fields=changed), without the ORM
    _remember(obj)


def _changed_fields(obj: Game | Seat) -> list[str]:
    saved = obj.__dict__.get(_SAVED)
    if saved is None:
        return [f.attname for f in obj._meta.concrete_fields]
    return [name for name, value in saved.items() if getattr(obj, name) != value]


def _lock(game_id: int) -> tuple[Game, list[Seat]]:
    """The game row, locked until the transaction ends, and its seats (with their users).

    One query: the seats joined to their game, ``FOR UPDATE OF`` both (``rows.seats_locked``).
    Locking the seat rows too matters: in PostgreSQL, a lock that had to wait re-reads the newest
    version of the locked rows only, so seats read unlocked in the same statement could predate
    the transaction that held the game."""
    seats = rows.seats_locked(game_id)
    if seats:
        game = seats[0].game
        for seat in seats:
            _remember(seat)
    else:  # a game always has seats; keep the plain lock for anything else
        game = game_or_not_found(game_id, games=Game.objects.select_for_update())
    _remember(game)
    return game, seats


def _after_commit(func: Callable[..., Any], *args: Any) -> None:
    """Run ``func(*args)`` once the transaction commits, isolated from the other hooks.

    After the commit the change is made: a hook that fails (Redis down for a broadcast or an
    enqueue) is logged and the hooks after it still run (``robust``), and the request that made the
    change still succeeds. Clients learn the state by ``sync`` or the version; tasks that could not
    be enqueued are picked up by the periodic sweeps (``games.tasks``)."""

    def hook() -> None:
        func(*args)

    # Django's log line for a failed robust hook names it by __qualname__ (a partial has none).
    hook.__qualname__ = f"{func.__qualname__}({', '.join(map(_hook_argument, args))})"
    # Outside a transaction (a move's one-statement write in autocommit) the change is already
    # committed, and Django runs the hook at once, isolated as well.
    transaction.on_commit(hook, robust=True)


def _hook_argument(value: Any) -> str:
    """An after-commit hook's argument as its log line shows it: short and cheap, since it is
    built for every hook of every move (``reprlib.repr`` of a state took about 7% of a move's
    database thread)."""
    if isinstance(value, int | str):
        return repr(value)
    if isinstance(value, dict) and "id" in value:
        return f"<state of game {value['id']}>"
    return type(value).__name__


def _publish(game: Game, seats: Sequence[Seat]) -> None:
    """Bump the version, save the game's changed fields, and push the new state to watchers once
    the transaction commits."""
    game.version += 1
    _save_changed(game)
    _broadcast(game, seats)


def _broadcast(game: Game, seats: Sequence[Seat]) -> None:
    """Push the game's state to watchers and announce the change, once the transaction commits."""
    _send_state(_state_of(game, seats))


def _state_of(game: Game, seats: Sequence[Seat]) -> GameState:
    turns = rows.known_turns(game)
    return game_state(game, seats, turns if turns is not None else rows.turns_of(game.pk))


def _send_state(state: GameState) -> None:
    _after_commit(realtime.broadcast_game_state, state["id"], state)
    _after_commit(_announce_change, state)


def _announce_change(state: GameState) -> None:
    """``game_changed`` after the commit: a failing receiver is logged, never raised."""
    for receiver, result in game_changed.send_robust(sender=Game, state=state):
        if isinstance(result, Exception):
            logger.error("game_changed receiver %r failed: %r", receiver, result)


def _deadline_for(game: Game, seats: Sequence[Seat]) -> datetime | None:
    """The turn time from now; a first turn in a game with a grace period starts its clock no
    earlier than the grace's end (``Game.grace_seconds`` after the start)."""
    seat = game.seat_to_move(seats)
    if seat is None or seat.played_by_bot:
        return None
    start = _now()
    if game.first_turn_forfeits and game.started_at is not None:
        start = max(start, game.started_at + timedelta(seconds=game.grace_seconds))
    return start + timedelta(seconds=game.turn_seconds)


def _set_clock(game: Game, seats: Sequence[Seat]) -> None:
    """Start the clock of the seat to move: a person's deadline (``_deadline_for``), or the time
    since a bot has been to move (``bot_since``, the re-enqueue sweep's due time)."""
    seat = game.seat_to_move(seats) if game.status == Game.Status.ACTIVE else None
    game.deadline = _deadline_for(game, seats) if seat is not None else None
    game.bot_since = _now() if seat is not None and seat.played_by_bot else None


def _schedule_bot(game: Game, seats: Sequence[Seat]) -> None:
    """If a bot is to move, enqueue its turn after the commit."""
    seat = game.seat_to_move(seats)
    if game.status == Game.Status.ACTIVE and seat is not None and seat.played_by_bot:
        _after_commit(enqueue_bot_move, game.pk, game.ply)


def _finish(game: Game, seats: Sequence[Seat], reason: str) -> None:
    """End the game and announce it once, inside the transaction (ratings react in it)."""
    game.status = Game.Status.FINISHED
    game.end_reason = reason
    game.finished_at = _now()
    game.to_move = None
    game.deadline = None
    game.bot_since = None
    game.winners = outcome_of(game, seats).winners
    _save_changed(game)
    game_finished.send(sender=Game, outcome=finished_game(game))
    _after_commit(enqueue_analysis, game.pk)


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
    _set_clock(game, seats)
    _schedule_bot(game, seats)


# -- per-user limits ---------------------------------------------------------------------------


def _lock_user(user: User) -> None:
    """Serialise one user's game creations and joins, so that two at once cannot both pass a
    limit (SQLite's immediate transactions serialise them anyway)."""
    list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk"))


def _check_open_games_limit(user: User) -> None:
    limit = Game.MAX_OPEN_GAMES
    if Game.objects.filter(status=Game.Status.OPEN, created_by=user.pk).count() >= limit:
        raise LimitReached(
            ngettext(
                "You already have %(count)s open game waiting for players: "
                "cancel it or wait until it starts.",
                "You already have %(count)s open games waiting for players: "
                "cancel one or wait until one starts.",
                limit,
            )
            % {"count": limit}
        )


def bot_games_limit_check(user: User) -> None:
    """LimitReached when ``user`` already plays ``SIESTA_MAX_BOT_GAMES`` open or active games with
    bots. The one decision for every path to a game with bots: a game opened with bots, joined,
    or seated by the site (a seek's bot fill, a rematch), where ``_open`` checks every person."""
    limit = Game.MAX_BOT_GAMES
    playing = (
        Game.objects.filter(
            status__in=[Game.Status.OPEN, Game.Status.ACTIVE],
            seats__user=user.pk,
            seats__out_reason="",  # a player who resigned a game with bots is done with it
        )
        .filter(pk__in=Seat.objects.exclude(bot_level="").values("game"))
        .distinct()
        .count()
    )
    if playing >= limit:
        raise LimitReached(
            ngettext(
                "You are already playing %(count)s game with bots: finish it first.",
                "You are already playing %(count)s games with bots: finish one first.",
                limit,
            )
            % {"count": limit}
        )


# -- lobby ---------------------------------------------------------------------------------------


def game_settings_check(*, players: int, mode: str, variant: str, turn_seconds: int) -> None:
    """Refuse settings no game can have (InvalidInput naming the problem): ``GameSettings``."""
    GameSettings(players, mode, variant, turn_seconds).check()


def game_create_seated(
    *,
    users: Sequence[User | str],
    mode: str = Game.Mode.FFA,
    variant: str = Game.Variant.STANDARD,
    rated: bool = True,
    turn_seconds: int = Game.DEFAULT_TURN_SECONDS,
    created_by: User | None = None,
    grace_seconds: int = 0,
    private: bool = False,
) -> Game:
    """Start a game with every seat already taken: ``users`` in seat order, each a user or the
    level of a bot that takes the seat. For games the site pairs (tournament pairings, quick
    pairing, challenges, rematches). Team games draw their teams at random, as every team game
    does. ``grace_seconds``: tournament games, where a missed first turn is a forfeit.
    ``private``: seen only by its players and whom the caller's app lets in (``Game.private``)."""
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
        grace_seconds=grace_seconds,
        private=private,
    )


def game_create(
    *,
    user: User,
    players: int = 2,
    mode: str = Game.Mode.FFA,
    variant: str = Game.Variant.STANDARD,
    rated: bool = True,
    turn_seconds: int = Game.DEFAULT_TURN_SECONDS,
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
    takers: Sequence[User | str | None],
    mode: str,
    variant: str,
    rated: bool,
    turn_seconds: int,
    created_by: User | None,
    grace_seconds: int = 0,
    private: bool = False,
) -> Game:
    """Create a game and its seats, in seat order each a user, a bot level or None (free); it
    starts when every seat is taken."""
    with transaction.atomic():
        people = [t for t in takers if t is not None and not isinstance(t, str)]
        if created_by is not None:  # fair use limits of the person who opens it
            _lock_user(created_by)
            if any(taker is None for taker in takers):  # it waits for people: an open game
                _check_open_games_limit(created_by)
        if any(isinstance(taker, str) for taker in takers):  # bots: each person's bot limit
            for person in sorted(people, key=lambda p: p.pk):  # locked in one order: no deadlock
                if person != created_by:
                    _lock_user(person)
                bot_games_limit_check(person)
        game = Game.objects.create(
            players=len(takers),
            mode=mode,
            variant=variant,
            rated=rated,
            turn_seconds=turn_seconds,
            created_by=created_by,
            grace_seconds=grace_seconds,
            private=private,
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


def game_join(*, game_id: int, user: User) -> Game:
    """Take the lowest free seat; the game starts when its last seat is filled."""
    with transaction.atomic():
        game, seats = _lock(game_id)
        if game.status != Game.Status.OPEN:
            raise Conflict(_("This game has already started."))
        if game.seat_of(user, seats):
            raise Conflict(_("You already have a seat in this game."))
        free = next((s for s in seats if not s.is_filled), None)
        if free is None:
            raise Conflict(_("This game is full."))
        if any(s.is_bot for s in seats):
            _lock_user(user)
            bot_games_limit_check(user)
        free.user = user
        free.save(update_fields=["user"])
        if all(s.is_filled for s in seats):
            _start(game, seats)
        _publish(game, seats)
    return game


def _cancel(game: Game, seats: Sequence[Seat], reason: str) -> None:
    """An open game ends before it starts: nobody plays, nothing is rated or analysed."""
    game.status = Game.Status.CANCELLED
    game.end_reason = reason
    game.finished_at = _now()
    game.deadline = None
    _publish(game, seats)


def game_cancel(*, game_id: int, user: User) -> Game:
    """The creator withdraws an open game: it leaves the lobby, and whoever joined is told."""
    with transaction.atomic():
        game, seats = _lock(game_id)
        if game.created_by_id != user.pk:
            raise NotAllowed(_("Only the player who opened this game can cancel it."))
        if game.status != Game.Status.OPEN:
            raise Conflict(_("Only a game still waiting for players can be cancelled."))
        _cancel(game, seats, Game.EndReason.CANCELLED)
    return game


def game_open_expire(*, now: datetime | None = None) -> list[int]:
    """Cancel the open games nobody completed within ``Game.OPEN_GAME_LIFETIME`` (run by a
    periodic task). Returns their ids."""
    now = now or _now()
    cutoff = now - Game.OPEN_GAME_LIFETIME
    expired = []
    candidates = Game.objects.filter(status=Game.Status.OPEN, created_at__lt=cutoff)
    for game_id in candidates.values_list("pk", flat=True):
        with transaction.atomic():
            game, seats = _lock(game_id)
            if game.status != Game.Status.OPEN:  # it started (or was cancelled) meanwhile
                continue
            _cancel(game, seats, Game.EndReason.EXPIRED)
            expired.append(game_id)
    return expired


# -- playing -----------------------------------------------------------------------------------


def _check_turn(game: Game, seats: Sequence[Seat], user: User | None) -> Seat:
    """The seat ``user`` may move for now, or the reason they may not."""
    if game.status != Game.Status.ACTIVE:
        if game.status == Game.Status.OPEN:
            raise Conflict(_("The game has not started yet."), ply=game.ply)
        raise Conflict(_("The game is over."), ply=game.ply)
    mine = game.seat_of(user, seats)
    if mine is None:
        raise NotAllowed(_("You are not playing in this game."))
    if mine.is_out:
        raise NotAllowed(_("You are out of this game."))
    if mine.seat != game.to_move:
        raise NotAllowed(_("It is not your turn."))
    return mine


def _refusal(exc: EngineError) -> InvalidMove:
    """The engine's refusal of a move, in the player's language, naming the same cell."""
    cell = exc.cell if isinstance(exc, IllegalMoveError) else None
    return InvalidMove(engine_error_message(exc), cell=cell, code=exc.code or None)


def _check_ply(
    game: Game,
    seats: Sequence[Seat],
    user: User | None,
    ply: int | None,
    *,
    required: bool,
) -> None:
    """A player's stale or repeated submit is a 409 even once the turn has passed on (API.md), so
    the ply is checked before whose turn it is; outsiders still get a 403."""
    stale = ply != game.ply if ply is not None else required
    if stale and game.seat_of(user, seats) is not None:
        raise StalePly(
            _("The game is at ply %(ply)s: reload and try again.") % {"ply": game.ply},
            ply=game.ply,
        )


def _play(
    game: Game, seats: list[Seat], seat: Seat, move: str, *, by_bot: bool
) -> tuple[list[int], Turn, list[tuple[Seat, list[str]]], Position]:
    """Play ``move`` for ``seat`` on the game's rows in memory: the points, the new turn, the seats
    whose fields changed (with those fields) and the engine's position after it."""
    position = position_of(game, seats)
    try:
        points = position.play(move)
    except EngineError as exc:
        raise _refusal(exc) from None
    played = position.history[-1]
    turn = Turn(
        game=game,
        ply=game.ply + 1,
        seat=seat.seat,
        move=str(played.turn),
        points=list(points),
        hint=seat.hint_pending,
        by_bot=by_bot,
    )
    game.ply += 1
    game.board = position.board_text()
    game.suns = position.suns
    game.shadows = position.shadows
    for s, score, roofs in zip(seats, position.scores, position.roofs, strict=True):
        s.score = score
        s.roofs_left = roofs
        if s.pk == seat.pk:
            s.hint_pending = False
    # The seats whose score, roofs or hint mark changed (usually only the mover's).
    changed = [(s, fields) for s in seats if (fields := _changed_fields(s))]
    return list(points), turn, changed, position


def game_move_make(*, game_id: int, user: User | None, move: str, ply: int | None) -> MoveResult:
    """Play ``move`` for ``user``'s seat. ``ply`` must be the game's current ply.

    A move that arrives after the turn's deadline is refused and the seat times out, as the
    periodic sweep would have done had it run first."""
    if not isinstance(move, str) or not move.strip():
        raise InvalidMove(_("Send a move like SF5 RF6 HF7."))

    def players_seat(game: Game, seats: list[Seat]) -> Seat:
        _check_ply(game, seats, user, ply, required=True)
        return _check_turn(game, seats, user)

    made = _make_move(game_id, move, players_seat, by_bot=False)
    assert made is not None
    return made


def game_bot_move_make(*, game_id: int, ply: int, move: str) -> bool:
    """Play a bot's move for the seat to move if it is still that bot's turn at ``ply``.

    A stale or repeated bot task changes nothing and returns False."""

    def bots_seat(game: Game, seats: list[Seat]) -> Seat | None:
        if game.status != Game.Status.ACTIVE or game.ply != ply:
            return None
        seat = game.seat_to_move(seats)
        return seat if seat is not None and seat.played_by_bot else None

    try:
        return _make_move(game_id, move, bots_seat, by_bot=True) is not None
    except NotFound:
        return False


SeatFor = Callable[[Game, list[Seat]], Seat | None]
"""Whose move it is, from the rows read: the seat, None when there is nothing to do (a stale bot
task), or the refusal raised."""


class _VersionMoved(Exception):
    """The game changed between a move's read and its write, or the turn's time is up: the move is
    read again under the lock. Nothing was written."""


def _make_move(game_id: int, move: str, seat_for: SeatFor, *, by_bot: bool) -> MoveResult | None:
    """The move's one path (docs/performance.md, "The move's path"): read, check, write at the
    version read. First without a lock or a transaction of its own; if the version moved on
    meanwhile, or the player's time is up (the timeout is written under the lock), once more in a
    transaction with the rows locked, where the write cannot miss. A refusal is final either way: it
    is what the locked way would say of the same committed rows."""
    try:
        made = _move_at_version(game_id, move, seat_for, by_bot=by_bot, lock=False)
    except _VersionMoved:
        with transaction.atomic():
            made = _move_at_version(game_id, move, seat_for, by_bot=by_bot, lock=True)
    if isinstance(made, _TimedOut):  # raised after the commit, which keeps the timeout
        raise TurnTimedOut(_("The time for this turn ran out."), ply=made.ply)
    return made


@dataclass(frozen=True)
class _TimedOut:
    ply: int


def _move_at_version(
    game_id: int, move: str, seat_for: SeatFor, *, by_bot: bool, lock: bool
) -> MoveResult | _TimedOut | None:
    game, seats = _read_for_move(game_id, lock=lock)
    if not by_bot and clock.turn_is_late(game, _now()):
        if not lock:
            raise _VersionMoved
        if _expire_turn(game, seats, _now()):
            return _TimedOut(game.ply)
    seat = seat_for(game, seats)
    if seat is None:
        return None
    points, turn, changed, position = _play(game, seats, seat, move, by_bot=by_bot)
    read_version = game.version
    game.version += 1
    if not position.over:
        game.to_move = position.to_move
        _set_clock(game, seats)
    # The move that ends the game is announced and rated inside the transaction of its write.
    with transaction.atomic() if position.end is not None else contextlib.nullcontext():
        try:
            written = rows.write_move(
                rows.PendingMove(turn, changed), game, _changed_fields(game), version=read_version
            )
        except IntegrityError:  # the (game, ply) constraint behind the version check
            raise StalePly(_("This turn was already played."), ply=game.ply - 1) from None
        if not written:
            raise _VersionMoved
        _remember(game)
        for s, _fields in changed:
            _remember(s)
        if position.end is not None:
            _finish(game, seats, position.end.value)
            _broadcast(game, seats)
        else:
            # The state is taken before any hook runs: outside a transaction Django runs each at
            # once, and an eager bot's turn would already be written by the time it was read.
            state = _state_of(game, seats)
            _schedule_bot(game, seats)
            _send_state(state)
    return MoveResult(game.ply, points, game)


def _read_for_move(game_id: int, *, lock: bool) -> tuple[Game, list[Seat]]:
    """The game and its seats (with their users), as read for a move: locked (``_lock``) or as
    they are (``rows.seats_of``: one consistent read, no lock)."""
    if lock:
        return _lock(game_id)
    seats = rows.seats_of(game_id)
    # A game always has seats; anything else is read as the REST API reads it.
    game = seats[0].game if seats else game_or_not_found(game_id)
    _remember(game)
    for s in seats:
        _remember(s)
    return game, seats


def game_turn_preview(
    *, game_id: int, user: User | None, move: str, ply: int | None
) -> TurnPreview:
    """Check a turn in progress for the player to move; nothing is stored.

    Refusals are the services' own errors, so a check and the move it previews answer alike. A
    whole turn (three placements, or fewer that end the game) must also score, as a move must."""
    game = game_or_not_found(game_id)
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
    except EngineError as exc:
        raise _refusal(exc) from None
    return {
        "points": list(points),
        "complete": complete,
        "ends_game": ended is not None,
    }


def _hint_position(game_id: int, user: User) -> tuple[Position, int]:
    """The position the caller may ask a hint in, and its ply; raises as a move would."""
    with transaction.atomic():
        game, seats = _lock(game_id)
        late = _expire_turn(game, seats, _now())  # as for a move: too late, timed out
        if not late:
            _check_turn(game, seats, user)
            return position_of(game, seats), game.ply
    raise TurnTimedOut(_("The time for this turn ran out."), ply=game.ply)


def game_hint(*, game_id: int, user: User, address: str = "") -> HintResult:
    """The engine's best turn for the caller, who becomes ``hinted`` for this game.

    The search runs outside the transaction, in the engine pool, and draws from the caller's
    engine budget and from their ``address``'s (``games.engine_budget``: refused before the
    search when spent; it waits its turn among the address's and the others' searches)."""
    caller = engine_budget.Caller(engine_budget.user_ident(user), address)
    engine_budget.BUDGET.check(caller)
    position, ply = _hint_position(game_id, user)
    best = engine_budget.search(caller, best_turn, position)
    with transaction.atomic():
        game, seats = _lock(game_id)
        late = _expire_turn(game, seats, _now())
        if not late:
            seat = _check_turn(game, seats, user)
            if game.ply != ply:  # the turn moved on during the search (a timeout, a resign)
                raise StalePly(_("The game has moved on: ask again."), ply=game.ply)
            changed = not (seat.hinted and seat.hint_pending)
            seat.hinted = True
            seat.hint_pending = True
            seat.save(update_fields=["hinted", "hint_pending"])
            if changed:
                _publish(game, seats)
    if late:
        raise TurnTimedOut(_("The time for this turn ran out."), ply=game.ply)
    return {"move": str(best.turn) if best.turn else None, "points": best.points}


def _put_out(game: Game, seats: list[Seat], seat: Seat, reason: str) -> None:
    """``seat`` is out: in two-player games (or when no person is left) the game ends; otherwise a
    bot plays the seat for the rest of the game and it ranks last."""
    seat.out_reason = reason
    seat.hint_pending = False
    seat.save(update_fields=["out_reason", "hint_pending"])
    _after_commit(_count_out, reason)
    in_play = [s for s in seats if not s.is_out]
    people_in_play = [s for s in in_play if not s.is_bot]
    if game.players == 2 or len(in_play) < 2 or not people_in_play:
        _finish(game, seats, reason)
        return
    if game.to_move == seat.seat:
        _set_clock(game, seats)
        _schedule_bot(game, seats)


def _count_out(reason: str) -> None:
    PLAYERS_OUT.labels(reason).inc()


def game_resign(*, game_id: int, user: User) -> Game:
    with transaction.atomic():
        game, seats = _lock(game_id)
        if game.status != Game.Status.ACTIVE:
            raise Conflict(_("Only a game in progress can be resigned."))
        seat = game.seat_of(user, seats)
        if seat is None:
            raise NotAllowed(_("You are not playing in this game."))
        if seat.is_out:
            raise Conflict(_("You are already out of this game."))
        _put_out(game, seats, seat, Seat.OutReason.RESIGNED)
        _publish(game, seats)
    return game


def _expire_turn(game: Game, seats: list[Seat], now: datetime) -> bool:
    """If the person to move let the deadline pass before ``now`` (``clock.turn_is_late``: never
    during a site outage or the grace after one), put them out (timeout, or forfeit on a first
    turn of a game with a grace period) and publish. Returns whether it did. A bot's seat has no
    clock; a stray deadline is cleared."""
    if not clock.turn_is_late(game, now):
        return False
    seat = game.seat_to_move(seats)
    if seat is None or seat.played_by_bot:
        game.deadline = None
        game.save(update_fields=["deadline"])
        return False
    # The one place a missed first turn becomes a forfeit rather than a timeout.
    reason = Seat.OutReason.FORFEIT if game.first_turn_forfeits else Seat.OutReason.TIMEOUT
    _put_out(game, seats, seat, reason)
    _publish(game, seats)
    return True


def game_turn_timeouts_expire(*, now: datetime | None = None) -> list[int]:
    """Put out every player whose turn time ran out (run by a periodic task). Returns game ids."""
    now = now or _now()
    expired: list[int] = []
    if clock.holds(now):  # an outage, or just after one: no turn is late
        return expired
    candidates = Game.objects.filter(status=Game.Status.ACTIVE, deadline__lt=now)
    for game_id in candidates.order_by().values_list("pk", flat=True)[:EXPIRE_BATCH]:
        with transaction.atomic():
            game, seats = _lock(game_id)
            if _expire_turn(game, seats, now):
                expired.append(game_id)
    return expired


EXPIRE_BATCH = 500
"""Turns a sweep expires at most (the next sweep takes the rest)."""

BOT_TURNS_BATCH = 500
"""Waiting bot turns a sweep lists at most."""


def bot_turns_waiting(*, older_than: timedelta) -> list[tuple[int, int]]:
    """(game id, ply) of active games where a bot has been to move for longer than given: found by
    their due time (``Game.bot_since``, indexed), never by reading every game."""
    cutoff = _now() - older_than
    waiting = Game.objects.filter(status=Game.Status.ACTIVE, bot_since__lt=cutoff)
    return list(waiting.order_by("bot_since").values_list("pk", "ply")[:BOT_TURNS_BATCH])


def site_heartbeat(*, now: datetime | None = None) -> list[int]:
    """The site's heartbeat (``games.clock``), run by each serving process every few seconds while
    the database and Redis answer. The first beat after an outage extends the running turns by it;
    their watchers are sent the new deadlines. Returns the ids of the games extended.

    The beat is the time the database answered: the clock is read once this thread holds a
    connection, since taking one from the pool may wait out the whole outage (a beat timed before
    that wait would end the outage early and leave the rest of it to the next beat)."""
    if now is None:
        connection.ensure_connection()
        now = _now()
    outage = clock.record_beat(now)
    if outage is None:
        return []
    logger.warning(
        "site outage of %.1f s (%s to %s): %s running turns extended",
        (outage.ended_at - outage.started_at).total_seconds(),
        outage.started_at.isoformat(),
        outage.ended_at.isoformat(),
        len(outage.game_ids),
    )
    for game_id in outage.game_ids:
        seats = rows.seats_of(game_id)
        if seats:
            _send_state(_state_of(seats[0].game, seats))
    return outage.game_ids


__all__ = [
    "BotSpec",
    "Conflict",
    "GameNotFound",
    "GameServiceError",
    "GameSettings",
    "InvalidInput",
    "InvalidMove",
    "LimitReached",
    "MoveResult",
    "NotAllowed",
    "NotFound",
    "StalePly",
    "TurnTimedOut",
    "bot_games_limit_check",
    "bot_turns_waiting",
    "game_bot_move_make",
    "game_cancel",
    "game_create",
    "game_create_seated",
    "game_hint",
    "game_join",
    "game_move_make",
    "game_open_expire",
    "game_resign",
    "game_settings_check",
    "game_turn_preview",
    "game_turn_timeouts_expire",
    "site_heartbeat",
]

"""Every write to tournaments goes through here.

Each service is one transaction that locks the tournament row, changes the rows, bumps
``version`` and, on commit, pushes the new state to the tournament's watchers. The periodic sweep
takes rows with ``skip_locked`` (two beats or workers never work on the same tournament at once);
a round is created once per (tournament, number) and a player paired once per round, unique
constraints standing behind the locks.

Tournaments learn that a game ended from the ``game_ended`` task, enqueued when the transaction
that finished the game commits (``tournaments.receivers``): pairing the next round never runs
while the finished game's row is locked.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import check_password, make_password
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core.errors import Conflict, InvalidInput, NotAllowed, NotFound
from games import services as games
from games.game_settings import TEAM_PLAYERS, GameSettings, least_players, turn_time_message
from games.models import Game
from games.selectors import outcome_of
from ratings.models import Rating
from tournaments import realtime
from tournaments.arena import DEFAULT_RATING, Waiting, arena_tables
from tournaments.models import (
    Format,
    Pairing,
    Recurrence,
    Round,
    Schedule,
    Tournament,
    TournamentPlayer,
    Visibility,
)
from tournaments.pairing import (
    PairingPlayer,
    RoundPairing,
    balance_seats,
    round_robin_rounds,
    swiss_round,
    swiss_round_exact,
)
from tournaments.selectors import (
    LEFT,
    MISSED_GAMES,
    creation_refusal,
    missed_games_in_a_row,
    rejoin_refusal,
    tournament_get,
    tournament_standings,
    tournament_state,
)
from tournaments.signals import player_withdrawn, round_started

logger = logging.getLogger(__name__)

CANCEL_TOO_FEW = "too_few_players"
CANCEL_CALLED_OFF = "cancelled"
"""Called off by its creator or by staff."""
SCHEDULE_AHEAD = {
    Recurrence.HOURLY: timedelta(hours=1),
    Recurrence.DAILY: timedelta(days=1),
    Recurrence.WEEKLY: timedelta(days=1),
}
"""The sweep creates a schedule's tournaments this long before they start: an hourly one is
always within the next hour."""
PLAYER_STARTS_WITHIN = timedelta(days=30)
"""How far ahead a player may schedule a tournament."""
SETTING_NAMES = (
    "format",
    "table_size",
    "mode",
    "variant",
    "rounds",
    "turn_seconds",
    "max_players",
    "min_players",
    "duration_minutes",
)


def _now() -> datetime:
    return timezone.now()


def _publish(tournament: Tournament) -> None:
    """Bump the version, save, and push the new state to watchers once the transaction commits."""
    tournament.version += 1
    tournament.save()
    state = tournament_state(tournament_get(tournament.pk))
    transaction.on_commit(partial(realtime.broadcast_tournament_state, tournament.pk, state))


def _lock(tournament_id: int, *, skip_locked: bool = False) -> Tournament | None:
    """The tournament row, locked; None when another transaction holds it (``skip_locked``)."""
    rows = Tournament.objects.select_for_update(skip_locked=skip_locked).filter(pk=tournament_id)
    tournament = rows.first()
    if tournament is None and not skip_locked:
        raise NotFound(_("There is no tournament %(id)s.") % {"id": tournament_id})
    return tournament


# -- creating ------------------------------------------------------------------------------------


def tournament_settings_check(
    *,
    format: str,
    table_size: int,
    mode: str,
    variant: str,
    rounds: int | None,
    turn_seconds: int,
    max_players: int,
    min_players: int,
    duration_minutes: int | None = None,
) -> int | None:
    """Refuse combinations a tournament cannot be played with; the rounds to store."""
    _arena_settings_check(format, rounds, duration_minutes)
    if format not in Format.values:
        raise InvalidInput(_("Unknown format %(format)s.") % {"format": format})
    table = GameSettings(table_size, mode, variant, turn_seconds)  # the games' rules, as tables
    if not table.mode_known:
        raise InvalidInput(_("Unknown mode %(mode)s.") % {"mode": mode})
    if not table.variant_known:
        raise InvalidInput(_("Unknown variant %(variant)s.") % {"variant": variant})
    if not table.players_allowed:
        raise InvalidInput(_("Tables have 2, 3 or 4 seats."))
    if format == Format.ROUND_ROBIN and table_size != 2:
        raise InvalidInput(_("A round robin is played at tables of 2."))
    if not table.teams_seated:
        raise InvalidInput(_("Team tournaments are played at tables of 4."))
    if format == Format.SWISS and (rounds is None or not 1 <= rounds <= Tournament.MAX_ROUNDS):
        raise InvalidInput(_("A Swiss tournament needs between 1 and 30 rounds."))
    if format == Format.ROUND_ROBIN and rounds is not None:
        raise InvalidInput(_("A round robin plays every pair once: leave the rounds out."))
    if not table.turn_time_allowed:
        raise InvalidInput(turn_time_message())
    least = least_players(mode)
    if not least <= min_players <= max_players <= Tournament.MAX_PLAYERS:
        raise InvalidInput(
            _("The players must satisfy %(least)s ≤ fewest ≤ most ≤ 256.") % {"least": least}
        )
    return rounds


def _arena_settings_check(format: str, rounds: int | None, duration_minutes: int | None) -> None:
    """An arena has a duration and no rounds; the other formats no duration."""
    if format != Format.ARENA:
        if duration_minutes is not None:
            raise InvalidInput(_("Only an arena has a duration: leave it out."))
        return
    low, high = Tournament.MIN_ARENA_MINUTES, Tournament.MAX_ARENA_MINUTES
    if duration_minutes is None or not low <= duration_minutes <= high:
        raise InvalidInput(
            _("An arena lasts between %(low)s and %(high)s minutes.") % {"low": low, "high": high}
        )
    if rounds is not None:
        raise InvalidInput(_("An arena has a duration instead of rounds: leave the rounds out."))


def tournament_create(
    *,
    user: User | None,
    name: str,
    format: str,
    table_size: int,
    mode: str,
    variant: str,
    rounds: int | None,
    starts_at: datetime,
    turn_seconds: int,
    max_players: int,
    min_players: int = 2,
    schedule: Schedule | None = None,
    visibility: str = Visibility.PUBLIC,
    password: str | None = None,
    name_key: str = "",
    duration_minutes: int | None = None,
) -> Tournament:
    """Announce a tournament; people join until it starts. Staff (and the schedules, without a
    user) create any; a player needs a few finished games, one upcoming or running tournament
    of their own at a time, and a start within ``PLAYER_STARTS_WITHIN``."""
    name = _checked_name(name)
    rounds = tournament_settings_check(
        format=format,
        table_size=table_size,
        mode=mode,
        variant=variant,
        rounds=rounds,
        turn_seconds=turn_seconds,
        max_players=max_players,
        min_players=min_players,
        duration_minutes=duration_minutes,
    )
    _check_access_settings(visibility, password)
    player = user if user is not None and user.is_authenticated and not user.is_staff else None
    if player is not None:
        _check_player_start(starts_at)
    with transaction.atomic():
        if player is not None:
            # One creation of this user at a time, so that two at once cannot both pass.
            get_user_model().objects.select_for_update().filter(pk=player.pk).first()
            refusal = creation_refusal(player)
            if refusal is not None:
                kind = Conflict if refusal.code == "one_at_a_time" else NotAllowed
                raise kind(refusal.message)
        tournament = Tournament.objects.create(
            visibility=visibility,
            password=make_password(password) if password else "",
            invite_token=secrets.token_urlsafe(24) if visibility == Visibility.INVITE else "",
            name_key=name_key,
            name=name,
            format=format,
            table_size=table_size,
            mode=mode,
            variant=variant,
            rounds=rounds,
            starts_at=starts_at,
            turn_seconds=turn_seconds,
            max_players=max_players,
            min_players=min_players,
            duration_minutes=duration_minutes,
            schedule=schedule,
            created_by_id=user.pk if user is not None and user.is_authenticated else None,
        )
        _publish(tournament)
    return tournament


def _checked_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > 100:
        raise InvalidInput(_("A tournament needs a name of at most 100 characters."))
    return name


def _check_access_settings(visibility: str, password: str | None) -> None:
    if visibility not in Visibility.values:
        raise InvalidInput(_("Unknown visibility %(visibility)s.") % {"visibility": visibility})
    if password and visibility != Visibility.INVITE:
        raise InvalidInput(_("Only a tournament by invitation can have a password."))
    if password and len(password) > 128:
        raise InvalidInput(_("The password is too long (at most 128 characters)."))


def _check_player_start(starts_at: datetime) -> None:
    now = _now()
    if not now < starts_at <= now + PLAYER_STARTS_WITHIN:
        raise InvalidInput(_("The start must be in the future and within 30 days."))


def _lock_editable(tournament_id: int, user: User) -> Tournament:
    """The tournament, locked, if ``user`` may change it: staff at any time, its creator while
    it is scheduled."""
    tournament = _lock(tournament_id)
    assert tournament is not None
    if user.is_staff:
        return tournament
    if tournament.created_by_id != user.pk:
        raise NotAllowed(_("Only its creator or staff can change this tournament."))
    if tournament.status != Tournament.Status.SCHEDULED:
        raise Conflict(_("This tournament has already started."))
    return tournament


def tournament_update(*, tournament_id: int, user: User, **changes: Any) -> Tournament:
    """Change a tournament (``changes``: the creation fields, and ``featured`` for staff). The
    game settings and the start change only while it is scheduled, and pass the same checks
    as a creation; ``password`` None or empty removes it."""
    with transaction.atomic():
        tournament = _lock_editable(tournament_id, user)
        if "featured" in changes and not user.is_staff:
            raise NotAllowed(_("Only staff members feature tournaments."))
        if "name_key" in changes and not user.is_staff:
            raise NotAllowed(_("Only staff members give tournaments a translated name."))
        if tournament.status != Tournament.Status.SCHEDULED:
            # Started: the settings stay (a running round robin's rounds are its count).
            timing = {"starts_at", *SETTING_NAMES} & set(changes)
            if tournament.format == Format.ROUND_ROBIN:
                timing.discard("rounds")
            if any(changes[key] != getattr(tournament, key) for key in timing):
                raise Conflict(_("This tournament has already started."))
            changes = {k: v for k, v in changes.items() if k not in SETTING_NAMES}
        else:
            merged = {key: changes.get(key, getattr(tournament, key)) for key in SETTING_NAMES}
            if merged["format"] == Format.ROUND_ROBIN and "format" in changes:
                merged["rounds"] = changes.get("rounds")
            changes["rounds"] = tournament_settings_check(**merged)
            if merged["max_players"] < tournament.players.count():
                raise InvalidInput(_("More players have joined than that."))
        if "name" in changes:
            changes["name"] = _checked_name(changes["name"])
        visibility = changes.get("visibility", tournament.visibility)
        password = changes.pop("password", ...)
        if password is ... and visibility == Visibility.PUBLIC:
            password = None
        if password is not ...:
            _check_access_settings(visibility, password)
            tournament.password = make_password(password) if password else ""
        else:
            _check_access_settings(visibility, None)
        if "starts_at" in changes and not user.is_staff:
            _check_player_start(changes["starts_at"])
        for key, value in changes.items():
            setattr(tournament, key, value)
        if tournament.visibility == Visibility.INVITE and not tournament.invite_token:
            tournament.invite_token = secrets.token_urlsafe(24)
        # Its games are as private as it is (``Game.private``), those played already too.
        Game.objects.filter(tournament_pairings__tournament=tournament).update(
            private=tournament.visibility == Visibility.INVITE
        )
        _publish(tournament)
    return tournament


def tournament_cancel(*, tournament_id: int, user: User) -> Tournament:
    """Call a tournament off: its creator while it is scheduled, staff at any time. Games
    already under way are played out as ordinary rated games."""
    with transaction.atomic():
        tournament = _lock_editable(tournament_id, user)
        if tournament.status not in (Tournament.Status.SCHEDULED, Tournament.Status.RUNNING):
            raise Conflict(_("This tournament is over."))
        tournament.status = Tournament.Status.CANCELLED
        tournament.cancel_reason = CANCEL_CALLED_OFF
        tournament.finished_at = _now()
        _publish(tournament)
    return tournament


class WrongPassword(NotAllowed):
    """An invitation's password that is not its password (403, as any refusal not allowed)."""


def check_entry(
    tournament: Tournament, user: User, *, invite: str | None = None, password: str | None = None
) -> None:
    """May ``user`` enter ``tournament``: an invitation needs its link's token (its creator and
    staff need none) and, with a password, the password."""
    if tournament.visibility != Visibility.INVITE or user.is_staff:
        return
    if tournament.created_by_id == user.pk:
        return
    if not secrets.compare_digest((invite or "").encode(), tournament.invite_token.encode()):
        raise NotFound(_("There is no tournament %(id)s.") % {"id": tournament.pk})
    if tournament.password and not check_password(password or "", tournament.password):
        raise WrongPassword(_("Wrong tournament password."))


# -- joining and leaving ---------------------------------------------------------------------------


def tournament_join(
    *, tournament_id: int, user: User, invite: str | None = None, password: str | None = None
) -> Tournament:
    """Join a scheduled tournament (joining twice changes nothing); 409 once started or full.
    An invitation needs its token and password (``check_entry``)."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        assert tournament is not None
        if tournament.status != Tournament.Status.SCHEDULED:
            entry = tournament.players.filter(user_id=user.pk, withdrawn=True).first()
            if entry is not None:
                return _rejoin(tournament, entry)
        if tournament.format == Format.ARENA and tournament.status == Tournament.Status.RUNNING:
            return _arena_join(tournament, user, invite=invite, password=password)
        if tournament.status != Tournament.Status.SCHEDULED:
            raise Conflict(_("This tournament has already started."))
        if tournament.players.filter(user_id=user.pk).exists():
            return tournament
        check_entry(tournament, user, invite=invite, password=password)
        if tournament.players.count() >= tournament.max_players:
            raise Conflict(_("This tournament is full."))
        TournamentPlayer.objects.create(tournament=tournament, user_id=user.pk)
        _publish(tournament)
    return tournament


def tournament_leave(*, tournament_id: int, user: User) -> Tournament:
    """Before the start, leave; after it, withdraw: the running game is resigned for the player
    and they are not paired again."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        assert tournament is not None
        entry = tournament.players.filter(user_id=user.pk).first()
        if tournament.status == Tournament.Status.SCHEDULED:
            if entry is not None:
                entry.delete()
                _publish(tournament)
            return tournament
        if tournament.status != Tournament.Status.RUNNING:
            raise Conflict(_("This tournament is over."))
        if entry is None or entry.withdrawn:
            return tournament
        entry.withdrawn = True
        entry.save(update_fields=["withdrawn"])
        running = Pairing.objects.filter(player=entry, game__status=Game.Status.ACTIVE)
        for game_id in running.values_list("game_id", flat=True):
            with contextlib.suppress(Conflict):  # already out of that game
                games.game_resign(game_id=game_id, user=user)
        _publish(tournament)
    return tournament


# -- running -------------------------------------------------------------------------------------


def tournament_start(*, tournament_id: int, now: datetime | None = None) -> bool:
    """Start a due tournament: cancelled when too few joined, else round 1 is paired. Returns
    whether this call changed it (False when not due, already started, or locked elsewhere)."""
    now = now or _now()
    with transaction.atomic():
        tournament = _lock(tournament_id, skip_locked=True)
        if (
            tournament is None
            or tournament.status != Tournament.Status.SCHEDULED
            or tournament.starts_at > now
        ):
            return False
        entries = list(tournament.players.order_by("id"))
        if len(entries) < tournament.min_players:
            tournament.status = Tournament.Status.CANCELLED
            tournament.cancel_reason = CANCEL_TOO_FEW
            tournament.finished_at = now
            _publish(tournament)
            return True
        tournament.status = Tournament.Status.RUNNING
        tournament.started_at = now
        if tournament.format == Format.ROUND_ROBIN:
            tournament.rounds = len(round_robin_rounds([e.pk for e in entries]))
        tournament.save()
        _advance(tournament)
        _publish(tournament)
    return True


def tournament_game_ended(*, game_id: int) -> bool:
    """A game of a tournament ended: record its points; when it was the last game of the round,
    pair the next round (or finish). Idempotent: a repeat finds the points recorded."""
    tournament_id = (
        Pairing.objects.filter(game_id=game_id).values_list("tournament_id", flat=True).first()
    )
    if tournament_id is None:
        return False
    return _catch_up(tournament_id, skip_locked=False)


def tournament_advance(*, tournament_id: int) -> bool:
    """The sweep's safety net: catch up a running tournament whose round has ended (a lost
    ``game_ended`` task). Skips a tournament another transaction holds."""
    return _catch_up(tournament_id, skip_locked=True)


def _catch_up(tournament_id: int, *, skip_locked: bool) -> bool:
    """Record finished games and move a running tournament on; whether anything changed. The
    task waits for the lock (its game's result must not be lost); the sweep skips."""
    with transaction.atomic():
        tournament = _lock(tournament_id, skip_locked=skip_locked)
        if tournament is None or tournament.status != Tournament.Status.RUNNING:
            return False
        changed = _record_results(tournament)
        changed = _advance(tournament) or changed
        if changed:
            _publish(tournament)
    return changed


def _record_results(tournament: Tournament) -> bool:
    """Fill in the points and scores of finished games not yet recorded."""
    pending = list(
        Pairing.objects.filter(
            tournament=tournament, points__isnull=True, game__status=Game.Status.FINISHED
        ).select_related("game")
    )
    outcomes: dict[int, Any] = {}
    for pairing in pending:
        assert pairing.game is not None
        assert pairing.seat is not None
        if pairing.game_id not in outcomes:
            outcomes[pairing.game.pk] = outcome_of(pairing.game)
        outcome = outcomes[pairing.game.pk]
        pairing.points = outcome.points(pairing.seat)
        pairing.score = outcome.seat(pairing.seat).score
        pairing.forfeit = outcome.seat(pairing.seat).forfeit
        pairing.save(update_fields=["points", "score", "forfeit"])
    _withdraw_no_shows(tournament, {p.player_id for p in pending if p.forfeit})
    return bool(pending)


def _withdraw_no_shows(tournament: Tournament, forfeited: set[int]) -> None:
    """Withdraw each player of ``forfeited`` whose last ``FORFEITS_TO_WITHDRAW`` games were all
    forfeits: they are not paired again, and are told why (``player_withdrawn``)."""
    for entry in tournament.players.filter(pk__in=forfeited, withdrawn=False):
        if missed_games_in_a_row(entry):
            entry.withdrawn = True
            entry.save(update_fields=["withdrawn"])
            transaction.on_commit(
                partial(
                    _announce_withdrawal,
                    tournament.pk,
                    tournament.name,
                    entry.user_id,
                    tournament.current_round or 0,
                )
            )


def _announce_withdrawal(tournament_id: int, name: str, user_id: int, round_number: int) -> None:
    """``player_withdrawn`` after the commit: a failing receiver is logged, never raised."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        return
    refusal = rejoin_refusal(tournament, MISSED_GAMES)
    for receiver, result in player_withdrawn.send_robust(
        sender=Tournament,
        tournament_id=tournament_id,
        name=name,
        user_id=user_id,
        round=round_number,
        can_rejoin=refusal is None,
    ):
        if isinstance(result, Exception):
            logger.error("player_withdrawn receiver %r failed: %r", receiver, result)


def _rejoin(tournament: Tournament, entry: TournamentPlayer) -> Tournament:
    """A player withdrawn for missed games comes back: paired again from the next round (an
    arena: at once). A withdrawal of one's own is final; so is a tournament with nothing left."""
    reason = MISSED_GAMES if missed_games_in_a_row(entry) else LEFT
    refusal = rejoin_refusal(tournament, reason)
    if refusal is not None:
        raise Conflict(refusal)
    entry.withdrawn = False
    entry.paused = False
    entry.save(update_fields=["withdrawn", "paused"])
    if tournament.format == Format.ARENA:
        _arena_advance(tournament)
    _publish(tournament)
    return tournament


def _advance(tournament: Tournament) -> bool:
    """While the current round is over, pair the next one, or finish after the last. A round
    where nobody plays (only byes) is over at once. Returns whether anything changed."""
    if tournament.format == Format.ARENA:
        return _arena_advance(tournament)
    changed = False
    while True:
        if tournament.current_round is not None:
            unfinished = Pairing.objects.filter(
                tournament=tournament, round__number=tournament.current_round
            ).exclude(game=None)
            if unfinished.exclude(game__status=Game.Status.FINISHED).exists():
                return changed
        number = (tournament.current_round or 0) + 1
        active = list(tournament.players.filter(withdrawn=False).order_by("id"))
        least = least_players(tournament.mode)
        if number > (tournament.rounds or 0) or len(active) < least:
            _finish(tournament)
            return True
        try:
            with transaction.atomic():
                rnd = Round.objects.create(tournament=tournament, number=number)
        except IntegrityError:
            return changed  # paired already (the lock makes this a last line of defence)
        _pair(tournament, rnd, active)
        tournament.current_round = number
        tournament.save(update_fields=["current_round"])
        transaction.on_commit(
            partial(_announce_round, tournament.pk, tournament.name, rnd.pk, tournament.name_key)
        )
        changed = True


def _announce_round(tournament_id: int, name: str, round_id: int, name_key: str = "") -> None:
    """``round_started`` after the commit: a failing receiver is logged, never raised."""
    seats = list(
        Pairing.objects.filter(round_id=round_id).values_list("player__user_id", "game_id")
    )
    number = Round.objects.filter(pk=round_id).values_list("number", flat=True).first()
    for receiver, result in round_started.send_robust(
        sender=Tournament,
        tournament_id=tournament_id,
        name=name,
        name_key=name_key,
        round=number,
        seats=seats,
        arena=Tournament.objects.filter(pk=tournament_id, format=Format.ARENA).exists(),
    ):
        if isinstance(result, Exception):
            logger.error("round_started receiver %r failed: %r", receiver, result)


def _finish(tournament: Tournament) -> None:
    ranks = {s.player: s.rank for s in tournament_standings(tournament_get(tournament.pk))}
    for entry in tournament.players.all():
        entry.rank = ranks.get(entry.pk)
        entry.save(update_fields=["rank"])
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = _now()
    tournament.save()


def _pair(tournament: Tournament, rnd: Round, active: Sequence[TournamentPlayer]) -> None:
    """Seat the round's tables (a game each, started at once) and give its byes."""
    by_id = {e.pk: e for e in active}
    if tournament.format == Format.ROUND_ROBIN:
        pairing = _round_robin_pairing(tournament, rnd.number, set(by_id))
    elif tournament.mode == Game.Mode.TEAMS:
        pairing = swiss_round_exact(_swiss_field(tournament, active), TEAM_PLAYERS)
    else:
        pairing = swiss_round(_swiss_field(tournament, active), tournament.table_size)
    if tournament.format != Format.ROUND_ROBIN:  # the circle balances its seats itself
        pairing = balance_seats(pairing, _seat_history(tournament))
    for table in pairing.tables:
        _table_game(tournament, rnd, [by_id[pid] for pid in table])
    for pid in pairing.byes:
        Pairing.objects.create(tournament=tournament, round=rnd, player=by_id[pid], points=1.0)


def _table_game(tournament: Tournament, rnd: Round, seated: Sequence[TournamentPlayer]) -> Game:
    """The one way a tournament seats a table (every format): a rated game started at once, in
    seat order, with the tournament grace (``SIESTA_TOURNAMENT_GRACE_SECONDS``, passed as the
    game's ``grace_seconds``: the first turn's clock starts that long after the pairing), and
    its pairings."""
    game = games.game_create_seated(
        users=[e.user for e in seated],
        mode=tournament.mode,
        variant=tournament.variant,
        rated=True,
        turn_seconds=tournament.turn_seconds,
        grace_seconds=settings.SIESTA_TOURNAMENT_GRACE_SECONDS,
        private=tournament.visibility == Visibility.INVITE,
    )
    Pairing.objects.bulk_create(
        Pairing(tournament=tournament, round=rnd, player=entry, game=game, seat=seat)
        for seat, entry in enumerate(seated, start=1)
    )
    return game


def _seat_history(tournament: Tournament) -> dict[int, tuple[int, ...]]:
    """Each player's seats so far, in round order (byes have none)."""
    history: dict[int, list[int]] = {}
    rows = Pairing.objects.filter(tournament=tournament, seat__isnull=False).order_by(
        "round__number"
    )
    for player_id, seat in rows.values_list("player_id", "seat"):
        if seat is not None:
            history.setdefault(player_id, []).append(seat)
    return {pid: tuple(seats) for pid, seats in history.items()}


def _round_robin_pairing(tournament: Tournament, number: int, active: set[int]) -> RoundPairing:
    """Round ``number`` of the circle over everyone who started; a player whose opponent has
    withdrawn gets a bye instead."""
    everyone = list(tournament.players.order_by("id").values_list("pk", flat=True))
    planned = round_robin_rounds(everyone)[number - 1]
    tables = []
    byes = [pid for pid in planned.byes if pid in active]
    for table in planned.tables:
        present = [pid for pid in table if pid in active]
        if len(present) == len(table):
            tables.append(tuple(table))
        else:
            byes.extend(present)
    return RoundPairing(tables=tuple(tables), byes=tuple(byes))


def _swiss_field(tournament: Tournament, active: Sequence[TournamentPlayer]) -> list[PairingPlayer]:
    """The active players as the pairing sees them, best first: by standings after round 1, by
    the rating of the tournament's pool before."""
    ratings = dict(
        Rating.objects.filter(
            user_id__in=[e.user_id for e in active], pool=tournament.mode
        ).values_list("user_id", "rating")
    )
    rating_of = {e.pk: ratings.get(e.user_id, DEFAULT_RATING) for e in active}
    met: dict[int, set[int]] = {e.pk: set() for e in active}
    byes: dict[int, int] = dict.fromkeys(rating_of, 0)
    tables: dict[int, list[int]] = {}
    for game_id, player_id in Pairing.objects.filter(tournament=tournament).values_list(
        "game_id", "player_id"
    ):
        if game_id is None:
            if player_id in byes:
                byes[player_id] += 1
        else:
            tables.setdefault(game_id, []).append(player_id)
    for seated in tables.values():
        for pid in seated:
            if pid in met:
                met[pid].update(other for other in seated if other != pid)
    standing = tournament_standings(tournament_get(tournament.pk))
    points = {s.player: s.points for s in standing}
    order = [s.player for s in standing if s.player in rating_of]
    if tournament.current_round is None:
        order = sorted(rating_of, key=lambda pid: (-rating_of[pid], pid))
    seats = _seat_history(tournament)
    return [
        PairingPlayer(
            id=pid,
            points=points.get(pid, 0.0),
            rating=rating_of[pid],
            byes=byes[pid],
            met=frozenset(met[pid]),
            seats=seats.get(pid, ()),
        )
        for pid in order
    ]


# -- the arena -----------------------------------------------------------------------------------


def arena_ends_at(tournament: Tournament) -> datetime:
    """No new arena game starts from then on; games under way finish and count."""
    return tournament.starts_at + timedelta(minutes=tournament.duration_minutes or 0)


def _arena_join(
    tournament: Tournament, user: User, *, invite: str | None, password: str | None
) -> Tournament:
    """Join a running arena (a late joiner is paired at once) or, paused, resume."""
    if _now() >= arena_ends_at(tournament):
        raise Conflict(_("This arena is over: no new games start."))
    entry = tournament.players.filter(user_id=user.pk).first()
    if entry is not None:
        if entry.withdrawn:
            raise Conflict(_("You have withdrawn from this tournament."))
        if not entry.paused:
            return tournament
        entry.paused = False
        entry.save(update_fields=["paused"])
    else:
        check_entry(tournament, user, invite=invite, password=password)
        if tournament.players.count() >= tournament.max_players:
            raise Conflict(_("This tournament is full."))
        TournamentPlayer.objects.create(tournament=tournament, user_id=user.pk)
    _arena_advance(tournament)
    _publish(tournament)
    return tournament


def tournament_pause(*, tournament_id: int, user: User) -> Tournament:
    """Pause in a running arena: the game under way is played out, and no new one is paired
    until the player joins again."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        assert tournament is not None
        if tournament.format != Format.ARENA:
            raise Conflict(_("Only an arena can be paused."))
        if tournament.status != Tournament.Status.RUNNING:
            raise Conflict(_("This arena is not running."))
        entry = tournament.players.filter(user_id=user.pk, withdrawn=False).first()
        if entry is None:
            raise Conflict(_("You are not playing in this arena."))
        if not entry.paused:
            entry.paused = True
            entry.save(update_fields=["paused"])
            _publish(tournament)
    return tournament


def _arena_advance(tournament: Tournament) -> bool:
    """Pair the arena's waiting players (a pairing wave, one round); after its end, finish once
    no game is under way. Returns whether anything changed."""
    pairings = Pairing.objects.filter(tournament=tournament).exclude(game=None)
    busy = set(pairings.filter(game__status=Game.Status.ACTIVE).values_list("player_id", flat=True))
    if _now() >= arena_ends_at(tournament):
        if busy:
            return False
        _finish(tournament)
        return True
    active = list(tournament.players.filter(withdrawn=False, paused=False).order_by("id"))
    waiting = [e for e in active if e.pk not in busy]
    if len(waiting) < 2:
        return False
    field = _arena_field(tournament, waiting)
    tables = arena_tables(
        field,
        tournament.table_size,
        exact=tournament.mode == Game.Mode.TEAMS,
        allow_rematch=len(waiting) == len(active),  # nobody else could come
    )
    if not tables:
        return False
    number = (tournament.current_round or 0) + 1
    try:
        with transaction.atomic():
            rnd = Round.objects.create(tournament=tournament, number=number)
    except IntegrityError:
        return False  # paired already (the lock makes this a last line of defence)
    by_id = {e.pk: e for e in waiting}
    seated = balance_seats(RoundPairing(tables=tuple(tables), byes=()), _seat_history(tournament))
    for table in seated.tables:
        _table_game(tournament, rnd, [by_id[pid] for pid in table])
    tournament.current_round = number
    tournament.save(update_fields=["current_round"])
    transaction.on_commit(
        partial(_announce_round, tournament.pk, tournament.name, rnd.pk, tournament.name_key)
    )
    return True


def _arena_field(tournament: Tournament, waiting: Sequence[TournamentPlayer]) -> list[Waiting]:
    """The waiting players as the arena pairing sees them: arena points, rating, and the
    opponents of each one's previous game."""
    ratings = dict(
        Rating.objects.filter(
            user_id__in=[e.user_id for e in waiting], pool=tournament.mode
        ).values_list("user_id", "rating")
    )
    points = {s.player: s.points for s in tournament_standings(tournament_get(tournament.pk))}
    seated: dict[int, list[int]] = {}
    last_game: dict[int, int] = {}
    free_since = {e.pk: e.joined_at for e in waiting}
    for game_id, player_id, finished_at in (
        Pairing.objects.filter(tournament=tournament)
        .exclude(game=None)
        .values_list("game_id", "player_id", "game__finished_at")
    ):
        seated.setdefault(game_id, []).append(player_id)
        last_game[player_id] = max(game_id, last_game.get(player_id, 0))
        if player_id in free_since and finished_at is not None:
            free_since[player_id] = max(free_since[player_id], finished_at)
    waves = list(Round.objects.filter(tournament=tournament).values_list("created_at", flat=True))
    return [
        Waiting(
            id=e.pk,
            points=points.get(e.pk, 0.0),
            rating=ratings.get(e.user_id, DEFAULT_RATING),
            last_opponents=frozenset(
                q for q in seated.get(last_game.get(e.pk, 0), []) if q != e.pk
            ),
            skipped=sum(1 for at in waves if at > free_since[e.pk]),
        )
        for e in waiting
    ]


# -- the sweep -----------------------------------------------------------------------------------


def schedule_starts(schedule: Schedule, now: datetime) -> list[datetime]:
    """The starts of ``schedule`` after ``now`` and within its ``SCHEDULE_AHEAD``."""
    ahead = SCHEDULE_AHEAD[Recurrence(schedule.every)]
    if schedule.every == Recurrence.HOURLY:
        base = now.astimezone(UTC).replace(minute=schedule.time.minute, second=0, microsecond=0)
        candidates = [base + timedelta(hours=n) for n in range(3)]
    else:
        today = now.astimezone(UTC).date()
        days = [today + timedelta(days=n) for n in range(9)]
        if schedule.every == Recurrence.WEEKLY:
            days = [day for day in days if day.weekday() == (schedule.weekday or 0)]
        candidates = [datetime.combine(day, schedule.time, tzinfo=UTC) for day in days]
    return [start for start in candidates if now < start <= now + ahead]


def schedules_extend(*, now: datetime | None = None) -> list[int]:
    """Create each active schedule's tournaments starting within its ``SCHEDULE_AHEAD``.
    Returns the ids of the tournaments created."""
    now = now or _now()
    created = []
    for schedule in Schedule.objects.filter(active=True):
        for starts_at in schedule_starts(schedule, now):
            if Tournament.objects.filter(schedule=schedule, starts_at=starts_at).exists():
                continue
            try:
                with transaction.atomic():
                    tournament = tournament_create(
                        user=None,
                        name=schedule.name,
                        name_key=schedule.name_key,
                        format=schedule.format,
                        table_size=schedule.table_size,
                        mode=schedule.mode,
                        variant=schedule.variant,
                        rounds=schedule.rounds if schedule.format == Format.SWISS else None,
                        starts_at=starts_at,
                        turn_seconds=schedule.turn_seconds,
                        max_players=schedule.max_players,
                        min_players=schedule.min_players,
                        duration_minutes=schedule.duration_minutes,
                        schedule=schedule,
                    )
            except IntegrityError:
                continue  # another sweep created it
            except InvalidInput as exc:  # a schedule saved with settings no tournament can have
                logger.error("schedule %s creates no tournament: %s", schedule.pk, exc.message)
                break
            created.append(tournament.pk)
    return created


def tournaments_sweep(*, now: datetime | None = None) -> dict[str, list[int]]:
    """The periodic work: create scheduled tournaments, start due ones, catch up running ones."""
    now = now or _now()
    report: dict[str, list[int]] = {"created": schedules_extend(now=now), "started": []}
    due = Tournament.objects.filter(status=Tournament.Status.SCHEDULED, starts_at__lte=now)
    for tournament_id in due.values_list("pk", flat=True):
        if tournament_start(tournament_id=tournament_id, now=now):
            report["started"].append(tournament_id)
    running = Tournament.objects.filter(status=Tournament.Status.RUNNING)
    report["advanced"] = [
        tournament_id
        for tournament_id in running.values_list("pk", flat=True)
        if tournament_advance(tournament_id=tournament_id)
    ]
    return report

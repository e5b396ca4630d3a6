"""Reads of games: the public game shape (API.md), the engine position, the record, the outcome."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from typing import Any, Protocol, cast, overload

from django.contrib.auth.models import User
from django.db.models import F, Prefetch, Q, QuerySet
from django.utils.translation import gettext as _

from games import rows
from games.engine import GameOutcome, Position, SeatResult
from games.engine.record import GameRecord
from games.engine.study import siesta_counts
from games.errors import GameNotFound, NotFound
from games.models import Game, Seat, Turn, turn_time_label
from games.state import (
    BotLevel,
    EndReason,
    GameMode,
    GameState,
    GameStatus,
    GameVariant,
    OutReason,
    ResultState,
    SeatRating,
)

SeatRatings = Callable[[Game, Sequence[Seat]], Mapping[int, SeatRating]]
_seat_ratings: list[SeatRatings] = []


def seat_ratings_provide(provider: SeatRatings) -> None:
    """The ratings app hands in how to read each seat's rating (games cannot import ratings:
    the layers contract), from its ``AppConfig.ready``."""
    if provider not in _seat_ratings:
        _seat_ratings.append(provider)


class UserRatings(Protocol):
    """Each user's current rating in a pool, rounded, 1500 when not yet earned (one query)."""

    def __call__(self, *, user_ids: Iterable[int], pool: str) -> Mapping[int, int]: ...


_user_ratings: list[UserRatings] = []


def user_ratings_provide(provider: UserRatings) -> None:
    """The ratings app hands in how to read the ratings of many users at once, for the lists of
    games (as ``seat_ratings_provide`` for one game)."""
    if provider not in _user_ratings:
        _user_ratings.append(provider)


def seat_ratings(game: Game, seats: Sequence[Seat]) -> dict[int, SeatRating]:
    """Seat → rating, rating change and reason, from the registered providers (none: empty)."""
    found: dict[int, SeatRating] = {}
    for provider in _seat_ratings:
        found.update(provider(game, seats))
    return found


@overload
def api_datetime(moment: datetime) -> str: ...
@overload
def api_datetime(moment: None) -> None: ...
def api_datetime(moment: datetime | None) -> str | None:
    """A moment as the API and the broadcasts write it: ISO 8601 in UTC with ``Z`` (as DRF does),
    or None."""
    return moment.isoformat().replace("+00:00", "Z") if moment else None


class TurnFields(Protocol):
    """What the state shows of a turn: a ``Turn`` or a ``games.rows.TurnRow``."""

    @property
    def ply(self) -> int: ...
    @property
    def seat(self) -> int: ...
    @property
    def move(self) -> str: ...
    @property
    def points(self) -> list[int]: ...
    @property
    def hint(self) -> bool: ...
    @property
    def played_at(self) -> datetime: ...


def game_seats(game: Game) -> list[Seat]:
    """Seats in order, using a prefetch when there is one."""
    return sorted(game.seats.all(), key=lambda s: s.seat)


def position_of(game: Game, seats: Sequence[Seat] | None = None) -> Position:
    """The engine position of a started game, rebuilt from the stored state."""
    seats = list(seats) if seats is not None else game_seats(game)
    return Position(
        game.players,
        game.variant,
        game.board,
        to_move=game.to_move or 1,
        suns=game.suns,
        shadows=game.shadows,
        roofs=[s.roofs_left for s in seats],
        scores=[s.score for s in seats],
        check_start=False,
    )


def seats_moved(game: Game) -> set[int]:
    """The seats that have played at least one turn."""
    return set(game.turns.values_list("seat", flat=True).distinct())


def outcome_of(
    game: Game, seats: Sequence[Seat] | None = None, moved: set[int] | None = None
) -> GameOutcome:
    """Who beats whom with the seats as they stand (final once the game is finished). Team
    seats count as a team game once the teams are drawn. ``moved``: the seats that have played
    a turn, when the caller knows them (read from the turns otherwise)."""
    seats = list(seats) if seats is not None else game_seats(game)
    moved = moved if moved is not None else seats_moved(game)
    teams = game.mode == Game.Mode.TEAMS and all(s.team for s in seats)
    return GameOutcome(
        tuple(
            SeatResult(
                seat=s.seat,
                score=s.score,
                out=s.is_out,
                team=s.team if teams else None,
                forfeit=s.out_reason == Seat.OutReason.FORFEIT,
                moved=s.seat in moved,
            )
            for s in seats
        )
    )


def team_scores(game: Game, seats: Sequence[Seat]) -> list[int] | None:
    if game.mode != Game.Mode.TEAMS or any(s.team is None for s in seats):
        return None
    return [sum(s.score for s in seats if s.team == team) for team in (1, 2)]


def game_state(
    game: Game,
    seats: Sequence[Seat] | None = None,
    turns: Sequence[TurnFields] | None = None,
    *,
    ratings: bool = False,
) -> GameState:
    """The game as API.md describes it (REST and WebSocket alike). ``turns``: the game's turns in
    order when the caller has them (the move path reads them as plain rows, ``games.rows``). The
    casts name the values that the columns' choices allow. ``ratings``: add each seat's rating
    (one or two more queries, so the page and the REST read ask for it; the move path does not)."""
    seats = list(seats) if seats is not None else game_seats(game)
    turns = list(turns) if turns is not None else list(game.turns.all())
    result: ResultState | None = None
    if game.status in (Game.Status.FINISHED, Game.Status.CANCELLED):
        finished = game.status == Game.Status.FINISHED
        aborted = finished and outcome_of(game, seats, moved={t.seat for t in turns}).aborted
        result = {
            "end_reason": cast(EndReason, game.end_reason),
            "winners": [] if aborted else list(game.winners),  # the outcome's shown_winners
            "scores": [s.score for s in seats],
            "team_scores": team_scores(game, seats),
            "aborted": aborted,
        }
    state: GameState = {
        "id": game.pk,
        "status": cast(GameStatus, game.status),
        "players": game.players,
        "mode": cast(GameMode, game.mode),
        "variant": cast(GameVariant, game.variant),
        "rated": game.rated,
        "turn_seconds": game.turn_seconds,
        "seats": [
            {
                "seat": s.seat,
                "username": s.user.get_username() if s.user_id and s.user else None,
                "bot": cast("BotLevel | None", s.bot_level or None),
                "team": s.team,
                "score": s.score,
                "roofs_left": s.roofs_left,
                "hinted": s.hinted,
                "resigned": s.is_out,
                "out_reason": cast("OutReason | None", s.out_reason or None),
            }
            for s in seats
        ],
        "board": list(game.board),
        "siestas": siesta_counts(game.board),
        "supply": {"suns": game.suns, "shadows": game.shadows},
        "to_move": game.to_move,
        "ply": game.ply,
        "version": game.version,
        "turns": [
            {
                "ply": t.ply,
                "seat": t.seat,
                "move": t.move,
                "points": list(t.points),
                "hint": t.hint,
                "at": api_datetime(t.played_at),
            }
            for t in turns
        ],
        "deadline": api_datetime(game.deadline),
        "forfeit_on_timeout": game.status == Game.Status.ACTIVE and game.first_turn_forfeits,
        "created_at": api_datetime(game.created_at),
        "result": result,
    }
    if ratings:
        known = seat_ratings(game, seats)
        for seat in state["seats"]:
            rating = known.get(seat["seat"], _NO_RATING)
            seat["rating"] = rating["rating"]
            seat["rating_change"] = rating["rating_change"]
            seat["rating_reason"] = rating["rating_reason"]
    return state


_NO_RATING: SeatRating = {"rating": None, "rating_change": None, "rating_reason": None}


def game_get(game_id: int) -> Game:
    """A game with its seats (and their users) and turns loaded; ``Game.DoesNotExist`` if none."""
    return Game.objects.prefetch_related("seats__user", "turns").get(pk=game_id)


def game_state_current(game_id: int) -> GameState | None:
    """The state of game ``game_id`` as a socket sends it on joining or on ``sync``, or None when
    there is no such game. One plain query on PostgreSQL (``games.rows``: the seats joined to their
    game and users, with the turns), two elsewhere; every socket that joins a game asks for it."""
    seats = rows.seats_of(game_id)
    if not seats:  # a game always has seats; anything else is read as the REST API reads it
        try:
            return game_state(game_get(game_id))
        except Game.DoesNotExist:
            return None
    game = seats[0].game
    turns = rows.known_turns(game)
    return game_state(game, seats, turns if turns is not None else rows.turns_of(game_id))


def game_or_not_found(game_id: int, *, games: QuerySet[Game] | None = None) -> Game:
    """The game ``game_id``, or the domain's ``GameNotFound`` ("There is no game 7.").

    From ``games`` when given (e.g. ``Game.objects.select_for_update()``), else as ``game_get``
    loads it."""
    try:
        return game_get(game_id) if games is None else games.get(pk=game_id)
    except Game.DoesNotExist:
        raise GameNotFound(game_id) from None


PrivateViewers = Callable[[int, int], bool]
"""Whether the user (by id) may see the private game (by id), besides its players and staff."""
_private_viewers: list[PrivateViewers] = []


def private_viewers_provide(provider: PrivateViewers) -> None:
    """The app that makes private games (tournaments) hands in who else may see one (games
    cannot import it: the layers contract), from its ``AppConfig.ready``."""
    if provider not in _private_viewers:
        _private_viewers.append(provider)


def _may_see_private(game_id: int, seated: Iterable[int | None], viewer: Any) -> bool:
    """A private game is its players', staff's, and whom a provider lets in."""
    if viewer is None or not viewer.is_authenticated:
        return False
    if viewer.is_staff or viewer.pk in seated:
        return True
    return any(provider(game_id, viewer.pk) for provider in _private_viewers)


def game_visible(game: Game, viewer: Any) -> bool:
    """Whether ``viewer`` (a user, anonymous, or None) may see ``game``: a public game is
    everyone's; a private one (``Game.private``) as ``_may_see_private`` says. Reads the seats
    (their prefetch when there is one) only for a private game."""
    if not game.private:
        return True
    return _may_see_private(game.pk, [s.user_id for s in game.seats.all()], viewer)


def game_visible_check(game_id: int, viewer: Any) -> None:
    """The domain's ``GameNotFound`` when game ``game_id`` is private and not ``viewer``'s to
    see, the very refusal an unknown id gets; nothing otherwise (an unknown id is left to the
    caller's own lookup). One small query for a public game."""
    private = Game.objects.filter(pk=game_id).values_list("private", flat=True).first()
    if not private:
        return
    seated = Seat.objects.filter(game_id=game_id).values_list("user_id", flat=True)
    if not _may_see_private(game_id, list(seated), viewer):
        raise GameNotFound(game_id)


def games_hidden_from(game_ids: Iterable[int], viewer: Any) -> set[int]:
    """Of these games, the private ones ``viewer`` may not see (a list that names games it
    does not read, as a rating history, leaves their players and link out): one query, and
    one more per private game."""
    private = Game.objects.filter(pk__in=list(game_ids), private=True).values_list("pk", flat=True)
    hidden = set()
    for game_id in private:
        seated = Seat.objects.filter(game_id=game_id).values_list("user_id", flat=True)
        if not _may_see_private(game_id, list(seated), viewer):
            hidden.add(game_id)
    return hidden


def games_visible(games: QuerySet[Game], viewer: Any) -> QuerySet[Game]:
    """The games of a list that ``viewer`` may find there: the public ones and the private ones
    they play in (a private game is never listed to anyone else, staff included)."""
    if viewer is None or not viewer.is_authenticated:
        return games.filter(private=False)
    mine = Seat.objects.filter(user_id=viewer.pk).values("game_id")
    return games.filter(Q(private=False) | Q(pk__in=mine))


def day_start(day: date) -> datetime:
    """The first moment of a UTC day: the API's ``since`` bounds are days."""
    return datetime.combine(day, time.min, tzinfo=UTC)


def day_end(day: date) -> datetime:
    """The last moment of a UTC day: the API's ``until`` bounds take the whole day."""
    return datetime.combine(day, time.max, tzinfo=UTC)


def game_list(
    *,
    status: str | None = None,
    player: str | None = None,
    mode: str | None = None,
    variant: str | None = None,
    rated: bool | None = None,
    since: date | None = None,
    viewer: Any = None,
) -> QuerySet[Game]:
    """Games, newest first, as ``viewer`` may find them (``games_visible``); each filter given
    narrows them (``since``: created that UTC day or later)."""
    games = games_visible(Game.objects.prefetch_related("seats__user", "turns"), viewer)
    if status:
        games = games.filter(status=status)
    if player:
        games = games.filter(seats__user__username=player).distinct()
    if mode:
        games = games.filter(mode=mode)
    if variant:
        games = games.filter(variant=variant)
    if rated is not None:
        games = games.filter(rated=rated)
    if since is not None:
        games = games.filter(created_at__gte=day_start(since))
    return games


ExportCursor = tuple[datetime, int]
"""Where a page of an export ends: the last game's ``finished_at`` and id."""


def finished_games_page(
    *,
    user_id: int,
    since: date | None = None,
    until: date | None = None,
    after: ExportCursor | None = None,
    size: int,
    viewer_id: int | None = None,
) -> list[Game]:
    """One page of the finished games a person played, oldest finish first (``since`` and
    ``until``: finished within those UTC days, both included), after ``after``: the export
    reads page by page (keyset), never the whole list at once. Their private games only when
    they export their own (``viewer_id``)."""
    games = Game.objects.filter(
        status=Game.Status.FINISHED,
        finished_at__isnull=False,
        pk__in=Seat.objects.filter(user_id=user_id).values("game_id"),
    )
    if viewer_id != user_id:
        games = games.filter(private=False)
    if since is not None:
        games = games.filter(finished_at__gte=day_start(since))
    if until is not None:
        games = games.filter(finished_at__lte=day_end(until))
    if after is not None:
        moment, game_id = after
        games = games.filter(Q(finished_at__gt=moment) | Q(finished_at=moment, pk__gt=game_id))
    games = games.order_by("finished_at", "pk").prefetch_related("seats", "turns")
    return list(games[:size])


def player_or_not_found(username: str) -> User:
    """The active person named ``username``, or the domain's ``NotFound``."""
    player = User.objects.filter(username=username, is_active=True).first()
    if player is None:
        raise NotFound(_("There is no player %(username)s.") % {"username": username})
    return player


def bot_label(level: str | None) -> str | None:
    """A bot level in the reader's language ("hard"), the level itself if unknown, None for a
    person."""
    if not level:
        return None
    return str(Seat.BotLevel(level).label) if level in Seat.BotLevel.values else level


def game_record(game: Game) -> dict[str, Any]:
    """The game record of RULES.md, with ``hints`` (0-based turn indexes) and ``teams``."""
    seats = game_seats(game)
    turns = list(game.turns.all())
    teams = None
    if game.mode == Game.Mode.TEAMS and all(s.team for s in seats):
        teams = [[s.seat for s in seats if s.team == team] for team in (1, 2)]
    record = GameRecord(
        players=game.players,
        variant=game.variant,
        moves=[t.move for t in turns],
        hints=[index for index, t in enumerate(turns) if t.hint],
        teams=teams,
    )
    data = record.to_json()
    data["hints"] = record.hints
    data["teams"] = teams
    return data


@dataclass(frozen=True)
class ListedSeat:
    seat: Seat
    rating: int | None
    """The person's current rating in the game's pool; None for a bot or a free seat."""


@dataclass(frozen=True)
class ListedGame:
    """A game as the lists show it (lobby, home): its seats, each person's rating beside their
    name as on the game page, and the words for its turn time."""

    game: Game
    turn_time: str
    seats: list[ListedSeat]


def games_listed(games: Iterable[Game]) -> list[ListedGame]:
    """The rows of a list of games. Their seats should be prefetched with their users; the
    ratings are read in one query per pool (the game's mode names its pool) whatever the
    number of games."""
    games = list(games)
    people: dict[str, set[int]] = {}
    for game in games:
        for seat in game.seats.all():
            if seat.user_id is not None and not seat.bot_level:
                people.setdefault(game.mode, set()).add(seat.user_id)
    ratings: dict[str, Mapping[int, int]] = {pool: {} for pool in people}
    for pool, user_ids in people.items():
        for provider in _user_ratings:
            ratings[pool] = {**ratings[pool], **provider(user_ids=user_ids, pool=pool)}
    return [
        ListedGame(
            game=game,
            turn_time=turn_time_label(game.turn_seconds),
            seats=[
                ListedSeat(
                    seat=seat,
                    rating=ratings.get(game.mode, {}).get(seat.user_id)
                    if seat.user_id is not None and not seat.bot_level
                    else None,
                )
                for seat in game_seats(game)
            ],
        )
        for game in games
    ]


def _with_seats(games: QuerySet[Game]) -> QuerySet[Game]:
    return games.prefetch_related(
        Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("seat"))
    )


def games_live(*, limit: int) -> list[Game]:
    """The newest public games under way, at most ``limit``, with their seats and users (two
    queries)."""
    games = Game.objects.filter(status=Game.Status.ACTIVE, private=False)
    games = games.order_by("-started_at", "-id")
    return list(_with_seats(games)[:limit])


def games_waiting_for(user_id: int, *, limit: int) -> list[Game]:
    """What waits for the user, at most ``limit``: the games where it is their turn (the
    nearest deadline first), then the open games where they hold a seat and wait for players
    (the newest first). A seat out of its game (played by a bot) waits for nobody."""
    waiting = Game.objects.filter(
        Q(status=Game.Status.ACTIVE, seats__seat=F("to_move"), seats__out_reason="")
        | Q(status=Game.Status.OPEN),
        seats__user_id=user_id,
    ).order_by(F("deadline").asc(nulls_last=True), "-created_at", "-id")
    return list(_with_seats(waiting)[:limit])


def games_of_user_playing(user_id: int) -> QuerySet[Game]:
    """The user's own games waiting or under way (their private ones too)."""
    return Game.objects.prefetch_related("seats__user", "turns").filter(
        Q(status__in=[Game.Status.OPEN, Game.Status.ACTIVE]), seats__user_id=user_id
    )


@dataclass(frozen=True)
class Participant:
    seat: int
    user_id: int | None
    username: str | None
    bot_level: str | None
    team: int | None
    score: int
    hinted: bool
    out_reason: str | None

    @property
    def is_person(self) -> bool:
        return self.user_id is not None and not self.bot_level


@dataclass(frozen=True)
class FinishedGame:
    """What other apps learn of a finished game (they never read game internals)."""

    game_id: int
    rated: bool
    mode: str
    variant: str
    end_reason: str
    finished_at: datetime
    winners: list[int]
    every_player_moved: bool
    """False when the game ended (resignation, timeout) before each seat had played once: the
    outcome's ``aborted``."""
    outcome: GameOutcome
    """Who beat whom: the one place results are decided (``games.engine.outcome``)."""
    participants: list[Participant] = field(default_factory=list)
    team_scores: list[int] | None = None


def finished_game(game: Game) -> FinishedGame:
    seats = game_seats(game)
    outcome = outcome_of(game, seats)
    assert game.finished_at is not None
    return FinishedGame(
        game_id=game.pk,
        rated=game.rated,
        mode=game.mode,
        variant=game.variant,
        end_reason=game.end_reason,
        finished_at=game.finished_at,
        winners=list(game.winners),
        every_player_moved=not outcome.aborted,
        outcome=outcome,
        participants=[
            Participant(
                seat=s.seat,
                user_id=s.user_id,
                username=s.user.get_username() if s.user_id and s.user else None,
                bot_level=s.bot_level or None,
                team=s.team,
                score=s.score,
                hinted=s.hinted,
                out_reason=s.out_reason or None,
            )
            for s in seats
        ],
        team_scores=team_scores(game, seats),
    )


def turns_of(game: Game) -> QuerySet[Turn]:
    return game.turns.order_by("ply")

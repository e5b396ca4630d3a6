"""Reads of tournaments: the public tournament shape (API.md), results and standings."""

from __future__ import annotations

import secrets
from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta
from statistics import fmean
from typing import Any, Literal, cast

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import Count, Exists, F, OuterRef, Prefetch, Q, QuerySet, Value
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.models import Game, Seat
from games.selectors import api_datetime
from games.state import GameMode, GameStatus, GameVariant
from ratings.models import Rating, RatingChange
from ratings.selectors import ratings_of
from tournaments.arena import (
    DEFAULT_RATING,
    arena_standings,
    on_streak,
    performances,
    streak_points,
)
from tournaments.models import Format, Pairing, Round, Tournament, TournamentPlayer, Visibility
from tournaments.pairing import Standing, TableResult, standings
from tournaments.state import (
    ArenaState,
    PairingGameState,
    RoundState,
    StandingState,
    TournamentFormat,
    TournamentGameState,
    TournamentState,
    TournamentStatus,
)


def tournament_list(*, status: str | None = None) -> QuerySet[Tournament]:
    """Tournaments, newest first, with what their public shape needs loaded."""
    tournaments = (
        Tournament.objects.order_by("-starts_at", "-id")
        .select_related("created_by")
        .prefetch_related(
            Prefetch("players", queryset=TournamentPlayer.objects.select_related("user")),
            Prefetch("round_set", queryset=Round.objects.order_by("number")),
            Prefetch(
                "pairings",
                queryset=Pairing.objects.select_related("game", "player__user").prefetch_related(
                    Prefetch("game__seats", queryset=Seat.objects.order_by("seat"))
                ),
            ),
        )
    )
    if status:
        tournaments = tournaments.filter(status=status)
    return tournaments


def visible_to(viewer: Any) -> Q:
    """The tournaments ``viewer`` (a user, anonymous, or None) may see without an invitation's
    token: the public ones; an invitation only its creator's, its players' (withdrawn ones
    too) and staff's. The one rule, as a filter (``can_see`` is the same rule for one
    tournament, with the token): everything that shows a tournament, lists it, or names it
    beside a game, asks one of the two."""
    shown = Q(visibility=Visibility.PUBLIC)
    if viewer is None or not viewer.is_authenticated:
        return shown
    if viewer.is_staff:
        return Q()
    joined = TournamentPlayer.objects.filter(user_id=viewer.pk).values("tournament_id")
    return shown | Q(created_by_id=viewer.pk) | Q(pk__in=joined)


def tournaments_listed(*, viewer: Any, status: str | None = None) -> QuerySet[Tournament]:
    """``tournament_list`` as ``viewer`` may see it (``visible_to``)."""
    return tournament_list(status=status).filter(visible_to(viewer))


@dataclass(frozen=True)
class UpcomingTournament:
    """A tournament to join, as the home page offers it."""

    tournament: Tournament
    count: int
    """Players who joined."""
    joined: bool
    """The viewer is one of them."""

    @property
    def full(self) -> bool:
        return self.count >= self.tournament.max_players


def tournaments_upcoming(*, viewer: Any, limit: int) -> list[UpcomingTournament]:
    """The next public tournaments to start (featured ones first), at most ``limit``, with how
    many joined and whether ``viewer`` did: one query."""
    signed_in = viewer is not None and viewer.is_authenticated
    joined: Exists | Value = Value(False)
    if signed_in:
        joined = Exists(
            TournamentPlayer.objects.filter(tournament_id=OuterRef("pk"), user_id=viewer.pk)
        )
    rows = (
        Tournament.objects.filter(status=Tournament.Status.SCHEDULED, visibility=Visibility.PUBLIC)
        .annotate(entrants=Count("players"), joined=joined)
        .order_by("-featured", "starts_at", "id")[:limit]
    )
    return [UpcomingTournament(tournament=t, count=t.entrants, joined=t.joined) for t in rows]


def can_see(tournament: Tournament, viewer: Any, invite: str | None = None) -> bool:
    """``visible_to`` for one tournament, and whoever has its link's token (``invite``): a
    public tournament is everyone's; an invitation its creator's, its players', staff's, and
    the token's holder's. To anyone else it does not exist (404, as an unknown id)."""
    if tournament.visibility == Visibility.PUBLIC:
        return True
    if (
        invite
        and tournament.invite_token
        and secrets.compare_digest(invite.encode(), tournament.invite_token.encode())
    ):
        return True
    if viewer is None or not viewer.is_authenticated:
        return False
    return bool(
        viewer.is_staff
        or tournament.created_by_id == viewer.pk
        or any(p.user_id == viewer.pk for p in tournament.players.all())
    )


def password_asked(tournament: Tournament, user: Any) -> bool:
    """Whether joining asks ``user`` for the tournament's password (``services.check_entry``):
    an invitation with a password, to someone neither staff, its creator nor in it already."""
    return bool(
        tournament.password
        and tournament.visibility == Visibility.INVITE
        and not user.is_staff
        and tournament.created_by_id != user.pk
        and not any(p.user_id == user.pk for p in tournament.players.all())
    )


MIN_FINISHED_GAMES = 3
"""A player creates tournaments after this many finished games (no throwaway accounts)."""


@dataclass(frozen=True)
class Refusal:
    code: str
    message: str


def creation_refusal(user: Any) -> Refusal | None:
    """Why ``user`` may not create a tournament now, or None when they may."""
    if user is None or not user.is_authenticated:
        return Refusal("sign_in", _("Sign in to create a tournament."))
    if user.is_staff:
        return None
    finished = (
        Seat.objects.filter(user_id=user.pk, game__status=Game.Status.FINISHED)
        .values("game_id")
        .distinct()
        .count()
    )
    if finished < MIN_FINISHED_GAMES:
        left = MIN_FINISHED_GAMES - finished
        return Refusal(
            "few_games",
            ngettext(
                "Finish %(count)s more game to create tournaments.",
                "Finish %(count)s more games to create tournaments.",
                left,
            )
            % {"count": left},
        )
    upcoming = Tournament.objects.filter(
        created_by_id=user.pk,
        status__in=[Tournament.Status.SCHEDULED, Tournament.Status.RUNNING],
    )
    if upcoming.exists():
        return Refusal(
            "one_at_a_time",
            _("You already have a tournament coming up or running: one at a time."),
        )
    return None


def tournament_get(tournament_id: int) -> Tournament:
    """One tournament with its players, rounds and pairings; ``DoesNotExist`` if none."""
    return tournament_list().get(pk=tournament_id)


def table_results(tournament: Tournament) -> tuple[list[TableResult], list[int]]:
    """The finished tables of ``tournament`` and its byes (a player id per bye)."""
    tables: dict[int, list[Pairing]] = defaultdict(list)
    byes: list[int] = []
    for pairing in tournament.pairings.all():
        if pairing.game_id is None:
            byes.append(pairing.player_id)
        elif pairing.points is not None:
            tables[pairing.game_id].append(pairing)
    results = []
    for rows in tables.values():
        rows.sort(key=lambda p: p.seat or 0)
        game = rows[0].game
        assert game is not None
        teams = None
        if game.mode == Game.Mode.TEAMS:
            team_of = {s.seat: s.team for s in game.seats.all()}
            teams = tuple(
                tuple(p.player_id for p in rows if team_of.get(p.seat or 0) == team)
                for team in (1, 2)
            )
        results.append(
            TableResult(
                players=tuple(p.player_id for p in rows),
                points={p.player_id: p.points or 0.0 for p in rows},
                scores={p.player_id: p.score or 0 for p in rows},
                teams=teams,
            )
        )
    return results, byes


def tournament_standings(tournament: Tournament) -> list[Standing]:
    players = [p.pk for p in tournament.players.all()]
    results, byes = table_results(tournament)
    if tournament.format == Format.ARENA:
        return arena_standings(players, results, _pool_ratings(tournament))
    return standings(players, results, byes)


def _pool_ratings(tournament: Tournament) -> dict[int, float]:
    """The current rating of each player of ``tournament`` in its pool, by player id."""
    players = {p.user_id: p.pk for p in tournament.players.all()}
    rows = Rating.objects.filter(user_id__in=players, pool=tournament.mode)
    return {players[user_id]: rating for user_id, rating in rows.values_list("user_id", "rating")}


def entrant_ratings(tournament: Tournament) -> dict[str, int]:
    """Each entrant's current rating in the tournament's pool by username, rounded as the pages
    show ratings (1500 when not yet earned): what the page shows beside their names."""
    players = {p.user_id: p.user.get_username() for p in tournament.players.all()}
    ratings = ratings_of(user_ids=players, pool=tournament.mode)
    return {players[user_id]: rating for user_id, rating in ratings.items()}


def arena_state(tournament: Tournament) -> ArenaState | None:
    """What an arena adds to its state: its end, who pauses, who is on a streak, each one's
    performance, and the top game under way (the highest mean rating) for spectators."""
    if tournament.format != Format.ARENA:
        return None
    players = list(tournament.players.all())
    name_of = {p.pk: p.user.get_username() for p in players}
    ratings = _pool_ratings(tournament)
    results, _byes = table_results(tournament)
    runs: dict[int, list[float]] = defaultdict(list)
    for result in results:
        for pid in result.players:
            runs[pid].append(result.points.get(pid, 0.0))
    seated: dict[int, list[int]] = defaultdict(list)
    for pairing in tournament.pairings.all():
        if pairing.game is not None and pairing.game.status == Game.Status.ACTIVE:
            seated[pairing.game.pk].append(pairing.player_id)
    top_game = max(
        seated,
        key=lambda g: (fmean(ratings.get(p, DEFAULT_RATING) for p in seated[g]), -g),
        default=None,
    )
    ends_at = tournament.starts_at + timedelta(minutes=tournament.duration_minutes or 0)
    return {
        "ends_at": api_datetime(ends_at),
        "paused": [name_of[p.pk] for p in players if p.paused and not p.withdrawn],
        "on_streak": [
            name_of[pid] for pid, points in runs.items() if on_streak(streak_points(points)[1])
        ],
        "performance": {
            name_of[pid]: value
            for pid, value in performances(list(name_of), results, ratings).items()
        },
        "top_game": top_game,
    }


def tournament_state(tournament: Tournament) -> TournamentState:
    """The tournament as API.md describes it (REST and WebSocket alike). The casts name the
    values that the columns' choices allow."""
    players = list(tournament.players.all())
    name_of = {p.pk: p.user.get_username() for p in players}
    by_round: dict[int, list[Pairing]] = defaultdict(list)
    for pairing in tournament.pairings.all():
        by_round[pairing.round_id].append(pairing)
    rounds: list[RoundState] = []
    for rnd in tournament.round_set.all():
        games: dict[int, PairingGameState] = {}
        byes: list[str] = []
        for pairing in sorted(by_round[rnd.pk], key=lambda p: (p.game_id or 0, p.seat or 0)):
            if pairing.game is None:
                byes.append(name_of[pairing.player_id])
                continue
            entry = games.setdefault(
                pairing.game_id or 0,
                {
                    "id": pairing.game.pk,
                    "players": [],
                    "status": cast(GameStatus, pairing.game.status),
                    "scores": None,
                    "points": None,
                    "forfeits": [],
                },
            )
            entry["players"].append(name_of[pairing.player_id])
            if pairing.points is not None:
                entry["scores"] = [*(entry["scores"] or []), pairing.score or 0]
                entry["points"] = [*(entry["points"] or []), pairing.points]
            if pairing.forfeit:
                entry["forfeits"].append(name_of[pairing.player_id])
        rounds.append({"round": rnd.number, "games": list(games.values()), "byes": byes})
    seats: dict[int, list[int]] = defaultdict(list)
    forfeits: dict[int, int] = defaultdict(int)
    for pairing in sorted(tournament.pairings.all(), key=lambda p: p.round_id):
        if pairing.seat is not None:
            seats[pairing.player_id].append(pairing.seat)
        forfeits[pairing.player_id] += pairing.forfeit
    table: list[StandingState] = []
    if tournament.status in (Tournament.Status.RUNNING, Tournament.Status.FINISHED):
        table = [
            {
                "rank": s.rank,
                "username": name_of[s.player],
                "points": s.points,
                "buchholz": s.buchholz,
                "score": s.score,
                "games": s.games,
                "seats": seats[s.player],
                "forfeits": forfeits[s.player],
            }
            for s in tournament_standings(tournament)
        ]
    winners = []
    if tournament.status == Tournament.Status.FINISHED:
        winners = [row["username"] for row in table if row["rank"] == 1]
    return {
        "id": tournament.pk,
        "name": tournament.name,
        "format": cast(TournamentFormat, tournament.format),
        "table_size": tournament.table_size,
        "mode": cast(GameMode, tournament.mode),
        "variant": cast(GameVariant, tournament.variant),
        "rounds": tournament.rounds,
        "duration_minutes": tournament.duration_minutes,
        "arena": arena_state(tournament),
        "starts_at": api_datetime(tournament.starts_at),
        "turn_seconds": tournament.turn_seconds,
        "grace_seconds": settings.SIESTA_TOURNAMENT_GRACE_SECONDS,
        "max_players": tournament.max_players,
        "min_players": tournament.min_players,
        "status": cast(TournamentStatus, tournament.status),
        "cancel_reason": tournament.cancel_reason or None,
        "players": [{"username": name_of[p.pk], "withdrawn": p.withdrawn} for p in players],
        "current_round": tournament.current_round,
        "pairings": rounds,
        "standings": table,
        "winners": winners,
        "visibility": cast(Literal["public", "invite"], tournament.visibility),
        "featured": tournament.featured,
        "creator": tournament.created_by.get_username() if tournament.created_by else None,
        "version": tournament.version,
    }


def current_game_of(state: TournamentState, username: str) -> int | None:
    """The id of ``username``'s game in progress in the tournament's current round, if any."""
    for rnd in state["pairings"]:
        if rnd["round"] != state["current_round"] and state["format"] != "arena":
            continue  # an arena's game may be of any wave
        for game in rnd["games"]:
            if game["status"] == "active" and username in game["players"]:
                return int(game["id"])
    return None


def tournaments_of_user(user: User, *, viewer: Any) -> QuerySet[TournamentPlayer]:
    """``user``'s tournament entries that ``viewer`` may see (``visible_to``), newest
    tournament first, with the final place once over."""
    shown = TournamentPlayer.objects.filter(user_id=user.pk).filter(
        tournament__in=Tournament.objects.filter(visible_to(viewer))
    )
    return shown.select_related("tournament").order_by("-tournament__starts_at", "-tournament_id")


def tournament_game_of(
    user_id: int, *, tournament_id: int | None = None
) -> TournamentGameState | None:
    """``user_id``'s game in progress in the current round of a running tournament (the newest
    when they play in several), or None: what leads a player to their next game."""
    pairings = Pairing.objects.filter(
        Q(round__number=F("tournament__current_round")) | Q(tournament__format=Format.ARENA),
        player__user_id=user_id,
        player__withdrawn=False,
        tournament__status=Tournament.Status.RUNNING,
        game__status=Game.Status.ACTIVE,
    )
    if tournament_id is not None:
        pairings = pairings.filter(tournament_id=tournament_id)
    pairing = pairings.select_related("tournament", "round", "game").order_by("-game_id").first()
    if pairing is None or pairing.game is None:
        return None
    game = pairing.game
    seats = game.seats.order_by("seat").select_related("user")
    opponents = [
        s.user.get_username() if s.user is not None else s.bot_level
        for s in seats
        if s.user_id != user_id
    ]
    starts_in = 0
    if game.ply == 0 and game.deadline is not None:
        starts_in = max(0, int((game.deadline - timezone.now()).total_seconds()))
    return {
        "tournament": pairing.tournament_id,
        "name": pairing.tournament.name,
        "game": game.pk,
        "round": pairing.round.number,
        "arena": pairing.tournament.format == Format.ARENA,
        "opponents": opponents,
        "starts_in": starts_in,
    }


def sees_private_game(game_id: int, user_id: int) -> bool:
    """Whether the user may see the private game (``Game.private``): the creator or a player
    of its invitation-only tournament (handed to ``games.selectors.private_viewers_provide``;
    its own players and staff see it anyway)."""
    pairings = Pairing.objects.filter(game_id=game_id)
    in_it = Q(tournament__created_by_id=user_id) | Q(
        tournament__in=TournamentPlayer.objects.filter(user_id=user_id).values("tournament_id")
    )
    return pairings.filter(in_it).exists()


def tournament_id_of_game(game_id: int) -> int | None:
    """The tournament a game was paired in, if any."""
    pairings = Pairing.objects.filter(game_id=game_id)
    return pairings.values_list("tournament_id", flat=True).first()


def rating_changes(tournament: Tournament) -> dict[str, float]:
    """Each player's rating change over the tournament's rated games recorded so far, by
    username (a player without a recorded change is absent)."""
    game_ids = {p.game_id for p in tournament.pairings.all() if p.game_id is not None}
    totals: dict[str, float] = defaultdict(float)
    rows = RatingChange.objects.filter(game_id__in=game_ids).values_list("user__username", "delta")
    for username, delta in rows:
        totals[username] += delta
    return dict(totals)


FORFEITS_TO_WITHDRAW = 2
"""Forfeits in a row (over a player's games; a bye between does not break the row) that withdraw
a player (``services._withdraw_no_shows``)."""

MISSED_GAMES = "missed_games"
LEFT = "left"


@dataclass(frozen=True)
class Withdrawal:
    """Why a player is out of a running or finished tournament, and whether they may come back.

    ``reason``: ``MISSED_GAMES`` (the server withdrew them after ``FORFEITS_TO_WITHDRAW`` forfeits
    in a row) or ``LEFT`` (they withdrew). ``rejoin_refusal``: None when they may rejoin, else
    why not, in the active language."""

    reason: str
    rejoin_refusal: str | None


def missed_games_in_a_row(entry: TournamentPlayer) -> bool:
    """Whether ``entry``'s last ``FORFEITS_TO_WITHDRAW`` recorded games were all forfeits."""
    last = Pairing.objects.filter(player=entry, game__isnull=False, points__isnull=False).order_by(
        "-round__number"
    )[:FORFEITS_TO_WITHDRAW]
    row = [p.forfeit for p in last]
    return len(row) == FORFEITS_TO_WITHDRAW and all(row)


def rejoin_refusal(tournament: Tournament, reason: str) -> str | None:
    """Why a withdrawn player may not rejoin ``tournament``, or None: a player withdrawn for
    missed games comes back while a game is still to be paired for them; a withdrawal of one's
    own is final."""
    if tournament.status != Tournament.Status.RUNNING:
        return _("This tournament is over.")
    if reason != MISSED_GAMES:
        return _("You withdrew yourself: that is final.")
    if tournament.format == Format.ARENA:
        ends_at = tournament.starts_at + timedelta(minutes=tournament.duration_minutes or 0)
        if timezone.now() >= ends_at:
            return _("This arena is over: no new games start.")
        return None
    if (tournament.current_round or 0) >= (tournament.rounds or 0):
        return _("The last round is under way: no round is left to play.")
    return None


def withdrawal_of(tournament: Tournament, user_id: int) -> Withdrawal | None:
    """``user_id``'s withdrawal from ``tournament``, or None when they are not withdrawn."""
    entry = tournament.players.filter(user_id=user_id, withdrawn=True).first()
    if entry is None:
        return None
    reason = MISSED_GAMES if missed_games_in_a_row(entry) else LEFT
    return Withdrawal(reason=reason, rejoin_refusal=rejoin_refusal(tournament, reason))

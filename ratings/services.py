"""Every write to ratings goes through here.

``game_rate`` runs in the receiver of ``games.signals.game_finished``, inside the transaction that
finishes the game: the game and its ratings commit or roll back together. A ``RatedGame`` row,
unique per game, and the unique (game, user, pool) history rows make a second rating of the same
game impossible; a repeated call returns ``None`` and changes nothing.

``ratings_recompute`` replays every rated game in order (finish time, then game id) from 1500 with
the same formula and reports, or with ``fix`` repairs, any stored value that differs (and then
writes the bots' results again, which read the people's ratings of the time).

Bots have no rating: ``bot_results_of`` keeps each bot's result against the people of a finished
game, from which ``ratings.selectors.bot_performances`` computes a level's performance.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from games.engine.outcome import GameOutcome
from games.selectors import FinishedGame, Participant
from ratings import elo
from ratings.models import BotResult, Pool, RatedGame, Rating, RatingChange, Reason


@dataclass(frozen=True)
class Assessment:
    """Who counts in a finished game, and why the others don't."""

    reason: Reason
    """The game's: ``rated`` when ratings change, else why not."""
    person_reasons: dict[int, Reason]
    """Seat → reason, for every person (bots have no rating and no history)."""

    @property
    def counted(self) -> bool:
        return self.reason == Reason.RATED

    @property
    def entrant_seats(self) -> list[int]:
        """Every person of a counted game: the ones who count and the hinters they are rated
        against."""
        return sorted(self.person_reasons) if self.counted else []

    @property
    def counting_seats(self) -> list[int]:
        return sorted(seat for seat, r in self.person_reasons.items() if r == Reason.RATED)


@dataclass(frozen=True)
class Person:
    """What the rules of who counts need of a person in a game."""

    seat: int
    team: int | None
    hinted: bool


def assess(
    *, mode: str, rated: bool, every_player_moved: bool, people: Sequence[Person]
) -> Assessment:
    """The rules of who counts (RULES.md, "Hints, ratings"; the About ratings page): a rated game
    that everyone moved in changes ratings when it has two or more people (teams: one in each
    team). A person who asked for a hint keeps their rating, but the others are rated against it."""
    if not rated:
        reason = Reason.CASUAL
    elif not every_player_moved:
        reason = Reason.ABORTED
    elif len(people) < 2 or (mode == Pool.TEAMS and {p.team for p in people} != {1, 2}):
        reason = Reason.TOO_FEW
    elif all(p.hinted for p in people):
        reason = Reason.HINT
    else:
        reason = Reason.RATED

    def person_reason(person: Person) -> Reason:
        if reason in (Reason.CASUAL, Reason.ABORTED):
            return reason
        return Reason.HINT if person.hinted else reason

    return Assessment(reason=reason, person_reasons={p.seat: person_reason(p) for p in people})


def game_assess(outcome: FinishedGame) -> Assessment:
    """Apply the rules of who counts to a finished game."""
    return assess(
        mode=outcome.mode,
        rated=outcome.rated,
        # A forfeit (a missed first turn) is not rated, even where a bot played the seat on.
        every_player_moved=outcome.every_player_moved and not outcome.outcome.forfeits,
        people=[
            Person(seat=p.seat, team=p.team, hinted=p.hinted)
            for p in outcome.participants
            if p.is_person
        ],
    )


def _participant_snapshot(participant: Participant) -> dict[str, Any]:
    return {
        "seat": participant.seat,
        "username": participant.username,
        "bot": participant.bot_level,
        "team": participant.team,
        "score": participant.score,
        "hinted": participant.hinted,
        "out": bool(participant.out_reason),
    }


def _locked_ratings(user_ids: Iterable[int], pool: str) -> dict[int, Rating]:
    """The Rating rows of ``user_ids`` in ``pool``, created if missing and locked, in user id
    order (so two games that share players lock them in the same order)."""
    user_ids = sorted(set(user_ids))
    for user_id in user_ids:
        Rating.objects.get_or_create(user_id=user_id, pool=pool)
    rows = Rating.objects.select_for_update().filter(user_id__in=user_ids, pool=pool)
    return {r.user_id: r for r in rows.order_by("user_id")}


def game_rate(*, outcome: FinishedGame) -> RatedGame | None:
    """Rate a finished game once: a history row for every person, and new ratings when the game
    counts. Returns ``None`` (and changes nothing) when the game was already handled."""
    if outcome.mode not in Pool.values:
        raise ValueError(f"Unknown pool {outcome.mode!r}.")
    assessment = game_assess(outcome)
    people = [p for p in outcome.participants if p.is_person]
    with transaction.atomic():
        if RatedGame.objects.filter(game_id=outcome.game_id).exists():
            return None
        try:
            with transaction.atomic():
                rated_game = RatedGame.objects.create(
                    game_id=outcome.game_id,
                    pool=outcome.mode,
                    at=outcome.finished_at,
                    counted=assessment.counted,
                    reason=assessment.reason,
                    participants=[_participant_snapshot(p) for p in outcome.participants],
                    team_scores=outcome.team_scores,
                )
        except IntegrityError:
            return None

        changes: dict[int, elo.Change] = {}
        if assessment.counted:
            changes = _ratings_update(outcome, rated_game, assessment)

        others = [p.user_id for p in people if p.seat not in changes and p.user_id]
        current = dict(
            Rating.objects.filter(user_id__in=others, pool=outcome.mode).values_list(
                "user_id", "rating"
            )
        )
        rows = []
        for person in people:
            assert person.user_id is not None
            change = changes.get(person.seat)
            before = change.before if change else current.get(person.user_id, elo.START_RATING)
            rows.append(
                RatingChange(
                    rated_game=rated_game,
                    game_id=outcome.game_id,
                    user_id=person.user_id,
                    pool=outcome.mode,
                    at=outcome.finished_at,
                    seat=person.seat,
                    team=person.team,
                    score=person.score,
                    out=bool(person.out_reason),
                    before=before,
                    after=change.after if change else before,
                    delta=change.delta if change else 0.0,
                    k=change.k if change else None,
                    counted=change is not None,
                    reason=assessment.person_reasons[person.seat],
                    result=change.result.value if change else "",
                )
            )
        RatingChange.objects.bulk_create(rows)
        BotResult.objects.bulk_create(
            bot_results_of(rated_game, {row.seat: row.before for row in rows})
        )
    return rated_game


def bot_results_of(rated_game: RatedGame, before: dict[int, float]) -> list[BotResult]:
    """Each bot's results against the people of a finished game (``before``: each person's seat
    and their rating when it ended): one per person in free-for-all, one against the other team's
    people (at their mean rating) in teams. None for an aborted game (forfeits included), whose
    results stand for nothing, nor between bots."""
    if rated_game.reason == Reason.ABORTED or not before:
        return []
    outcome = rated_game.outcome
    results: list[BotResult] = []
    for bot in rated_game.participants:
        if not bot.get("bot") or bot.get("username"):
            continue
        seat, team = bot["seat"], bot.get("team")
        duels: list[tuple[int, float, int]] = []  # (against, opponent rating, a person's seat)
        if team is None:
            duels = [(person, rating, person) for person, rating in sorted(before.items())]
        else:
            other = 2 if team == 1 else 1
            people = [p["seat"] for p in rated_game.participants if p.get("team") == other]
            ratings = [before[p] for p in people if p in before]
            if ratings:
                first = min(p for p in people if p in before)
                duels = [(other, sum(ratings) / len(ratings), first)]
        results.extend(
            BotResult(
                rated_game=rated_game,
                pool=rated_game.pool,
                level=bot["bot"],
                bot_seat=seat,
                against=against,
                opponent_rating=rating,
                score=outcome.duel(seat, person),
                at=rated_game.at,
            )
            for against, rating, person in duels
        )
    return results


def bot_results_rebuild() -> int:
    """Write the bot results of every finished game again from what ratings stored of it (the
    participants and each person's rating of the time); the number written."""
    with transaction.atomic():
        BotResult.objects.all().delete()
        games = RatedGame.objects.exclude(reason=Reason.ABORTED).prefetch_related("changes")
        written = 0
        for rated_game in games.iterator(chunk_size=500):
            if not any(p.get("bot") and not p.get("username") for p in rated_game.participants):
                continue
            before = {row.seat: row.before for row in rated_game.changes.all()}
            written += len(BotResult.objects.bulk_create(bot_results_of(rated_game, before)))
    return written


def _ratings_update(
    outcome: FinishedGame, rated_game: RatedGame, assessment: Assessment
) -> dict[int, elo.Change]:
    """Lock the people's ratings, apply the formula, save; the changes by seat (hinters, who
    are rated against but do not change, have none)."""
    seats = assessment.entrant_seats
    counting = set(assessment.counting_seats)
    user_of = {p.seat: p.user_id for p in outcome.participants if p.user_id is not None}
    locked = _locked_ratings((user_of[seat] for seat in counting), outcome.mode)
    # Hinters are only read: their rating does not move, and they get no row if they have none.
    hinters = {user_of[seat] for seat in seats if seat not in counting}
    read = {r.user_id: r for r in Rating.objects.filter(user_id__in=hinters, pool=outcome.mode)}
    rating_of = {
        seat: locked.get(user_of[seat]) or read.get(user_of[seat]) or Rating(pool=outcome.mode)
        for seat in seats
    }
    changes = _rating_changes(outcome.mode, assessment, outcome.outcome, rating_of.__getitem__)
    for change in changes:
        _rating_apply(rating_of[change.seat], change)
        rating_of[change.seat].save()
    return {change.seat: change for change in changes}


def elo_entrants(
    assessment: Assessment, outcome: GameOutcome, rating_of: Callable[[int], Rating]
) -> list[elo.Entrant]:
    """The entrants of a counted game, in seat order: every person (``assessment.entrant_seats``)
    with the rating and games they had before it (``rating_of(seat)``) and their result from the
    game's outcome; hinters are entrants that do not count. Live rating and the replay both build
    them here, so the formula adds the same floats in the same order and the replay reproduces the
    stored ratings bit for bit."""
    counting = set(assessment.counting_seats)
    entrants = []
    for seat in assessment.entrant_seats:
        rating, result = rating_of(seat), outcome.seat(seat)
        entrants.append(
            elo.Entrant(
                seat=seat,
                rating=rating.rating,
                games=rating.games,
                score=result.score,
                out=result.out,
                team=result.team,
                counts=seat in counting,
            )
        )
    return entrants


def _rating_changes(
    pool: str, assessment: Assessment, outcome: GameOutcome, rating_of: Callable[[int], Rating]
) -> list[elo.Change]:
    """The formula applied to a counted game (see ``elo_entrants``)."""
    return elo.game_changes(
        pool,
        elo_entrants(assessment, outcome, rating_of),
        team_scores=outcome.team_scores,
        teams_out=outcome.teams_out,
    )


def _rating_apply(rating: Rating, change: elo.Change) -> None:
    rating.rating = change.after
    rating.peak = max(rating.peak, change.after)
    rating.games += 1
    if change.result == elo.Result.WIN:
        rating.wins += 1
    elif change.result == elo.Result.DRAW:
        rating.draws += 1
    else:
        rating.losses += 1


# -- replay --------------------------------------------------------------------------------------

RATING_FIELDS = ("rating", "peak", "games", "wins", "draws", "losses")
HISTORY_FIELDS = ("before", "after", "delta", "k", "result", "counted", "reason")
GAME_FIELDS = ("counted", "reason")


@dataclass(frozen=True)
class Difference:
    """A stored value that the replay computes differently."""

    username: str
    pool: str
    field: str
    stored: Any
    expected: Any
    game_id: int | None = None
    """The game of a history row; None for the player's current rating."""

    def __str__(self) -> str:
        values = {
            "username": self.username,
            "pool": self.pool,
            "game": self.game_id,
            "field": self.field,
            "stored": repr(self.stored),
            "expected": repr(self.expected),
        }
        if self.game_id is None:
            return (
                _(
                    "%(username)s (%(pool)s, current rating): %(field)s is %(stored)s, "
                    "replay gives %(expected)s"
                )
                % values
            )
        return (
            _(
                "%(username)s (%(pool)s, game %(game)s): %(field)s is %(stored)s, "
                "replay gives %(expected)s"
            )
            % values
        )


@dataclass
class RecomputeReport:
    games: int = 0
    counted_games: int = 0
    differences: list[Difference] = field(default_factory=list)
    fixed: bool = False


def _same(stored: Any, expected: Any) -> bool:
    """Equal, for floats up to a billionth of a point (the replay normally matches exactly)."""
    if isinstance(stored, float) or isinstance(expected, float):
        if stored is None or expected is None:
            return stored is expected
        return math.isclose(stored, expected, rel_tol=0.0, abs_tol=1e-9)
    return bool(stored == expected)


class _Replay:
    """Standings rebuilt game by game from 1500, and the differences with what is stored."""

    def __init__(self, report: RecomputeReport, *, fix: bool) -> None:
        self.report = report
        self.fix = fix
        self.usernames = dict(get_user_model().objects.values_list("pk", "username"))
        self.standings: dict[tuple[int, str], Rating] = {}

    def standing(self, user_id: int, pool: str) -> Rating:
        key = (user_id, pool)
        if key not in self.standings:
            self.standings[key] = Rating(user_id=user_id, pool=pool)
        return self.standings[key]

    def differ(
        self, user_id: int, pool: str, name: str, stored: Any, expected: Any, game: int | None
    ) -> None:
        self.report.differences.append(
            Difference(
                username=self.usernames.get(user_id, str(user_id)) if user_id else _("the game"),
                pool=pool,
                field=name,
                stored=stored,
                expected=expected,
                game_id=game,
            )
        )

    def game(self, rated_game: RatedGame) -> None:
        """Replay one game: assess it again by today's rules, check (and fix) it and its history
        rows, then move the standings on."""
        self.report.games += 1
        rows = sorted(rated_game.changes.all(), key=lambda r: r.seat)
        assessment = _reassess(rated_game, rows)
        game_expected = {"counted": assessment.counted, "reason": assessment.reason.value}
        wrong_game = [f for f in GAME_FIELDS if getattr(rated_game, f) != game_expected[f]]
        for name in wrong_game:
            stored = getattr(rated_game, name)
            self.differ(0, rated_game.pool, name, stored, game_expected[name], rated_game.game_id)
        if wrong_game and self.fix:
            for name in wrong_game:
                setattr(rated_game, name, game_expected[name])
            rated_game.save(update_fields=wrong_game)

        computed: dict[int, elo.Change] = {}
        if assessment.counted:
            self.report.counted_games += 1
            user_of = {r.seat: r.user_id for r in rows}
            changes = _rating_changes(
                rated_game.pool,
                assessment,
                rated_game.outcome,
                lambda seat: self.standing(user_of[seat], rated_game.pool),
            )
            computed = {c.seat: c for c in changes}
        for row in rows:
            current = self.standing(row.user_id, row.pool).rating
            change = computed.get(row.seat)
            expected = {
                "before": change.before if change else current,
                "after": change.after if change else current,
                "delta": change.delta if change else 0.0,
                "k": change.k if change else None,
                "result": change.result.value if change else "",
                "counted": change is not None,
                "reason": assessment.person_reasons.get(row.seat, Reason(row.reason)).value,
            }
            wrong = [f for f in HISTORY_FIELDS if not _same(getattr(row, f), expected[f])]
            for name in wrong:
                stored = getattr(row, name)
                self.differ(row.user_id, row.pool, name, stored, expected[name], row.game_id)
            if wrong and self.fix:
                for name in wrong:
                    setattr(row, name, expected[name])
                row.save(update_fields=wrong)
        for row in rows:
            if row.seat in computed:
                _rating_apply(self.standing(row.user_id, row.pool), computed[row.seat])

    def ratings(self, stored: dict[tuple[int, str], Rating]) -> None:
        """Check (and fix) every player's current rating against the replayed standings."""
        for key in sorted(set(self.standings) | set(stored)):
            replayed = self.standings.get(key) or Rating(user_id=key[0], pool=key[1])
            row = stored.get(key)
            if row is None and replayed.games == 0:
                continue
            wrong = [
                name
                for name in RATING_FIELDS
                if row is None or not _same(getattr(row, name), getattr(replayed, name))
            ]
            for name in wrong:
                value = getattr(row, name) if row else None
                self.differ(key[0], key[1], name, value, getattr(replayed, name), None)
            if wrong and self.fix:
                target = row or Rating(user_id=key[0], pool=key[1])
                for name in RATING_FIELDS:
                    setattr(target, name, getattr(replayed, name))
                target.save()


def _reassess(rated_game: RatedGame, rows: Sequence[RatingChange]) -> Assessment:
    """The game assessed again from what was stored of it: whether it was casual or aborted
    never changes; who counts follows today's rules."""
    hinted = {p["seat"]: bool(p.get("hinted")) for p in rated_game.participants}
    return assess(
        mode=rated_game.pool,
        rated=rated_game.reason != Reason.CASUAL,
        every_player_moved=rated_game.reason != Reason.ABORTED,
        people=[
            Person(seat=r.seat, team=r.team, hinted=hinted.get(r.seat, r.reason == Reason.HINT))
            for r in rows
        ],
    )


def ratings_recompute(*, fix: bool = False) -> RecomputeReport:
    """Replay every rated game from 1500 and compare with what is stored; with ``fix``, write the
    replayed values over the stored ones."""
    report = RecomputeReport(fixed=fix)
    replay = _Replay(report, fix=fix)
    with transaction.atomic():
        ratings = Rating.objects.select_for_update() if fix else Rating.objects.all()
        stored = {(r.user_id, r.pool): r for r in ratings}
        for rated_game in RatedGame.objects.order_by("at", "game_id").prefetch_related("changes"):
            replay.game(rated_game)
        replay.ratings(stored)
        if fix and report.differences:  # the bots' results read the people's ratings of the time
            bot_results_rebuild()
    return report

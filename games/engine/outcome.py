"""Who beat whom in a finished game: the one place that decides it.

Everything that needs a game's result (the winners a game stores, the rating formula, the result
pages, tournament points) asks a :class:`GameOutcome`, the way python-chess's ``Board.outcome()``
owns a chess result. Pure standard library, like the rest of the engine.

Free-for-all: a player who is out (resigned or timed out) ranks below everyone who is not; among
players on the same side of that line the higher score ranks higher and equal scores tie. A player
who forfeited (missed their first turn in a tournament game, ``SeatResult.forfeit``) ranks below
everyone who did not, whatever a bot then scored on the seat. Teams:
the same between the two teams, a team ranking as out when one of its members is, and its score
being the sum of its members'. Teammates are not opponents.

>>> outcome = GameOutcome.of([30, 20, 30])
>>> outcome.winners, outcome.duel(1, 2), outcome.duel(1, 3), outcome.points(2)
([1, 3], 1.0, 0.5, 0.0)
>>> GameOutcome.of([30, 20], out=[1]).winners
[2]
>>> teams = GameOutcome.of([10, 5, 3, 3], teams=[1, 2, 1, 2])
>>> teams.winners, teams.team_scores, teams.points(2)
([1, 3], {1: 13, 2: 8}, 0.0)

A game that ended (a resignation, a timeout) before every seat had played a turn is *aborted*:
it shows no winner and changes no rating. This is the site's one definition of it: the game page,
the API's ``result`` (``aborted``, empty ``winners``) and the ratings all ask
:attr:`GameOutcome.aborted`. ``winners`` and the duels stay the standing at the end, which a
tournament scores (a player who resigns before moving forfeits the pairing).

>>> aborted = GameOutcome.of([3, 0], out=[2], moved=[1])
>>> aborted.aborted, aborted.shown_winners, aborted.winners
(True, [], [1])
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

WIN, DRAW, LOSS = 1.0, 0.5, 0.0


class Verdict(enum.StrEnum):
    """A seat's result against all its opponents together."""

    WIN = "win"
    """Beat every opponent."""
    DRAW = "draw"
    """Lost to none but did not beat them all (a shared first place)."""
    LOSS = "loss"


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat at the end of a game."""

    seat: int
    score: int
    out: bool = False
    """Resigned, timed out or forfeited."""
    team: int | None = None
    moved: bool = True
    """Played at least one turn."""
    forfeit: bool = False
    """Missed its first turn in a tournament game: out, and the game is not rated."""

    def __post_init__(self) -> None:
        if self.forfeit and not self.out:
            raise ValueError(f"seat {self.seat} forfeited, so it is out")


@dataclass(frozen=True)
class GameOutcome:
    """The result of a finished game, in seat order."""

    seats: tuple[SeatResult, ...]

    def __post_init__(self) -> None:
        numbers = [s.seat for s in self.seats]
        if len(set(numbers)) != len(numbers) or len(numbers) < 2:
            raise ValueError(f"an outcome needs two or more distinct seats (got {numbers})")
        teams = {s.team for s in self.seats}
        if teams != {None} and (None in teams or len(teams) != 2):
            raise ValueError(f"a team game has two teams and every seat in one (got {teams})")

    @classmethod
    def of(
        cls,
        scores: Sequence[int],
        *,
        out: Iterable[int] = (),
        teams: Sequence[int] | None = None,
        moved: Iterable[int] | None = None,
    ) -> GameOutcome:
        """Seats 1..n with these scores; ``out`` the seats that resigned or timed out;
        ``teams`` each seat's team (1 or 2) in a team game; ``moved`` the seats that played a
        turn (every seat when not given)."""
        gone = set(out)
        played = None if moved is None else set(moved)
        return cls(
            tuple(
                SeatResult(
                    seat=number,
                    score=score,
                    out=number in gone,
                    team=teams[number - 1] if teams is not None else None,
                    moved=played is None or number in played,
                )
                for number, score in enumerate(scores, start=1)
            )
        )

    # -- reading ----------------------------------------------------------------------------

    @property
    def is_team_game(self) -> bool:
        return self.seats[0].team is not None

    def seat(self, number: int) -> SeatResult:
        for result in self.seats:
            if result.seat == number:
                return result
        raise ValueError(f"there is no seat {number} in this game")

    @property
    def team_scores(self) -> dict[int, int] | None:
        """Each team's score (the sum of its members'), or None in free-for-all."""
        if not self.is_team_game:
            return None
        return {team: sum(s.score for s in self.seats if s.team == team) for team in (1, 2)}

    @property
    def forfeits(self) -> list[int]:
        """The seats that forfeited (missed their first turn); a game with any is not rated."""
        return [s.seat for s in self.seats if s.forfeit]

    @property
    def teams_out(self) -> set[int]:
        """Teams with a member who resigned or timed out."""
        return {s.team for s in self.seats if s.out and s.team is not None}

    def opponents(self, number: int) -> list[int]:
        """The seats ``number`` played against: everyone else, or the other team."""
        me = self.seat(number)
        return [
            s.seat
            for s in self.seats
            if s.seat != number and (me.team is None or s.team != me.team)
        ]

    # -- results ----------------------------------------------------------------------------

    def team_duel(self, team: int, other: int) -> float:
        """Team ``team``'s result against ``other``: 1, ½ or 0."""
        sums = self.team_scores
        if sums is None or team not in sums or other not in sums:
            raise ValueError("team results exist only in team games, between teams 1 and 2")
        forfeited = {s.team for s in self.seats if s.forfeit}
        if (team in forfeited) != (other in forfeited):
            return LOSS if team in forfeited else WIN
        gone = self.teams_out
        return compare(team in gone, sums[team], other in gone, sums[other])

    def duel(self, a: int, b: int) -> float:
        """Seat ``a``'s result against seat ``b``: 1 (a ranks higher), ½ (level) or 0."""
        first, second = self.seat(a), self.seat(b)
        if a == b:
            raise ValueError(f"seat {a} does not play against itself")
        if first.team is not None and second.team is not None:
            if first.team == second.team:
                raise ValueError(f"seats {a} and {b} are teammates, not opponents")
            return self.team_duel(first.team, second.team)
        if first.forfeit != second.forfeit:  # below everyone who showed, whatever a bot scored
            return LOSS if first.forfeit else WIN
        return compare(first.out, first.score, second.out, second.score)

    def points(self, number: int) -> float:
        """The share of ``number``'s opponents it outscored, a tie counting half (in [0, 1])."""
        others = self.opponents(number)
        return sum(self.duel(number, other) for other in others) / len(others)

    def verdict(self, number: int) -> Verdict:
        return verdict_of(self.duel(number, other) for other in self.opponents(number))

    @property
    def aborted(self) -> bool:
        """The game ended before every seat had played a turn: nobody won, no rating moves. A
        forfeit is not an abort: whoever showed beat the seat that missed its first turn (the
        game is not rated all the same, :attr:`forfeits`)."""
        return not self.forfeits and not all(s.moved for s in self.seats)

    @property
    def shown_winners(self) -> list[int]:
        """The winners a result shows: none when the game was aborted."""
        return [] if self.aborted else self.winners

    @property
    def winners(self) -> list[int]:
        """The seats that lost to no opponent: the best score among those still in (several on
        a tie; in teams the winning team's members, both teams on a draw)."""
        return [s.seat for s in self.seats if self.verdict(s.seat) != Verdict.LOSS]

    @property
    def ranking(self) -> list[list[int]]:
        """Seats best first, grouped where they are level; those out (or in a team with a member
        out) come last."""
        groups: list[list[int]] = []
        previous: tuple[bool, bool, int] | None = None
        for s in sorted(self.seats, key=lambda s: (*self._rank_key(s), s.seat)):
            key = self._rank_key(s)
            if key == previous:
                groups[-1].append(s.seat)
            else:
                groups.append([s.seat])
            previous = key
        return groups

    def _rank_key(self, s: SeatResult) -> tuple[bool, bool, int]:
        sums = self.team_scores
        if sums is not None and s.team is not None:
            forfeited = any(m.forfeit for m in self.seats if m.team == s.team)
            return forfeited, s.team in self.teams_out, -sums[s.team]
        return s.forfeit, s.out, -s.score


def verdict_of(results: Iterable[float]) -> Verdict:
    """A win when every result is a win, a draw when none is a loss, else a loss."""
    scores = list(results)
    if all(r == WIN for r in scores):
        return Verdict.WIN
    if all(r > LOSS for r in scores):
        return Verdict.DRAW
    return Verdict.LOSS


def compare(a_out: bool, a_score: int, b_out: bool, b_score: int) -> float:
    """The one rule between two sides (players, or teams with their summed scores): one that is
    out loses to one that is not; otherwise the higher score wins and equal scores draw.

    >>> compare(False, 10, True, 40), compare(False, 10, False, 10), compare(True, 5, True, 9)
    (1.0, 0.5, 0.0)
    """
    if a_out != b_out:
        return LOSS if a_out else WIN
    if a_score == b_score:
        return DRAW
    return WIN if a_score > b_score else LOSS

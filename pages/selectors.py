"""Reads of the home page: what is being played, what is coming, who leads, what waits for you.

Each part is one or two bounded queries (``tests/pages/test_home.py`` counts them), so the page
costs the same however many games, tournaments and players there are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.selectors import ListedGame, games_listed, games_live, games_waiting_for
from ratings.models import Pool, Rating
from ratings.selectors import leaderboard
from tournaments.selectors import UpcomingTournament, tournaments_upcoming

LIVE_GAMES = 5
"""Games under way listed (the newest); the lobby lists more."""
TOURNAMENTS = 3
"""Upcoming tournaments offered to join."""
LEADERS = 5
"""The top of the free-for-all leaderboard."""
WAITING = 6
"""The viewer's games waiting for them."""


@dataclass(frozen=True)
class HomePage:
    live: list[ListedGame]
    """The newest games under way."""
    tournaments: list[UpcomingTournament]
    leaders: list[Rating]
    """Each with ``rank`` (``ratings.selectors.leaderboard``)."""
    waiting: list[ListedGame] = field(default_factory=list)
    """The viewer's games where it is their turn, then their open games waiting for players."""

    @property
    def featured(self) -> ListedGame | None:
        """The live game the hero shows on its board: the one furthest on (the newest of
        those), so that there is something on it."""
        return max(self.live, key=lambda row: row.game.ply, default=None)


def home_page(*, viewer: Any) -> HomePage:
    """What the home page shows ``viewer`` (signed in or not). The seats' ratings of the live
    and the waiting games are read together (``games_listed``: one query per pool)."""
    live = games_live(limit=LIVE_GAMES)
    waiting = games_waiting_for(viewer.pk, limit=WAITING) if viewer.is_authenticated else []
    listed = games_listed([*live, *waiting])
    return HomePage(
        live=listed[: len(live)],
        waiting=listed[len(live) :],
        tournaments=tournaments_upcoming(viewer=viewer, limit=TOURNAMENTS),
        leaders=list(leaderboard(pool=Pool.FFA)[:LEADERS]),
    )

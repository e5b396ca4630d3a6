"""The settings a game is played with, decided in one place: ``GameSettings``.

Players, mode, variant and turn time: games check them here when opened or seated, social when a
seek or a challenge asks for them, tournaments for their tables (``players`` is then the table
size). Each rule is one property (``teams_seated``: a team game has ``TEAM_PLAYERS`` players);
``check`` refuses in the game's words, and a caller that words a refusal its own way (a
tournament speaks of tables) reads the same properties.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from core.errors import InvalidInput
from games.models import Game

PLAYER_COUNTS = (2, 3, 4)
"""How many players a game may have."""

TEAM_PLAYERS = 4
"""A team game is two teams of two: exactly this many players."""


def least_players(mode: str) -> int:
    """The fewest players a game of ``mode`` can be played by (a tournament's fewest entrants, the
    players a round needs)."""
    return TEAM_PLAYERS if mode == Game.Mode.TEAMS else PLAYER_COUNTS[0]


@dataclass(frozen=True)
class GameSettings:
    """What a game is played with; ``check()`` before use (the constructor takes raw input)."""

    players: int
    mode: str = Game.Mode.FFA
    variant: str = Game.Variant.STANDARD
    turn_seconds: int = Game.DEFAULT_TURN_SECONDS

    @property
    def players_allowed(self) -> bool:
        return self.players in PLAYER_COUNTS

    @property
    def mode_known(self) -> bool:
        return self.mode in Game.Mode.values

    @property
    def teams_seated(self) -> bool:
        """A team game has exactly ``TEAM_PLAYERS`` players (any other mode: true)."""
        return self.mode != Game.Mode.TEAMS or self.players == TEAM_PLAYERS

    @property
    def variant_known(self) -> bool:
        return self.variant in Game.Variant.values

    @property
    def turn_time_allowed(self) -> bool:
        return Game.MIN_TURN_SECONDS <= self.turn_seconds <= Game.MAX_TURN_SECONDS

    def check(self) -> GameSettings:
        """These settings, or InvalidInput naming the first problem in the game's words."""
        if not self.players_allowed:
            raise InvalidInput(_("A game has 2, 3 or 4 players."))
        if not self.mode_known:
            raise InvalidInput(_("Unknown mode %(mode)s.") % {"mode": self.mode})
        if not self.teams_seated:
            raise InvalidInput(team_players_message())
        if not self.variant_known:
            raise InvalidInput(_("Unknown variant %(variant)s.") % {"variant": self.variant})
        if not self.turn_time_allowed:
            raise InvalidInput(turn_time_message())
        return self


def player_counts(mode: str) -> tuple[int, ...]:
    """The numbers of players a game of ``mode`` may have: the lobby's form offers each mode
    with these (``data-players`` on its option), so the page never decides it itself."""
    return tuple(n for n in PLAYER_COUNTS if GameSettings(n, mode).teams_seated)


def team_players_message() -> str:
    """Why a team game with another number of players is refused (services and forms)."""
    return _("Team games need 4 players.")


def turn_time_message() -> str:
    """Why a turn time is refused (games, seeks, challenges and tournaments)."""
    return _("The turn time must be between 10 seconds and 7 days.")

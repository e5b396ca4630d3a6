"""The shapes of a tournament on the wire (API.md): the state that the selectors build, the API
returns and ``/ws/tournaments/{id}/`` sends, and its channel-layer event (as ``games.state``)."""

from typing import Literal, TypeAlias, TypedDict

from games.state import GameMode, GameStatus, GameVariant, PlainErrorFrame, SyncFrame

TournamentStatus: TypeAlias = Literal["scheduled", "running", "finished", "cancelled"]
TournamentFormat: TypeAlias = Literal["round_robin", "swiss", "arena"]


class TournamentPlayerState(TypedDict):
    username: str
    withdrawn: bool


class PairingGameState(TypedDict):
    id: int
    players: list[str]
    """Usernames in seat order."""
    status: GameStatus
    scores: list[int] | None
    """Once the table's result is in: each player's Siesta score, in seat order."""
    points: list[float] | None
    """Once the table's result is in: each player's tournament points, in seat order."""
    forfeits: list[str]
    """Once the table's result is in: who forfeited (missed their first turn), in seat order."""


class RoundState(TypedDict):
    round: int
    games: list[PairingGameState]
    byes: list[str]


class StandingState(TypedDict):
    rank: int
    username: str
    points: float
    buchholz: float
    score: int
    games: int
    seats: list[int]
    """The seat of each game played, in round order (byes have none)."""
    forfeits: int
    """Games forfeited (a first turn missed): 0 points each, not rated."""


class ArenaState(TypedDict):
    """What an arena's state adds (null for the other formats)."""

    ends_at: str
    """No new game starts from then on; games under way finish and count."""
    paused: list[str]
    on_streak: list[str]
    """Players whose next win counts double (two wins in a row or more)."""
    performance: dict[str, float]
    """Mean rating of the opponents met, by username (0 before a game)."""
    top_game: int | None
    """The game under way whose players have the highest mean rating."""


class TournamentState(TypedDict):
    """The tournament as API.md describes it (REST and WebSocket alike)."""

    id: int
    name: str
    format: TournamentFormat
    table_size: int
    mode: GameMode
    variant: GameVariant
    rounds: int | None
    duration_minutes: int | None
    arena: ArenaState | None
    starts_at: str
    turn_seconds: int
    grace_seconds: int
    """How long after pairing a game's first turn clock starts (a missed first turn forfeits)."""
    max_players: int
    min_players: int
    status: TournamentStatus
    cancel_reason: str | None
    players: list[TournamentPlayerState]
    current_round: int | None
    pairings: list[RoundState]
    standings: list[StandingState]
    winners: list[str]
    visibility: Literal["public", "invite"]
    featured: bool
    creator: str | None
    """Who created it (None for a scheduled one)."""
    version: int


class TournamentView(TournamentState):
    """What the socket sends: the state with its name in the reader's language, as the REST
    answer has it (``GET /api/tournaments/{id}/``, less the creator's ``invite_url``)."""

    display_name: str


class TournamentStateEvent(TypedDict):
    """``tournaments.realtime.broadcast_tournament_state`` → ``TournamentConsumer``."""

    type: Literal["tournament.state"]
    tournament: TournamentState
    version: int


class TournamentFrame(TypedDict):
    type: Literal["tournament"]
    tournament: TournamentView
    version: int


TournamentSocketFrame: TypeAlias = TournamentFrame | SyncFrame | PlainErrorFrame
"""Every frame of ``/ws/tournaments/{id}/``."""


class TournamentGameState(TypedDict):
    """A player's game in a tournament's current round: what leads them to it (the lobby
    socket's ``tournament_game`` frame, and the banner every page draws on load)."""

    tournament: int
    name: str
    game: int
    round: int
    arena: bool
    """An arena, whose rounds are pairing waves: the page names the game, not the round."""
    opponents: list[str]
    """The other players of the table, in seat order."""
    starts_in: int
    """Seconds left of the game's first turn (0 once the first turn is played or gone)."""

"""The shapes of a game on the wire (API.md): the state, its channel-layer event and the frames of
``/ws/games/{id}/``.

The state is built once (``games.selectors.game_state``) and crosses every layer as it is: the
services push it after the commit (``games.realtime``), ``games.signals.game_changed`` hands it to
other apps, the consumers send it and the API returns it. These are ``TypedDict`` classes: plain
dicts at run time (so JSON as they stand), checked by mypy. ``tests/*/test_broadcasts.py`` capture
every broadcast and frame of real flows, round-trip each through JSON and check it against them.
"""

# No `from __future__ import annotations`: on Python 3.11 it hides NotRequired from
# TypedDict's __optional_keys__, which the payload tests read.
from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

GameStatus: TypeAlias = Literal["open", "active", "finished", "cancelled"]
GameMode: TypeAlias = Literal["ffa", "teams"]
GameVariant: TypeAlias = Literal["standard", "classic"]
BotLevel: TypeAlias = Literal["easy", "medium", "hard", "expert"]
OutReason: TypeAlias = Literal["resigned", "timeout", "forfeit"]
EndReason: TypeAlias = Literal[
    # RULES.md's, then the site's own.
    "last_sun",
    "last_shadow",
    "last_roof",
    "no_scoring_move",
    "resigned",
    "timeout",
    "forfeit",
    "cancelled",
    "expired",
]
ClientId: TypeAlias = Any
"""The ``id`` a client chose for its message (any JSON value), echoed back; None without one."""


class SeatState(TypedDict):
    seat: int
    username: str | None
    bot: BotLevel | None
    team: int | None
    score: int
    roofs_left: int
    hinted: bool
    resigned: bool
    """Out of the game: resigned or timed out (``out_reason`` says which)."""
    out_reason: OutReason | None
    rating: NotRequired[int | None]
    """The person's rating in the game's pool (before the game once it is rated); None for a
    bot or an empty seat. In the game page and ``GET /api/games/{id}/``, not in socket frames."""
    rating_change: NotRequired[int | None]
    """After the end: how much the game moved the rating (0 or more either way); None while the
    game runs or when it did not count (``rating_reason`` says why)."""
    rating_reason: NotRequired[str | None]
    """After the end: ``rated``, ``hint``, ``casual``, ``aborted`` or ``too_few_rated_players``."""


class SeatRating(TypedDict):
    """What the ratings app tells the game state of one seat (``games.selectors``)."""

    rating: int | None
    rating_change: int | None
    rating_reason: str | None


class Supply(TypedDict):
    suns: int
    shadows: int


class TurnState(TypedDict):
    ply: int
    seat: int
    move: str
    points: list[int]
    hint: bool
    at: str


class ResultState(TypedDict):
    end_reason: EndReason
    winners: list[int]
    scores: list[int]
    team_scores: list[int] | None
    aborted: NotRequired[bool]
    """Ended before every seat had played a turn: nobody won (``GameOutcome.aborted``)."""


class GameState(TypedDict):
    """The game as API.md describes it (REST and WebSocket alike)."""

    id: int
    status: GameStatus
    players: int
    mode: GameMode
    variant: GameVariant
    rated: bool
    turn_seconds: int
    seats: list[SeatState]
    board: list[str]
    siestas: list[str]
    """Per cell, how many siestas it is part of: 12 strings of digits (the engine's count)."""
    supply: Supply
    to_move: int | None
    ply: int
    version: int
    turns: list[TurnState]
    deadline: str | None
    forfeit_on_timeout: bool
    """A tournament game's first round of turns: the seat to move forfeits at ``deadline``."""
    created_at: str
    result: ResultState | None


class HintResult(TypedDict):
    """``POST /api/games/{id}/hint/`` and the ``hint`` frame: the engine's best turn."""

    move: str | None
    points: int


class TurnPreview(TypedDict):
    """A turn in progress checked (``check`` frame): nothing is stored."""

    points: list[int]
    complete: bool
    ends_game: bool


# -- the channel-layer event of a game's group --------------------------------------------------


class GameStateEvent(TypedDict):
    """``games.realtime.broadcast_game_state`` → ``GameConsumer.game_state``."""

    type: Literal["game.state"]
    game: GameState
    version: int


# -- frames the game socket sends -----------------------------------------------------------------


class StateFrame(TypedDict):
    type: Literal["state"]
    game: GameState
    version: int


class SyncFrame(TypedDict):
    """The answer to a ``sync`` at a version already sent (or the one the page said it holds):
    the page is up to date."""

    type: Literal["sync"]
    version: int


class AuthFrame(TypedDict):
    type: Literal["auth"]
    username: str


class AckFrame(TypedDict):
    type: Literal["ack"]
    id: ClientId
    ply: int
    points: list[int]


class HintFrame(HintResult):
    type: Literal["hint"]
    id: ClientId


class CheckFrame(TurnPreview):
    type: Literal["check"]
    id: ClientId
    ok: bool


class ErrorFrame(TypedDict):
    """A refusal, to the sender alone."""

    type: Literal["error"]
    error: str
    cell: str | None
    id: ClientId
    ply: NotRequired[int]
    """The current ply, when the refusal is about it (a stale move, a turn timed out)."""
    code: str
    """Why, for a program to branch on: the engine's refusal code (``games.engine.errors.CODES``),
    ``engine_budget`` / ``engine_limit`` / ``engine_busy`` for a hint the engine budget refused,
    else one of the sockets' codes (``core.sockets.ERROR_CODES``, the REST API's words)."""
    retry_after: NotRequired[int]
    """Whole seconds until the engine budget allows a hint again (with ``engine_budget``)."""


class PlainErrorFrame(TypedDict):
    """A refusal on the sockets without moves (lobby, tournaments)."""

    type: Literal["error"]
    error: str
    code: str
    """Why, for a program to branch on: one of ``core.sockets.ERROR_CODES``."""


GameFrame: TypeAlias = (
    StateFrame | SyncFrame | AuthFrame | AckFrame | HintFrame | CheckFrame | ErrorFrame
)
"""Every frame of ``/ws/games/{id}/`` without the social app's (``social.state.ChatFrame``)."""


# -- messages a client sends on the game socket ---------------------------------------------------


class AuthRequest(TypedDict):
    """A script signs in by API token, as its first message; answered by ``auth`` before the
    first ``state`` (docs/sockets.md, The handshake). Also on the lobby socket."""

    type: Literal["auth"]
    token: str


class SyncRequest(TypedDict):
    """The whole state again (also on the tournament and lobby sockets). On the game and
    tournament sockets a page may send the ``version`` it holds: the same as the server's is
    answered by ``sync``, any other by the whole ``state`` (``tournament``)."""

    type: Literal["sync"]
    version: NotRequired[int]


class MoveRequest(TypedDict):
    """Play a turn at ``ply`` (the game's current one) → ``ack`` to the sender, ``state`` to all."""

    type: Literal["move"]
    move: str
    ply: int
    id: NotRequired[ClientId]


class HintRequest(TypedDict):
    type: Literal["hint"]
    id: NotRequired[ClientId]


class ResignRequest(TypedDict):
    type: Literal["resign"]


class CheckRequest(TypedDict):
    """Preview a turn in progress (one to three placements); nothing is stored."""

    type: Literal["check"]
    move: str
    id: NotRequired[ClientId]
    ply: NotRequired[int]


GameRequest: TypeAlias = (
    AuthRequest | SyncRequest | MoveRequest | HintRequest | ResignRequest | CheckRequest
)
"""What a client sends on ``/ws/games/{id}/`` without the social app's (``social.state``)."""

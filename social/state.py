"""The shapes of the social app on the wire (API.md, "Play together"): the chat and rematch frames
that ``/ws/games/{id}/`` adds, the frames of ``/ws/lobby/`` (seeks, challenges, notices, presence)
and the channel-layer events that carry them (as ``games.state`` for the game itself)."""

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

from games.state import (
    AuthRequest,
    BotLevel,
    ClientId,
    GameMode,
    GameVariant,
    PlainErrorFrame,
    SyncRequest,
)
from tournaments.state import TournamentGameState

ChatRoom: TypeAlias = Literal["players", "spectators", "after", "tournament"]
SeekStatus: TypeAlias = Literal["waiting", "matched", "cancelled", "expired"]
ChallengeStatus: TypeAlias = Literal["pending", "accepted", "declined", "cancelled", "expired"]
NotificationKind: TypeAlias = Literal[
    "your_turn", "challenge", "challenge_answer", "tournament_round", "tournament_withdrawn"
]


# -- payloads (also what the REST API returns) ---------------------------------------------------


class ChatLine(TypedDict):
    """A chat line; also the ``chat`` frame (a preset's ``text`` is in the reader's language)."""

    type: Literal["chat"]
    id: int
    username: str
    text: str
    preset: str | None
    room: ChatRoom
    at: str


class RematchStatus(TypedDict):
    """``POST /api/games/{id}/rematch/`` (with ``asked``)."""

    game: int | None
    asked: list[str]
    waiting_for: list[str]


class SeekPayload(TypedDict):
    id: int
    status: SeekStatus
    game: int | None
    players: int
    mode: GameMode
    variant: GameVariant
    rated: bool
    turn_seconds: int
    rating_range: int | None
    bot_fill: bool
    bot_level: BotLevel
    created_at: str
    expires_at: str


ChallengePayload = TypedDict(
    "ChallengePayload",
    {
        "id": int,
        "from": str,
        "to": str,
        "variant": GameVariant,
        "rated": bool,
        "turn_seconds": int,
        "status": ChallengeStatus,
        "game": int | None,
        "created_at": str,
    },
)


class NotificationPayload(TypedDict):
    id: int
    kind: NotificationKind
    params: dict[str, Any]
    text: str
    """In the language of the page that receives it."""
    url: str
    read: bool
    at: str


# -- frames the game socket adds -----------------------------------------------------------------


class ChatHistoryFrame(TypedDict):
    type: Literal["chat_history"]
    room: ChatRoom
    muted: bool
    messages: list[ChatLine]


class ChatMuteFrame(TypedDict):
    type: Literal["chat_mute"]
    muted: bool


class ChatRemovedFrame(TypedDict):
    type: Literal["chat_removed"]
    id: int


class RematchOfferFrame(TypedDict):
    type: Literal["rematch_offer"]
    asked: list[str]
    waiting_for: list[str]


class RematchFrame(TypedDict):
    type: Literal["rematch"]
    game: int


ChatFrame: TypeAlias = (
    ChatLine
    | ChatHistoryFrame
    | ChatMuteFrame
    | ChatRemovedFrame
    | RematchOfferFrame
    | RematchFrame
)
"""The frames ``social.consumers.GameChatConsumer`` adds to ``games.state.GameFrame``."""


# -- frames of the lobby socket ------------------------------------------------------------------


class WelcomeFrame(TypedDict):
    """On connect and after ``auth``; a signed-in person also gets the rest."""

    type: Literal["welcome"]
    username: str | None
    online: int
    seek: NotRequired[SeekPayload | None]
    challenges: NotRequired[list[ChallengePayload]]
    unread: NotRequired[int]
    tournament_game: NotRequired[TournamentGameState | None]


class PongFrame(TypedDict):
    type: Literal["pong"]
    online: int


class SeekFrame(TypedDict):
    type: Literal["seek"]
    seek: SeekPayload


class ChallengeFrame(TypedDict):
    type: Literal["challenge"]
    challenge: ChallengePayload


class NotificationFrame(TypedDict):
    type: Literal["notification"]
    notification: NotificationPayload
    unread: int


class TournamentGameFrame(TournamentGameState):
    """A round was paired: the player's next game, to lead them there."""

    type: Literal["tournament_game"]


LobbyPush: TypeAlias = SeekFrame | ChallengeFrame | NotificationFrame | TournamentGameFrame
"""What the services push to a person's pages (``social.realtime.to_user``)."""

LobbyFrame: TypeAlias = WelcomeFrame | PongFrame | LobbyPush | PlainErrorFrame
"""Every frame of ``/ws/lobby/``."""


# -- channel-layer events ------------------------------------------------------------------------


class SocialMessageEvent(TypedDict):
    """To ``user.<id>``: a lobby frame for every page the person has open."""

    type: Literal["social.message"]
    message: LobbyPush


class ChatMessageEvent(TypedDict):
    type: Literal["chat.message"]
    message: ChatLine


class ChatRemovedEvent(TypedDict):
    type: Literal["chat.removed"]
    id: int


class RematchOfferEvent(TypedDict):
    type: Literal["rematch.offer"]
    asked: list[str]
    waiting_for: list[str]


class GameRematchEvent(TypedDict):
    type: Literal["game.rematch"]
    game: int


GameGroupEvent: TypeAlias = (
    ChatMessageEvent | ChatRemovedEvent | RematchOfferEvent | GameRematchEvent
)
"""What the social app sends to a game's group (``social.realtime.to_game``)."""

TournamentGroupEvent: TypeAlias = ChatMessageEvent | ChatRemovedEvent
"""What the social app sends to a tournament's group (``social.realtime.to_tournament``)."""


class ChatErrorFrame(TypedDict):
    """A refused chat message on the tournament socket (with the engine's ``code`` when any)."""

    type: Literal["error"]
    error: str
    id: ClientId
    code: str
    """The REST API's code for the same refusal (``conflict``, ``not_allowed``...)."""


TournamentChatFrame: TypeAlias = (
    ChatLine | ChatHistoryFrame | ChatMuteFrame | ChatRemovedFrame | ChatErrorFrame
)
"""The frames ``social.consumers.TournamentChatConsumer`` adds to the tournament socket's."""


# -- messages a client sends ----------------------------------------------------------------------


class ChatRequest(TypedDict):
    """A chat line: ``text`` (1 to 300 characters), or a ``preset`` (``hello``, ``good_luck``,
    ``gg``, ``wp``, ``thanks``) shown in each reader's language."""

    type: Literal["chat"]
    text: NotRequired[str]
    preset: NotRequired[str]


class ChatHistoryRequest(TypedDict):
    """The lines this connection may read → ``chat_history``."""

    type: Literal["chat_history"]


class ChatMuteRequest(TypedDict):
    """Mute or unmute every chat for this person → ``chat_mute``."""

    type: Literal["chat_mute"]
    muted: bool


class PingRequest(TypedDict):
    """The lobby's presence heartbeat, every 25 s → ``pong``."""

    type: Literal["ping"]


ChatRequests: TypeAlias = ChatRequest | ChatHistoryRequest | ChatMuteRequest
"""What the game and tournament sockets add for chat."""

LobbyRequest: TypeAlias = AuthRequest | PingRequest | SyncRequest
"""What a client sends on ``/ws/lobby/``."""

TournamentRequest: TypeAlias = SyncRequest | ChatRequests
"""What a client sends on ``/ws/tournaments/{id}/``."""

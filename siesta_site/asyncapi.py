"""The sockets described as data: an AsyncAPI 3.0 document of every frame of the site's
WebSockets, built from the ``TypedDict`` types of ``games/state.py``, ``social/state.py`` and
``tournaments/state.py`` (``siesta_site.typeschema``), so that a frame added or changed in the
code is in the document at once. Served at ``/api/asyncapi.json`` (``AsyncApiDocument``), beside
the OpenAPI schema; ``tests/siesta_site/test_asyncapi.py`` checks that the consumers send nothing
it lacks and that real frames validate against it.

The document describes the site: its ``send`` operations are the frames a client receives, its
``receive`` operations the messages a client sends. Frames the site sends are closed objects (no
key beyond those listed); messages it receives may carry more (they are ignored).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.base import SiestaApi
from core.sockets import ERROR_CODES
from games.engine.errors import CODES as ENGINE_CODES
from games.state import GameFrame, GameRequest
from siesta_site.typeschema import JsonSchema, SchemaBook, frame_type, members
from social.state import (
    ChatFrame,
    ChatRequests,
    LobbyFrame,
    LobbyRequest,
    TournamentChatFrame,
    TournamentRequest,
)
from tournaments.state import TournamentSocketFrame

ENGINE_BUDGET_CODES = ("engine_budget", "engine_queue", "engine_limit", "engine_busy")
"""A hint the engine budget refused (``games.engine_budget``)."""

VERSION = "1"
"""The protocol's version (API.md's "Live play"): additions keep it; a change needs a new one."""


@dataclass(frozen=True)
class Socket:
    """One WebSocket route and the frames that travel on it."""

    name: str
    address: str
    description: str
    sends: Any
    """The union of the frames the site sends (``TypedDict`` types)."""
    receives: Any
    """The union of the messages the site reads."""
    parameters: tuple[str, ...] = ()


SOCKETS = (
    Socket(
        name="game",
        address="/ws/games/{id}/",
        description=(
            "Live play (API.md): anyone watches, the seat to move plays. A script signs in with "
            "`auth` as its first message and gets `auth` before the first `state`; every socket "
            "gets one `state` on connect, then one per change (`version` rises by one; on a gap, "
            "send `sync`)."
        ),
        sends=GameFrame | ChatFrame,
        receives=GameRequest | ChatRequests,
        parameters=("id",),
    ),
    Socket(
        name="lobby",
        address="/ws/lobby/",
        description=(
            "A signed-in person's pages: one `welcome` on connect (after a script's `auth`, the "
            "signed-in one), then pushes of seeks, challenges, notices and tournament games."
        ),
        sends=LobbyFrame,
        receives=LobbyRequest,
    ),
    Socket(
        name="tournament",
        address="/ws/tournaments/{id}/",
        description=(
            "A tournament: `tournament` on connect, on `sync` and at each new version; its chat."
        ),
        sends=TournamentSocketFrame | TournamentChatFrame,
        receives=TournamentRequest,
        parameters=("id",),
    ),
)


def _message_key(kind: str, name: str, direction: str, used: set[str]) -> str:
    """A channel's name for a message: its ``type``, with ``_request`` for a client's message of
    a type the site sends too (``auth``, ``sync``, ``hint``...); the ``TypedDict``'s name when a
    type has two shapes (the tournament socket's plain and chat ``error``)."""
    key = f"{kind}_request" if direction == "receive" and kind in used else kind
    if key in used:
        key = name
    used.add(key)
    return key


def error_codes(*, game: bool) -> list[str]:
    """Every ``code`` an ``error`` frame may carry: the sockets' (the REST API's words), and on
    the game socket the engine's refusal codes and the engine budget's."""
    codes = list(ERROR_CODES)
    if game:
        codes += [*ENGINE_CODES, *ENGINE_BUDGET_CODES]
    return codes


def _list_error_codes(book: SchemaBook, payload: JsonSchema, *, game: bool) -> None:
    """Give the ``code`` of an ``error`` frame's schema its closed list of values."""
    schema = payload
    ref = payload.get("$ref")
    if isinstance(ref, str):
        schema = book.schemas[ref.rsplit("/", 1)[-1]]
    code = schema["properties"]["code"]
    code["enum"] = sorted(set(code.get("enum", [])) | set(error_codes(game=game)))


def document(server_host: str = "localhost:8000", secure: bool = False) -> dict[str, Any]:
    """The AsyncAPI 3.0 document; ``server_host`` names the server it is served from."""
    book = SchemaBook()
    channels: dict[str, Any] = {}
    operations: dict[str, Any] = {}
    messages: dict[str, JsonSchema] = {}
    for socket in SOCKETS:
        channel_messages: dict[str, Any] = {}
        used: set[str] = set()
        by_direction: dict[str, list[str]] = {"send": [], "receive": []}
        for direction, union, closed in (
            ("send", socket.sends, True),
            ("receive", socket.receives, False),
        ):
            for typed_dict in members(union):
                name = typed_dict.__name__
                kind = frame_type(typed_dict)
                payload = book.schema(typed_dict, closed=closed)
                if kind == "error" and direction == "send":
                    _list_error_codes(book, payload, game=socket.name == "game")
                summary = (typed_dict.__dict__.get("__doc__") or "").strip().split("\n\n")[0]
                messages[name] = {
                    "name": kind,
                    "title": name,
                    **({"summary": " ".join(summary.split())} if summary else {}),
                    "payload": payload,
                }
                key = _message_key(kind, name, direction, used)
                channel_messages[key] = {"$ref": f"#/components/messages/{name}"}
                by_direction[direction].append(key)
        channels[socket.name] = {
            "address": socket.address,
            "description": socket.description,
            "messages": channel_messages,
        }
        if socket.parameters:
            channels[socket.name]["parameters"] = {
                name: {"description": f"The {socket.name}'s id."} for name in socket.parameters
            }
        for direction, keys in by_direction.items():
            verb = "Sends" if direction == "send" else "Receives"
            operations[f"{socket.name}_{direction}"] = {
                "action": direction,
                "channel": {"$ref": f"#/channels/{socket.name}"},
                "summary": f"{verb} on {socket.address}",
                "messages": [{"$ref": f"#/channels/{socket.name}/messages/{key}"} for key in keys],
            }
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Siesta WebSockets",
            "version": VERSION,
            "description": (
                "The site's sockets, generated from the TypedDicts of games/state.py, "
                "social/state.py and tournaments/state.py. JSON text frames of at most 4096 "
                "bytes. Scripts send no Origin and sign in with `auth`; browsers use their "
                "session cookie. The REST API is at /api/schema/ (OpenAPI)."
            ),
        },
        "defaultContentType": "application/json",
        "servers": {
            "site": {
                "host": server_host,
                "protocol": "wss" if secure else "ws",
                "description": "The site that served this document.",
            }
        },
        "channels": channels,
        "operations": operations,
        "components": {"messages": messages, "schemas": book.schemas},
    }


class AsyncApiDocument(SiestaApi):
    """``GET /api/asyncapi.json``: the document, naming the server asked (a DRF view, so that
    other methods get the API's JSON errors)."""

    @extend_schema(
        summary="The WebSockets' frames as an AsyncAPI 3.0 document",
        responses={200: OpenApiTypes.OBJECT},
        tags=["schema"],
    )
    def get(self, request: Request) -> Response:
        return Response(document(request.get_host(), request.is_secure()))

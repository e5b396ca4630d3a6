"""``GET /api/users/{username}/games/export/``: a person's finished games as NDJSON, one game
record per line (the record of ``GET /api/games/{id}/record/``, with the game's id and end).

The answer streams: games are read page by page (``EXPORT_PAGE`` at a time, keyset on the
finish time and id, ``games.selectors.finished_games_page``) and each page is written out before
the next is read, so neither the site nor the client holds the whole list. Under ASGI (Daphne,
the site's server) the lines come from an async generator that reads each page in the request's
sync thread: Django would read a plain iterator to its end before sending anything there. Under
WSGI (the test client, schemathesis) they come from a plain generator, for the same reason the
other way round.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import StreamingHttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request

from core.api.base import SiestaApi
from core.api.errors import error_responses
from games import selectors
from games.api.serializers import ExportedGameSerializer
from games.models import Game

EXPORT_PAGE = 50
"""Games read from the database at a time."""

NDJSON = "application/x-ndjson"


def export_line(game: Game) -> bytes:
    """One line of the export: ``ExportedGameSerializer``'s shape."""
    line = {
        "id": game.pk,
        "finished_at": selectors.api_datetime(game.finished_at),
        **selectors.game_record(game),
    }
    return json.dumps(line, separators=(",", ":")).encode() + b"\n"


def export_page(
    query: dict[str, Any], after: selectors.ExportCursor | None
) -> tuple[list[bytes], selectors.ExportCursor | None]:
    """The lines of one page, and where the next page starts (None: this was the last)."""
    games = selectors.finished_games_page(**query, after=after, size=EXPORT_PAGE)
    lines = [export_line(game) for game in games]
    if len(games) < EXPORT_PAGE:
        return lines, None
    last = games[-1]
    assert last.finished_at is not None  # the selector reads finished games only
    return lines, (last.finished_at, last.pk)


def lines_sync(query: dict[str, Any]) -> Iterator[bytes]:
    after: selectors.ExportCursor | None = None
    while True:
        lines, after = export_page(query, after)
        yield from lines
        if after is None:
            return


async def lines_async(query: dict[str, Any]) -> AsyncIterator[bytes]:
    after: selectors.ExportCursor | None = None
    while True:
        lines, after = await sync_to_async(export_page)(query, after)
        for line in lines:
            yield line
        if after is None:
            return


class FirstRenderer(BaseContentNegotiation):
    """JSON for the errors whatever the client accepts (the stream sets its own type): DRF's
    ``IgnoreClientContentNegotiation``."""

    def select_parser(self, request: Request, parsers: Any) -> Any:
        return parsers[0]

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        first = next(iter(renderers))
        return first, str(first.media_type)


class GameExportApi(SiestaApi):
    renderer_classes = [JSONRenderer]
    content_negotiation_class = FirstRenderer

    @extend_schema_serializer(component_name="GameExportFilter")
    class FilterSerializer(serializers.Serializer[Any]):
        since = serializers.DateField(
            required=False, help_text="Finished on this UTC day or later (YYYY-MM-DD)."
        )
        until = serializers.DateField(
            required=False, help_text="Finished on this UTC day or earlier (YYYY-MM-DD)."
        )

    @extend_schema(
        tags=["games"],
        summary="A player's finished games, as NDJSON",
        description="One JSON object per line (`application/x-ndjson`), oldest finish first: "
        "each game's record (as `GET /api/games/{id}/record/`) with its `id` and "
        "`finished_at`. Streamed: read it line by line.",
        parameters=[FilterSerializer],
        responses={
            (200, NDJSON): OpenApiResponse(
                ExportedGameSerializer, description="Each line one ExportedGame object."
            ),
            **error_responses(
                e400="A date that is not YYYY-MM-DD.", e404="There is no such player."
            ),
        },
    )
    def get(self, request: Request, username: str) -> StreamingHttpResponse:
        filters = self.FilterSerializer(data=request.query_params.dict())
        filters.is_valid(raise_exception=True)
        player = selectors.player_or_not_found(username)
        # Their private games only to themselves (``finished_games_page``).
        viewer = request.user.pk if request.user.is_authenticated else None
        query = {"user_id": player.pk, "viewer_id": viewer, **filters.validated_data}
        under_asgi = isinstance(request._request, ASGIRequest)
        lines = lines_async(query) if under_asgi else lines_sync(query)
        response = StreamingHttpResponse(lines, content_type=NDJSON)
        response["X-Accel-Buffering"] = "no"  # nginx passes the lines on as they come
        return response

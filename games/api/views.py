"""The games API (API.md, Games): thin interfaces over ``games.services`` (writes) and
``games.selectors`` (reads). Each view parses its input, calls one service or selector and shapes
the answer; errors take the shape described in ``core.api.errors``."""

from __future__ import annotations

from typing import Any, cast

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.pagination import BasePagination
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings

from core.api.base import SiestaApi, signed_in_user
from core.api.errors import error_responses
from core.api.fields import QueryBooleanField, StrictBooleanField
from core.api.serializers import IllegalMoveErrorSerializer, StalePlyErrorSerializer
from core.credentials import PLAY
from core.throttling import client_address
from games import selectors, services
from games.api.base import GameRouteApi
from games.api.serializers import GameRecordSerializer, GameSerializer
from games.models import Game, Seat
from games.state import GameState


def _game_state(game_id: int) -> GameState:
    return selectors.game_state(selectors.game_or_not_found(game_id))


NEEDS_USER = {
    "e401": "No credentials, or a bad token.",
    "e403": "A session sent no CSRF token.",
}
NO_GAME = {"e404": "There is no such game."}
NOT_YOUR_TURN = (
    "Not the caller's turn, the caller is not in the game, or a session sent no CSRF token."
)


@extend_schema_serializer(component_name="BotSeat")
class BotSeatSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField(min_value=2, max_value=4)
    level = serializers.ChoiceField(choices=Seat.BotLevel.choices)


class GameListCreateApi(SiestaApi):
    write_scope = PLAY
    pagination_class = cast(type[BasePagination], api_settings.DEFAULT_PAGINATION_CLASS)

    @extend_schema_serializer(component_name="GameFilter")
    class FilterSerializer(serializers.Serializer[Any]):
        status = serializers.ChoiceField(choices=Game.Status.choices, required=False)
        player = serializers.CharField(
            max_length=150, required=False, allow_blank=True, help_text="A username."
        )
        mode = serializers.ChoiceField(choices=Game.Mode.choices, required=False)
        variant = serializers.ChoiceField(choices=Game.Variant.choices, required=False)
        rated = QueryBooleanField(required=False, help_text="true or false.")
        since = serializers.DateField(
            required=False, help_text="Created on this UTC day or later (YYYY-MM-DD)."
        )

    @extend_schema_serializer(component_name="GameCreateInput")
    class InputSerializer(serializers.Serializer[Any]):
        players = serializers.IntegerField(min_value=2, max_value=4, default=2)
        mode = serializers.ChoiceField(
            choices=Game.Mode.choices, default=Game.Mode.FFA, help_text="Teams need 4 players."
        )
        variant = serializers.ChoiceField(
            choices=Game.Variant.choices, default=Game.Variant.STANDARD
        )
        rated = StrictBooleanField(default=True)
        turn_seconds = serializers.IntegerField(
            min_value=Game.MIN_TURN_SECONDS,
            max_value=Game.MAX_TURN_SECONDS,
            default=Game.DEFAULT_TURN_SECONDS,
        )
        bots = serializers.ListField(
            child=BotSeatSerializer(),
            default=list,
            max_length=3,
            help_text="Seats (2..players) played by bots.",
        )

    @extend_schema(
        tags=["games"],
        summary="List games, newest first",
        description="Each filter given narrows the list; `page_size` sets the page's length.",
        parameters=[FilterSerializer],
        responses={
            200: GameSerializer(many=True),
            **error_responses(e400="An unknown filter value, a bad date or page size."),
        },
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params.dict())
        filters.is_valid(raise_exception=True)
        games = selectors.game_list(**filters.validated_data, viewer=request.user)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(games, request, view=self) or []
        return paginator.get_paginated_response([selectors.game_state(game) for game in page])

    @extend_schema(
        tags=["games"],
        summary="Open a game; the caller takes seat 1",
        description="When bots fill every other seat, the game starts at once.",
        request=InputSerializer,
        responses={
            201: GameSerializer,
            **error_responses(
                e400="Invalid options: 'error' and the field errors.",
                e409="A per-user limit is reached: open games waiting for players, or "
                "unfinished games with bots.",
                **NEEDS_USER,
            ),
        },
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        options = dict(data.validated_data)
        bots = [services.BotSpec(**bot) for bot in options.pop("bots")]
        game = services.game_create(user=signed_in_user(request), bots=bots, **options)
        return Response(_game_state(game.pk), status=status.HTTP_201_CREATED)


class GameDetailApi(GameRouteApi):
    @extend_schema(
        tags=["games"],
        summary="A game",
        responses={200: GameSerializer, **error_responses(**NO_GAME)},
    )
    def get(self, request: Request, game_id: int) -> Response:
        return Response(selectors.game_state(selectors.game_or_not_found(game_id), ratings=True))


class GameJoinApi(GameRouteApi):
    write_scope = PLAY

    @extend_schema(
        tags=["games"],
        summary="Take the lowest free seat",
        description="The game starts when its last seat is filled.",
        request=None,
        responses={
            200: GameSerializer,
            **error_responses(
                e409="The game is full or started, the caller already has a seat, or the "
                "caller's limit of unfinished games with bots is reached.",
                **NEEDS_USER,
                **NO_GAME,
            ),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        services.game_join(game_id=game_id, user=signed_in_user(request))
        return Response(_game_state(game_id))


class GameCancelApi(GameRouteApi):
    write_scope = PLAY

    @extend_schema(
        tags=["games"],
        summary="Cancel an open game (its creator)",
        description="The game leaves the lobby with status 'cancelled' (result.end_reason "
        "'cancelled'); watchers get the new state. Open games nobody completes in time are "
        "cancelled the same way with end_reason 'expired'.",
        request=None,
        responses={
            200: GameSerializer,
            **error_responses(
                e401=NEEDS_USER["e401"],
                e403="The caller did not open the game, or a session sent no CSRF token.",
                e409="The game has already started or ended.",
                **NO_GAME,
            ),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        services.game_cancel(game_id=game_id, user=signed_in_user(request))
        return Response(_game_state(game_id))


class GameMoveApi(GameRouteApi):
    write_scope = PLAY

    @extend_schema_serializer(component_name="MoveInput")
    class InputSerializer(serializers.Serializer[Any]):
        move = serializers.CharField(max_length=100, help_text="Like SF5 RF6 HF7.")
        ply = serializers.IntegerField(
            min_value=0, help_text="The game's current ply (turns played so far)."
        )

    @extend_schema_serializer(component_name="MoveOutput")
    class OutputSerializer(serializers.Serializer[Any]):
        ply = serializers.IntegerField(help_text="The game's ply after this turn.")
        points = serializers.ListField(child=serializers.IntegerField(), help_text="Per seat.")

    @extend_schema(
        tags=["games"],
        summary="Play a turn",
        description="The new state is pushed to every watcher of the game.",
        request=InputSerializer,
        responses={
            201: OutputSerializer,
            400: OpenApiResponse(
                IllegalMoveErrorSerializer,
                description="An illegal move (nothing changes), or invalid input.",
            ),
            409: OpenApiResponse(
                StalePlyErrorSerializer,
                description="'ply' is not the current one (a stale or repeated submit), "
                "or the game is not in progress.",
            ),
            **error_responses(
                e401=NEEDS_USER["e401"],
                e403=NOT_YOUR_TURN,
                **NO_GAME,
            ),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = services.game_move_make(
            game_id=game_id, user=signed_in_user(request), **data.validated_data
        )
        output = self.OutputSerializer({"ply": result.ply, "points": result.points})
        return Response(output.data, status=status.HTTP_201_CREATED)


class GameHintApi(GameRouteApi):
    write_scope = PLAY

    @extend_schema_serializer(component_name="Hint")
    class OutputSerializer(serializers.Serializer[Any]):
        move = serializers.CharField(allow_null=True, help_text="A best turn, like SF5 RF6 HF7.")
        points = serializers.IntegerField(help_text="What that turn scores for the caller.")

    @extend_schema(
        tags=["games"],
        summary="The engine's best turn for the caller",
        description="Marks the caller as hinted in this game, and their next turn as hinted. "
        "The search draws from the caller's engine budget.",
        request=None,
        responses={
            200: OutputSerializer,
            **error_responses(
                e401=NEEDS_USER["e401"],
                e403=NOT_YOUR_TURN,
                e409="The game is not in progress (or moved on during the search).",
                e429="The caller's engine budget is spent: `code` `engine_budget`, "
                "`retry_after` seconds (also the `Retry-After` header).",
                **NO_GAME,
            ),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        hint = services.game_hint(
            game_id=game_id, user=signed_in_user(request), address=client_address(request)
        )
        return Response(self.OutputSerializer(hint).data)


class GameResignApi(GameRouteApi):
    write_scope = PLAY

    @extend_schema(
        tags=["games"],
        summary="Resign",
        description="With two players the game ends; otherwise a bot plays on for the seat.",
        request=None,
        responses={
            200: GameSerializer,
            **error_responses(
                e401=NEEDS_USER["e401"],
                e403="The caller is not in the game, or a session sent no CSRF token.",
                e409="The game is not in progress, or the caller is already out.",
                **NO_GAME,
            ),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        services.game_resign(game_id=game_id, user=signed_in_user(request))
        return Response(_game_state(game_id))


class GameRecordApi(GameRouteApi):
    # The record is a file format: always JSON (no browsable page), also as a download.
    renderer_classes = [JSONRenderer]

    @extend_schema_serializer(component_name="RecordFilter")
    class FilterSerializer(serializers.Serializer[Any]):
        download = serializers.BooleanField(
            default=False, help_text="Answer as an attachment named siesta-game-<id>.json."
        )

    @extend_schema(
        tags=["games"],
        summary="The game record (RULES.md)",
        description="Replaying it with the engine reproduces the game's scores.",
        parameters=[FilterSerializer],
        responses={200: GameRecordSerializer, **error_responses(**NO_GAME)},
    )
    def get(self, request: Request, game_id: int) -> Response:
        options = self.FilterSerializer(data=request.query_params.dict())
        options.is_valid(raise_exception=True)
        response = Response(selectors.game_record(selectors.game_or_not_found(game_id)))
        if options.validated_data["download"]:
            filename = f"siesta-game-{game_id}.json"
            response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response

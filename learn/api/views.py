"""The learn API: the analysis board's engine answers and puzzle attempts. Thin interfaces over
``learn.board`` (pure engine work) and ``learn.services``; anyone may call them (signed out
too). The analysis calls cost CPU: they share a scoped throttle (``analysis``) and, with hints
and puzzle checks, the caller's engine budget (``games.engine_budget``: 429 with
``Retry-After`` when spent); their searches run in the engine pool."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext_lazy
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
)
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle

from core.api.base import SiestaApi
from core.api.errors import error_responses
from core.api.pagination import PageNumberPagination
from core.api.serializers import ErrorSerializer, IllegalMoveErrorSerializer
from core.credentials import PLAY, READ
from games.engine_budget import request_caller, search
from games.models import Game
from learn import board, selectors, services
from learn.messages import board_error_message, translate_line
from learn.models import Puzzle
from learn.views import DONE_KEY, puzzle_done, source_links, theme_names

RECORD_HELP = "A game record (RULES.md, Notation); the position after its moves is analysed."
POSITION_HELP = (
    'A position: {"players", "variant", "board": [12 strings], "to_move", "supply": {"suns", '
    '"shadows", "roofs": [...]}, "scores"}, every key optional as in a record\'s setup. It must '
    "be one that could arise in a game; a problem names its cell."
)


@extend_schema_field({"type": "object", "additionalProperties": True})
class _ObjectField(serializers.JSONField):
    """A JSON object (what the record and the position are; anything else is a 400)."""

    default_error_messages = {"invalid": gettext_lazy("Must be a JSON object.")}

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, dict):
            self.fail("invalid")
        return super().to_internal_value(data)


@extend_schema_serializer(component_name="AnalysisInput")
class PositionInputSerializer(serializers.Serializer[Any]):
    record = _ObjectField(required=False, help_text=RECORD_HELP)
    position = _ObjectField(required=False, help_text=POSITION_HELP)


BAD_INPUT = OpenApiResponse(
    IllegalMoveErrorSerializer,
    description="The record or position cannot be read, is impossible, or a move is illegal; "
    "`cell` names the cell at fault when there is one.",
)
THROTTLED = OpenApiResponse(
    ErrorSerializer,
    description="Too many analysis requests, or the caller's engine budget is spent (`code` "
    "`engine_budget`, `retry_after` seconds, as the `Retry-After` header).",
)


class AnalysisApi(SiestaApi):
    permission_classes = [AllowAny]
    write_scope = READ  # these POSTs compute; they change nothing
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "analysis"

    def answer(
        self,
        request: Request,
        serializer: type[serializers.Serializer[Any]],
        compute: Callable[..., dict[str, Any]],
        *fields: str,
    ) -> Response:
        """Validate the body, read its record or position, and answer ``compute(record, *the
        fields' values)``, run in the engine pool on the caller's budget."""
        data = serializer(data=request.data)
        data.is_valid(raise_exception=True)
        args = [data.validated_data[field] for field in fields]
        try:
            record = board.read_record(data.validated_data)
            result = search(request_caller(request), compute, record, *args)
        except board.BoardInputError as exc:
            body = {
                "error": board_error_message(exc),
                "code": exc.code or "invalid",
                "cell": exc.cell,
            }
            return Response(body, status=400)
        return Response(translate_line(result) if compute is board.line_states else result)


class AnalysisBestApi(AnalysisApi):
    @extend_schema_serializer(component_name="AnalysisBestInput")
    class InputSerializer(PositionInputSerializer):
        count = serializers.IntegerField(
            required=False,
            default=5,
            min_value=1,
            max_value=board.MAX_TOP,
            help_text="How many of the best turns to list in `top`.",
        )

    @extend_schema_serializer(component_name="TopTurn")
    class TopSerializer(serializers.Serializer[Any]):
        move = serializers.CharField()
        points = serializers.IntegerField()

    @extend_schema_serializer(component_name="AnalysisBest")
    class OutputSerializer(serializers.Serializer[Any]):
        points = serializers.IntegerField(help_text="The most any legal turn scores the mover.")
        move = serializers.CharField(allow_null=True, help_text="A turn that scores that much.")
        top = serializers.ListField(
            child=serializers.DictField(),
            help_text="Up to `count` turns with distinct scoring placements, most points first: "
            '[{"move", "points"}].',
        )
        seat = serializers.IntegerField(allow_null=True, help_text="The player to move.")

    @extend_schema(
        tags=["analysis"],
        summary="The exact best turn and the best few",
        description="Send `record` or `position`. Exact: no legal turn scores more than "
        "`points` for the player to move. Throttled (scope `analysis`).",
        request=InputSerializer,
        responses={200: OutputSerializer, 400: BAD_INPUT, 429: THROTTLED},
    )
    def post(self, request: Request) -> Response:
        return self.answer(request, self.InputSerializer, board.best_for, "count")


class AnalysisLineApi(AnalysisApi):
    @extend_schema_serializer(component_name="AnalysisLine")
    class OutputSerializer(serializers.Serializer[Any]):
        players = serializers.IntegerField()
        variant = serializers.CharField()
        setup = serializers.JSONField(allow_null=True)
        turns = serializers.ListField(
            child=serializers.DictField(), help_text='[{"move", "seat", "points": [...]}]'
        )
        states = serializers.ListField(
            child=serializers.DictField(),
            help_text='Before the first move and after each: [{"board", "scores", "to_move", '
            '"supply", "over", "end_reason"}].',
        )
        error = serializers.JSONField(
            allow_null=True, help_text='The first illegal move: {"turn", "message", "cell"}.'
        )

    @extend_schema(
        tags=["analysis"],
        summary="Every position along a line",
        description="The positions of a record (or of a bare position) move by move. "
        "Throttled (scope `analysis`).",
        request=PositionInputSerializer,
        responses={200: OutputSerializer, 400: BAD_INPUT, 429: THROTTLED},
    )
    def post(self, request: Request) -> Response:
        return self.answer(request, PositionInputSerializer, board.line_states)


class AnalysisTurnApi(AnalysisApi):
    @extend_schema_serializer(component_name="AnalysisTurnInput")
    class InputSerializer(PositionInputSerializer):
        move = serializers.CharField(help_text="One to three placements, like SF5 RF6.")

    @extend_schema_serializer(component_name="AnalysisTurnInProgress")
    class OutputSerializer(serializers.Serializer[Any]):
        seat = serializers.IntegerField()
        move = serializers.CharField()
        points = serializers.ListField(child=serializers.IntegerField(), help_text="Per seat.")
        so_far = serializers.IntegerField(help_text="What the placements score the mover.")
        reachable = serializers.IntegerField(
            help_text="The most a legal turn starting with them scores (0: none scores)."
        )
        complete = serializers.BooleanField(help_text="They are a whole legal turn.")
        end_reason = serializers.CharField(allow_null=True)

    @extend_schema(
        tags=["analysis"],
        summary="A turn in progress",
        description="Checks the placements in order (an illegal one names its cell) and finds "
        "the most the turn can still reach. Throttled (scope `analysis`).",
        request=InputSerializer,
        responses={200: OutputSerializer, 400: BAD_INPUT, 429: THROTTLED},
    )
    def post(self, request: Request) -> Response:
        return self.answer(request, self.InputSerializer, board.turn_in_progress, "move")


@extend_schema_serializer(component_name="PuzzleAttempt")
class PuzzleResultSerializer(serializers.Serializer[Any]):
    move = serializers.CharField(
        allow_blank=True, help_text='The turn tried; empty ("") for a give-up.'
    )
    points = serializers.IntegerField(help_text="What the turn scores.")
    solved = serializers.BooleanField(help_text="points == best_points.")
    gave_up = serializers.BooleanField(help_text="The answer was asked for (a loss).")
    rated = serializers.BooleanField(help_text="The caller's first result, signed in.")
    practice = serializers.BooleanField(
        help_text="Not the caller's first result on this puzzle: no rating or streak moves."
    )
    best_points = serializers.IntegerField(
        allow_null=True, help_text="The most any turn scores; null after a wrong turn."
    )
    solution = serializers.CharField(
        allow_null=True, help_text="One turn that scores best_points; null after a wrong turn."
    )
    cores = serializers.ListField(
        child=serializers.CharField(),
        allow_null=True,
        help_text="Every distinct set of scoring placements; null after a wrong turn.",
    )
    rating_before = serializers.FloatField(allow_null=True)
    rating_after = serializers.FloatField(allow_null=True)
    puzzle_rating = serializers.FloatField()
    streak = serializers.IntegerField(allow_null=True)
    themes = serializers.ListField(
        child=serializers.CharField(),
        allow_null=True,
        help_text="The puzzle's themes, in the reader's language; null after a wrong turn "
        "(they would give the answer away).",
    )
    source = serializers.DictField(  # type: ignore[assignment]
        allow_null=True,
        help_text='{"game": id|null, "ply", "url", "replay", "label"}; null after a wrong turn.',
    )


class PuzzleApi(SiestaApi):
    permission_classes = [AllowAny]
    write_scope = PLAY

    def answer(self, request: Request, result: services.AttemptResult) -> Response:
        """The result in the API's words; the answer (solution, best points, the source game,
        whose replay and analysis would show it) only after a solve or a give-up."""
        puzzle = result.puzzle
        session = request.session
        streak = result.streak
        if not request.user.is_authenticated:  # signed out: the streak lives in the session
            streak = session.get("puzzle_streak", 0)
            if not result.practice:
                streak = streak + 1 if result.solved else 0
                session["puzzle_streak"] = streak
        if not result.practice and request.auth is None:  # a token's player has their rows
            session[DONE_KEY] = [*session.get(DONE_KEY, []), puzzle.pk][-500:]
        shown = result.revealed
        return Response(
            {
                "move": result.move,
                "points": result.points,
                "solved": result.solved,
                "gave_up": result.gave_up,
                "rated": result.rated,
                "practice": result.practice,
                "best_points": puzzle.best_points if shown else None,
                "solution": puzzle.solution if shown else None,
                "cores": puzzle.cores if shown else None,
                "rating_before": result.rating_before,
                "rating_after": result.rating_after,
                "puzzle_rating": puzzle.rating,
                "streak": streak,
                "source": source_links(puzzle) if shown else None,
                "themes": theme_names(puzzle) if shown else None,
                "kind": puzzle.kind,
            }
        )


@extend_schema_serializer(component_name="PuzzleSupply")
class PuzzleSupplySerializer(serializers.Serializer[Any]):
    suns = serializers.IntegerField()
    shadows = serializers.IntegerField()
    roofs = serializers.ListField(child=serializers.IntegerField(), help_text="Per seat.")


@extend_schema_serializer(component_name="PuzzleSummary")
class PuzzleSummarySerializer(serializers.Serializer[Any]):
    """A puzzle of the list: its position and standing, nothing of the answer (no solution, no
    best points, no themes: the filter names the one asked for), as on the list page."""

    id = serializers.IntegerField()
    players = serializers.IntegerField(min_value=2, max_value=4)
    variant = serializers.ChoiceField(choices=Game.Variant.choices)
    board = serializers.ListField(
        child=serializers.CharField(), min_length=12, max_length=12, help_text="12 rows."
    )
    to_move = serializers.IntegerField(help_text="The seat to play the best turn.")
    supply = PuzzleSupplySerializer()
    scores = serializers.ListField(child=serializers.IntegerField(), help_text="Per seat.")
    difficulty = serializers.IntegerField(min_value=1, max_value=5)
    kind = serializers.ChoiceField(
        choices=Puzzle.Kind.choices,
        help_text="most_points: the most points now; best_turn: the expert's look-ahead.",
    )
    rating = serializers.FloatField(help_text="The puzzle's rating (Elo against solvers).")
    attempts = serializers.IntegerField(help_text="First results of players on it.")
    solved = serializers.IntegerField(help_text="Of those, solves.")
    mine = serializers.SerializerMethodField(
        help_text="The caller's best result on it: solved, tried, or null (none, or signed out)."
    )

    @extend_schema_field({"type": "string", "enum": ["solved", "tried"], "nullable": True})
    def get_mine(self, puzzle: Any) -> str | None:
        return MINE.get(puzzle.mine)


MINE = {2: "solved", 1: "tried"}
"""``learn.selectors.puzzle_list``'s ``mine`` in the API's words."""


class PuzzleListApi(SiestaApi):
    permission_classes = [AllowAny]
    pagination_class = PageNumberPagination

    @extend_schema_serializer(component_name="PuzzleFilter")
    class FilterSerializer(serializers.Serializer[Any]):
        theme = serializers.ChoiceField(choices=Puzzle.Theme.choices, required=False)
        difficulty = serializers.IntegerField(min_value=1, max_value=5, required=False)
        kind = serializers.ChoiceField(
            choices=Puzzle.Kind.choices,
            required=False,
            help_text="most_points (the most points now, exact) or best_turn (the expert's "
            "look-ahead).",
        )

    @extend_schema(
        tags=["puzzles"],
        summary="List puzzles, easiest first",
        description="Filter by theme, difficulty (1..5) and kind; `page_size` sets the page's "
        "length. Try one with POST /api/puzzles/{id}/attempts/.",
        parameters=[FilterSerializer],
        responses={
            200: PuzzleSummarySerializer(many=True),
            **error_responses(
                e400="An unknown theme or kind, a difficulty out of 1..5, a bad page size."
            ),
        },
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params.dict())
        filters.is_valid(raise_exception=True)
        puzzles = selectors.puzzle_list(user=request.user, **filters.validated_data)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(puzzles, request, view=self) or []
        return paginator.get_paginated_response(PuzzleSummarySerializer(page, many=True).data)


PUZZLE_NOT_FOUND = OpenApiResponse(ErrorSerializer, description="There is no such puzzle.")


class PuzzleAttemptApi(PuzzleApi):
    @extend_schema_serializer(component_name="PuzzleAttemptInput")
    class InputSerializer(serializers.Serializer[Any]):
        move = serializers.CharField(help_text="A whole turn, like SF5 RF6 HF7.")

    @extend_schema(
        tags=["puzzles"],
        summary="Try a puzzle",
        description="Solved when the turn scores the maximum (any maximal turn counts); for a "
        "puzzle of kind best_turn, when its line after the others' best replies is worth the "
        "expert's (a look-ahead search, not exact). A wrong "
        "turn says so and shows nothing of the answer: try again, or give up. Signed in, the "
        "first result on a puzzle is rated (Elo against the puzzle's rating); later ones are "
        "practice.",
        request=InputSerializer,
        responses={
            200: PuzzleResultSerializer,
            400: OpenApiResponse(IllegalMoveErrorSerializer, description="An illegal turn."),
            404: PUZZLE_NOT_FOUND,
            429: THROTTLED,
        },
    )
    def post(self, request: Request, puzzle_id: int) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        # A refused attempt (services.PuzzleError, a spent engine budget) answers as every domain
        # error does.
        result = services.puzzle_attempt_make(
            puzzle_id=puzzle_id,
            move=data.validated_data["move"],
            user=request.user if request.user.is_authenticated else None,
            seen=puzzle_done(request.session, puzzle_id),
            budget=request_caller(request),
        )
        return self.answer(request, result)


class PuzzleGiveUpApi(PuzzleApi):
    @extend_schema(
        tags=["puzzles"],
        summary="Give up: show the answer",
        description="Answers with the solution. Signed in, as the first result on a puzzle it "
        "is rated as a loss; signed out it rates nothing. No body.",
        request=None,
        responses={200: PuzzleResultSerializer, 404: PUZZLE_NOT_FOUND},
    )
    def post(self, request: Request, puzzle_id: int) -> Response:
        result = services.puzzle_give_up(
            puzzle_id=puzzle_id,
            user=request.user if request.user.is_authenticated else None,
            seen=puzzle_done(request.session, puzzle_id),
        )
        return self.answer(request, result)

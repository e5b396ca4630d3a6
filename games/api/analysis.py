"""``GET /api/games/{id}/analysis/`` (API.md): the post-game analysis, ``pending`` until a worker
has stored it. A thin interface over ``games.analysis.analysis_state``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.serializers import ErrorSerializer
from games.analysis import analysis_state
from games.api.base import GameRouteApi
from games.models import Analysis


class AnalysisTurnSerializer(serializers.Serializer[Any]):
    ply = serializers.IntegerField(help_text="The game's ply once this turn was played (1..).")
    seat = serializers.IntegerField()
    move = serializers.CharField(help_text="The turn played, like SF5 RF6 HF7.")
    played_points = serializers.IntegerField(help_text="What the turn scored for its player.")
    best_points = serializers.IntegerField(help_text="The most any legal turn could have scored.")
    best_move = serializers.CharField(allow_null=True, help_text="A turn that scores that much.")
    missed = serializers.IntegerField(help_text="best_points - played_points.")
    hint = serializers.BooleanField(help_text="Played after asking for a hint.")


class MissSerializer(serializers.Serializer[Any]):
    ply = serializers.IntegerField()
    move = serializers.CharField()
    played_points = serializers.IntegerField()
    best_points = serializers.IntegerField()
    best_move = serializers.CharField(allow_null=True)
    missed = serializers.IntegerField()


class AnalysisPlayerSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    turns = serializers.IntegerField(help_text="Turns the seat played.")
    points = serializers.IntegerField(help_text="Points its turns scored for it.")
    available = serializers.IntegerField(help_text="The sum of best_points over its turns.")
    missed_total = serializers.IntegerField()
    accuracy = serializers.FloatField(
        help_text="points ÷ available in percent, one decimal (100 when nothing was available)."
    )
    hints = serializers.IntegerField(help_text="Turns played after a hint.")
    biggest_misses = MissSerializer(many=True, help_text="Up to three, biggest first.")


class GameAnalysisApi(GameRouteApi):
    @extend_schema_serializer(component_name="Analysis")
    class OutputSerializer(serializers.Serializer[Any]):
        status = serializers.ChoiceField(choices=Analysis.Status.choices)
        turns = AnalysisTurnSerializer(many=True, help_text="Empty while pending.")
        players = AnalysisPlayerSerializer(many=True, help_text="Empty while pending.")

    @extend_schema(
        tags=["games"],
        summary="The post-game analysis",
        description=(
            "Every turn against the best the engine finds in its position. 'pending' until the "
            "game is over and its analysis has been computed (a few seconds after the end)."
        ),
        responses={
            200: OutputSerializer,
            404: OpenApiResponse(ErrorSerializer, description="There is no such game."),
        },
    )
    def get(self, request: Request, game_id: int) -> Response:
        return Response(analysis_state(game_id=game_id))

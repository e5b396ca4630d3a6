"""REST API of ratings (API.md, "Ratings"): thin views over ``ratings.selectors``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.base import SiestaApi
from core.api.pagination import PageNumberPagination
from core.api.serializers import ErrorSerializer
from games.models import Seat
from ratings import selectors
from ratings.models import Pool, Rating, Reason, Result


class RatingField(serializers.FloatField):
    """Ratings are stored unrounded; the API gives two decimals."""

    def to_representation(self, value: float) -> Any:
        return round(float(value), 2)


def _mode_parameter(*, description: str) -> OpenApiParameter:
    return OpenApiParameter(
        "mode",
        OpenApiTypes.STR,
        OpenApiParameter.QUERY,
        enum=Pool.values,
        description=description,
    )


def _bad_mode(value: str) -> Response:
    return Response(
        {
            "error": _("Unknown mode %(mode)s: use ffa or teams.") % {"mode": value},
            "code": "invalid",
        },
        status=status.HTTP_400_BAD_REQUEST,
    )


def _pool(request: Request) -> str | Response:
    """The pool of ``?mode=`` (default ffa), or the 400 that refuses it."""
    mode = request.query_params.get("mode")
    if mode == "":  # the schema's enum has no empty value
        return _bad_mode(mode)
    try:
        return selectors.pool_parse(mode)
    except ValueError:
        return _bad_mode(mode or "")


def _no_player(username: str) -> Response:
    return Response(
        {
            "error": _("There is no player %(username)s.") % {"username": username},
            "code": "not_found",
        },
        status=status.HTTP_404_NOT_FOUND,
    )


class RecordFields(serializers.Serializer[Any]):
    """A ``Rating`` row's rating and record, as the leaderboard and the profile give them."""

    rating = RatingField()
    games = serializers.IntegerField(help_text="Counted games.")
    provisional = serializers.BooleanField(help_text="Fewer than 20 counted games.")
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()


class HintShareFields(serializers.Serializer[Any]):
    """A player's hinted share (``selectors.HintShare``): of their rated games played to the end,
    those in which they took a hint."""

    rated_games = serializers.IntegerField(
        help_text="Rated games played to the end (counted, or not counted for a hint)."
    )
    hinted_games = serializers.IntegerField(help_text="Of those, the games with a hint.")
    hinted_share = serializers.SerializerMethodField(
        help_text="hinted_games / rated_games, 3 decimals; null without rated games."
    )

    def get_hinted_share(self, instance: Any) -> float | None:
        share = selectors.HintShare.of(instance).share
        return None if share is None else round(share, 3)


class LeaderboardPagination(PageNumberPagination):
    page_size = selectors.LEADERBOARD_PAGE_SIZE


class LeaderboardApi(SiestaApi):
    """The leaderboard of a pool, best first."""

    permission_classes = [AllowAny]
    pagination_class = LeaderboardPagination

    @extend_schema_serializer(component_name="LeaderboardEntry")
    class OutputSerializer(RecordFields, HintShareFields):
        """A player on the leaderboard, with their hinted share in this pool."""

        rank = serializers.IntegerField()
        username = serializers.CharField(source="user.username")

    @extend_schema(
        operation_id="ratings_leaderboard",
        tags=["ratings"],
        parameters=[_mode_parameter(description="The rating pool (default ffa).")],
        responses={200: OutputSerializer(many=True), 400: ErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        pool = _pool(request)
        if isinstance(pool, Response):
            return pool
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(selectors.leaderboard(pool=pool), request, view=self)
        assert page is not None
        data = self.OutputSerializer(page, many=True).data
        return paginator.get_paginated_response(data)


class BotPerformancesApi(SiestaApi):
    """Each bot level's performance against people in a pool (bots have no rating)."""

    permission_classes = [AllowAny]

    @extend_schema_serializer(component_name="BotPerformance")
    class OutputSerializer(serializers.Serializer[Any]):
        """How a bot level has fared against people: not a rating, and never changes one."""

        level = serializers.ChoiceField(choices=Seat.BotLevel.choices)
        games = serializers.IntegerField(
            help_text="Finished games (not aborted) in which it met at least one person."
        )
        duels = serializers.IntegerField(
            help_text="Its results against people: one per person in free-for-all, one per "
            "game against the other team in teams."
        )
        score = serializers.FloatField(help_text="The sum of those results (1, ½ or 0 each).")
        performance = RatingField(
            allow_null=True,
            help_text="The Elo performance: the rating at which its expected score against "
            "those people, at their ratings of the time, equals its score. Null "
            f"before {selectors.BOT_PERFORMANCE_MIN_GAMES} games.",
        )

    @extend_schema(
        operation_id="ratings_bots",
        tags=["ratings"],
        summary="Each bot level's performance against people",
        parameters=[_mode_parameter(description="The rating pool (default ffa).")],
        responses={200: OutputSerializer(many=True), 400: ErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        pool = _pool(request)
        if isinstance(pool, Response):
            return pool
        rows = selectors.bot_performances(pool=pool)
        return Response(self.OutputSerializer(rows, many=True).data)


class UserRatingsApi(SiestaApi):
    """A player's rating history, oldest first: one entry per finished game they played."""

    permission_classes = [AllowAny]

    @extend_schema_serializer(component_name="RatingHistoryEntry")
    class OutputSerializer(serializers.Serializer[Any]):
        game = serializers.IntegerField(source="game_id")
        at = serializers.DateTimeField()
        mode = serializers.ChoiceField(source="pool", choices=Pool.choices)
        before = RatingField()
        after = RatingField()
        delta = RatingField()
        counted = serializers.BooleanField()
        reason = serializers.ChoiceField(choices=Reason.choices)
        result = serializers.ChoiceField(
            choices=Result.choices, allow_null=True, help_text="Null when not counted."
        )

        def to_representation(self, instance: Any) -> dict[str, Any]:
            data = super().to_representation(instance)
            data["result"] = data["result"] or None
            return data

    @extend_schema(
        operation_id="user_ratings",
        tags=["ratings"],
        parameters=[_mode_parameter(description="Only this pool (default: both).")],
        responses={200: OutputSerializer(many=True), 400: ErrorSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, username: str) -> Response:
        mode = request.query_params.get("mode")
        if mode == "":  # the schema's enum has no empty value
            return _bad_mode(mode)
        try:
            pool = selectors.pool_parse(mode, default="")
        except ValueError:
            return _bad_mode(mode or "")
        try:
            user = selectors.user_get(username=username)
        except get_user_model().DoesNotExist:
            return _no_player(username)
        rows = selectors.rating_history(user=user, pool=pool or None)
        return Response(self.OutputSerializer(rows, many=True).data)


@extend_schema_serializer(component_name="UserStanding")
class StandingSerializer(RecordFields):
    """A player's rating in one pool."""

    mode = serializers.ChoiceField(source="pool", choices=Pool.choices)
    peak = RatingField()


@dataclass(frozen=True)
class Profile:
    """What ``GET /api/users/{username}/`` answers with."""

    username: str
    ratings: list[Rating]
    rated_games: int
    hinted_games: int


class UserProfileApi(SiestaApi):
    """A player's rating in each pool, and their hinted share over both pools."""

    permission_classes = [AllowAny]

    @extend_schema_serializer(component_name="UserProfile")
    class OutputSerializer(HintShareFields):
        """A player's rating in each pool, and their hinted share over both pools."""

        username = serializers.CharField()
        ratings = StandingSerializer(many=True)

    @extend_schema(
        operation_id="user_profile",
        tags=["ratings"],
        responses={200: OutputSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, username: str) -> Response:
        try:
            user = selectors.user_get(username=username)
        except get_user_model().DoesNotExist:
            return _no_player(username)
        hints = selectors.hint_share(user=user)
        profile = Profile(
            username=user.get_username(),
            ratings=selectors.user_standings(user=user),
            rated_games=hints.rated_games,
            hinted_games=hints.hinted_games,
        )
        return Response(self.OutputSerializer(profile).data)

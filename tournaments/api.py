"""The tournaments API (API.md, Tournaments): thin views over ``tournaments.services`` (writes)
and ``tournaments.selectors`` (reads); errors take the shape of ``siesta_site.api.errors``."""

from __future__ import annotations

from typing import Any, cast

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.pagination import BasePagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings

from games.models import Game
from games.services import NotFound
from siesta_site.api.base import SiestaApi, signed_in_user
from siesta_site.api.errors import error_responses
from tournaments import selectors, services
from tournaments.models import Format, Tournament
from tournaments.state import TournamentState


def _state(tournament_id: int) -> TournamentState:
    try:
        return selectors.tournament_state(selectors.tournament_get(tournament_id))
    except Tournament.DoesNotExist:
        raise NotFound(_("There is no tournament %(id)s.") % {"id": tournament_id}) from None


NO_TOURNAMENT = {"e404": "There is no such tournament."}
NEEDS_USER = {"e401": "No credentials, or a bad token."}


@extend_schema_serializer(component_name="TournamentPlayer")
class PlayerSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    withdrawn = serializers.BooleanField()


@extend_schema_serializer(component_name="TournamentGame")
class PairingGameSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    players = serializers.ListField(child=serializers.CharField(), help_text="In seat order.")
    status = serializers.ChoiceField(choices=Game.Status.choices)
    scores = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        help_text="Siesta scores in seat order once the game is over and recorded.",
    )
    points = serializers.ListField(
        child=serializers.FloatField(),
        allow_null=True,
        help_text="Tournament points (0..1) in seat order once recorded.",
    )
    forfeits = serializers.ListField(
        child=serializers.CharField(),
        help_text="Once recorded: who forfeited (missed their first turn), in seat order.",
    )


@extend_schema_serializer(component_name="TournamentRound")
class RoundSerializer(serializers.Serializer[Any]):
    round = serializers.IntegerField()
    games = PairingGameSerializer(many=True)
    byes = serializers.ListField(child=serializers.CharField())


@extend_schema_serializer(component_name="TournamentStanding")
class StandingSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    username = serializers.CharField()
    points = serializers.FloatField()
    buchholz = serializers.FloatField()
    score = serializers.IntegerField(help_text="Total Siesta score.")
    games = serializers.IntegerField(help_text="Games played (byes not counted).")
    seats = serializers.ListField(
        child=serializers.IntegerField(), help_text="The seat of each game played, in round order."
    )
    forfeits = serializers.IntegerField(help_text="Games forfeited (0 points, not rated).")


class TournamentSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    format = serializers.ChoiceField(choices=Format.choices)
    table_size = serializers.IntegerField()
    mode = serializers.ChoiceField(choices=Game.Mode.choices)
    variant = serializers.ChoiceField(choices=Game.Variant.choices)
    rounds = serializers.IntegerField(allow_null=True)
    starts_at = serializers.DateTimeField()
    turn_seconds = serializers.IntegerField()
    grace_seconds = serializers.IntegerField(
        help_text="A game's first turns start their clock this long after pairing."
    )
    max_players = serializers.IntegerField()
    min_players = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Tournament.Status.choices)
    cancel_reason = serializers.CharField(allow_null=True, help_text="too_few_players")
    players = PlayerSerializer(many=True)
    current_round = serializers.IntegerField(allow_null=True)
    pairings = RoundSerializer(many=True)
    standings = StandingSerializer(many=True)
    winners = serializers.ListField(child=serializers.CharField())
    version = serializers.IntegerField(help_text="Rises by one per change.")


class TournamentListCreateApi(SiestaApi):
    pagination_class = cast(type[BasePagination], api_settings.DEFAULT_PAGINATION_CLASS)

    @extend_schema_serializer(component_name="TournamentFilter")
    class FilterSerializer(serializers.Serializer[Any]):
        status = serializers.ChoiceField(choices=Tournament.Status.choices, required=False)

    @extend_schema_serializer(component_name="TournamentCreateInput")
    class InputSerializer(serializers.Serializer[Any]):
        name = serializers.CharField(max_length=100)
        format = serializers.ChoiceField(choices=Format.choices)
        table_size = serializers.IntegerField(min_value=2, max_value=4, default=2)
        mode = serializers.ChoiceField(choices=Game.Mode.choices, default=Game.Mode.FFA)
        variant = serializers.ChoiceField(
            choices=Game.Variant.choices, default=Game.Variant.STANDARD
        )
        rounds = serializers.IntegerField(
            min_value=1,
            max_value=Tournament.MAX_ROUNDS,
            required=False,
            allow_null=True,
            default=None,
        )
        starts_at = serializers.DateTimeField()
        turn_seconds = serializers.IntegerField(
            min_value=Game.MIN_TURN_SECONDS,
            max_value=Game.MAX_TURN_SECONDS,
            default=Game.DEFAULT_TURN_SECONDS,
        )
        max_players = serializers.IntegerField(
            min_value=2, max_value=Tournament.MAX_PLAYERS, default=16
        )
        min_players = serializers.IntegerField(
            min_value=2, max_value=Tournament.MAX_PLAYERS, default=2
        )

    @extend_schema(
        tags=["tournaments"],
        summary="List tournaments, newest first",
        parameters=[FilterSerializer],
        responses={200: TournamentSerializer(many=True), **error_responses(e400="Unknown status.")},
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        tournaments = selectors.tournament_list(**filters.validated_data)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(tournaments, request, view=self) or []
        return paginator.get_paginated_response([selectors.tournament_state(t) for t in page])

    @extend_schema(
        tags=["tournaments"],
        summary="Announce a tournament (staff only)",
        description="Round robin needs table_size 2 and no rounds; teams need table_size 4.",
        request=InputSerializer,
        responses={
            201: TournamentSerializer,
            **error_responses(
                e400="Invalid options or combination: 'error' and the field errors.",
                e403="The caller is not staff.",
                **NEEDS_USER,
            ),
        },
    )
    def post(self, request: Request) -> Response:
        user = signed_in_user(request)
        if not getattr(user, "is_staff", False):
            raise PermissionDenied(_("Only staff members create tournaments."))
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        tournament = services.tournament_create(user=user, **data.validated_data)
        return Response(_state(tournament.pk), status=status.HTTP_201_CREATED)


class TournamentDetailApi(SiestaApi):
    @extend_schema(
        tags=["tournaments"],
        summary="A tournament: players, pairings, standings, winners",
        responses={200: TournamentSerializer, **error_responses(**NO_TOURNAMENT)},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        return Response(_state(tournament_id))


class TournamentJoinApi(SiestaApi):
    @extend_schema(
        tags=["tournaments"],
        summary="Join a scheduled tournament",
        description="Joining twice changes nothing.",
        request=None,
        responses={
            200: TournamentSerializer,
            **error_responses(
                e409="The tournament is full or has started.", **NEEDS_USER, **NO_TOURNAMENT
            ),
        },
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        services.tournament_join(tournament_id=tournament_id, user=signed_in_user(request))
        return Response(_state(tournament_id))


class TournamentLeaveApi(SiestaApi):
    @extend_schema(
        tags=["tournaments"],
        summary="Leave a tournament, or withdraw once it has started",
        description="A withdrawal resigns the player's running game; they are not paired again.",
        request=None,
        responses={
            200: TournamentSerializer,
            **error_responses(e409="The tournament is over.", **NEEDS_USER, **NO_TOURNAMENT),
        },
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        services.tournament_leave(tournament_id=tournament_id, user=signed_in_user(request))
        return Response(_state(tournament_id))

"""The tournaments API (API.md, Tournaments): thin views over ``tournaments.services`` (writes)
and ``tournaments.selectors`` (reads); errors take the shape of ``core.api.errors``."""

from __future__ import annotations

from typing import Any, cast

from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.pagination import BasePagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings

from core.api.base import SiestaApi, signed_in_user
from core.api.errors import error_responses
from core.api.fields import StrictBooleanField
from core.credentials import TOURNAMENTS
from core.errors import NotFound
from core.throttling import TournamentCreateThrottle
from games.models import Game
from tournaments import entry, selectors, services
from tournaments.models import Format, Tournament, Visibility


def _get(tournament_id: int, request: Request, invite: str | None = None) -> Tournament:
    """The tournament, if the caller may see it (``selectors.can_see``); to anyone else an
    invitation answers exactly as an unknown id (404, the same body), whatever the method."""
    try:
        tournament = selectors.tournament_get(tournament_id)
    except Tournament.DoesNotExist:
        tournament = None
    if tournament is None or not selectors.can_see(tournament, request.user, invite):
        raise NotFound(_("There is no tournament %(id)s.") % {"id": tournament_id})
    return tournament


def _shape(tournament: Tournament, request: Request) -> dict[str, Any]:
    """The public state, with its name in the request's language, who created it, its
    visibility and (to its creator and staff) its invitation link."""
    shape: dict[str, Any] = {
        **selectors.tournament_state(tournament),
        "display_name": tournament.display_name,
    }
    user = request.user
    if tournament.visibility == Visibility.INVITE and (
        user.is_staff or (user.is_authenticated and tournament.created_by_id == user.pk)
    ):
        path = reverse("tournament_invite", kwargs={"token": tournament.invite_token})
        shape["invite_url"] = request.build_absolute_uri(path)
    return shape


def _state(tournament_id: int, request: Request) -> dict[str, Any]:
    return _shape(_get(tournament_id, request), request)


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


@extend_schema_serializer(component_name="TournamentArena")
class ArenaSerializer(serializers.Serializer[Any]):
    ends_at = serializers.DateTimeField(help_text="No new game starts from then on.")
    paused = serializers.ListField(child=serializers.CharField())
    on_streak = serializers.ListField(
        child=serializers.CharField(), help_text="Players whose next win counts double."
    )
    performance = serializers.DictField(
        child=serializers.FloatField(), help_text="Mean opponent rating, by username."
    )
    top_game = serializers.IntegerField(
        allow_null=True, help_text="The game under way with the highest mean rating."
    )


class TournamentSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    format = serializers.ChoiceField(choices=Format.choices)
    table_size = serializers.IntegerField()
    mode = serializers.ChoiceField(choices=Game.Mode.choices)
    variant = serializers.ChoiceField(choices=Game.Variant.choices)
    rounds = serializers.IntegerField(allow_null=True)
    duration_minutes = serializers.IntegerField(allow_null=True, help_text="Arena only.")
    arena = ArenaSerializer(allow_null=True, help_text="Arena only.")
    starts_at = serializers.DateTimeField()
    turn_seconds = serializers.IntegerField()
    grace_seconds = serializers.IntegerField(
        help_text="A game's first turns start their clock this long after pairing."
    )
    max_players = serializers.IntegerField()
    min_players = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Tournament.Status.choices)
    cancel_reason = serializers.CharField(
        allow_null=True, help_text="too_few_players, or cancelled (by its creator or staff)"
    )
    players = PlayerSerializer(many=True)
    current_round = serializers.IntegerField(allow_null=True)
    pairings = RoundSerializer(many=True)
    standings = StandingSerializer(many=True)
    winners = serializers.ListField(child=serializers.CharField())
    version = serializers.IntegerField(help_text="Rises by one per change.")
    display_name = serializers.CharField(
        help_text="The name in the request's language (scheduled tournaments), else the name."
    )
    visibility = serializers.ChoiceField(choices=Visibility.choices)
    featured = serializers.BooleanField()
    creator = serializers.CharField(allow_null=True, help_text="null: staff or a schedule.")
    invite_url = serializers.URLField(
        required=False, help_text="An invitation's link; to its creator and staff only."
    )


class TournamentListCreateApi(SiestaApi):
    write_scope = TOURNAMENTS
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
        duration_minutes = serializers.IntegerField(
            min_value=Tournament.MIN_ARENA_MINUTES,
            max_value=Tournament.MAX_ARENA_MINUTES,
            required=False,
            allow_null=True,
            default=None,
            help_text="Arena only (instead of rounds).",
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
        visibility = serializers.ChoiceField(choices=Visibility.choices, default="public")
        password = serializers.CharField(
            max_length=128, required=False, allow_blank=True, allow_null=True, default=None
        )

    def get_throttles(self) -> list[Any]:
        return [*super().get_throttles(), TournamentCreateThrottle()]

    @extend_schema(
        tags=["tournaments"],
        summary="List tournaments, newest first",
        parameters=[FilterSerializer],
        responses={200: TournamentSerializer(many=True), **error_responses(e400="Unknown status.")},
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params.dict())
        filters.is_valid(raise_exception=True)
        tournaments = selectors.tournaments_listed(viewer=request.user, **filters.validated_data)
        # "Newest first" (API.md): the most recently created first.
        tournaments = tournaments.select_related("created_by").order_by("-created_at", "-id")
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(tournaments, request, view=self) or []
        return paginator.get_paginated_response([_shape(t, request) for t in page])

    @extend_schema(
        tags=["tournaments"],
        summary="Announce a tournament (staff, or a player with 3 finished games)",
        description=(
            "Round robin needs table_size 2 and no rounds; teams need table_size 4. A player has "
            "one scheduled or running tournament at a time, starting within 30 days."
        ),
        request=InputSerializer,
        responses={
            201: TournamentSerializer,
            **error_responses(
                e400="Invalid options or combination: 'error' and the field errors.",
                e403="Too few finished games.",
                e409="The player already has a scheduled or running tournament.",
                e429="Too many tournaments created.",
                **NEEDS_USER,
            ),
        },
    )
    def post(self, request: Request) -> Response:
        user = signed_in_user(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        tournament = services.tournament_create(user=user, **data.validated_data)
        return Response(_state(tournament.pk, request), status=status.HTTP_201_CREATED)


@extend_schema_serializer(component_name="TournamentChange")
class ChangeSerializer(TournamentListCreateApi.InputSerializer):
    featured = StrictBooleanField(required=False, help_text="Staff only.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, partial=True, **kwargs)


class TournamentDetailApi(SiestaApi):
    write_scope = TOURNAMENTS

    @extend_schema(
        tags=["tournaments"],
        summary="A tournament: players, pairings, standings, winners",
        parameters=[
            OpenApiParameter("invite", str, description="An invitation's token (from its link).")
        ],
        responses={200: TournamentSerializer, **error_responses(**NO_TOURNAMENT)},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        invite = request.query_params.get("invite")
        return Response(_shape(_get(tournament_id, request, invite), request))

    @extend_schema(
        tags=["tournaments"],
        summary="Change a tournament (its creator while scheduled; staff at any time)",
        description="The game settings and the start change only while it is scheduled.",
        request=ChangeSerializer,
        responses={
            200: TournamentSerializer,
            **error_responses(
                e400="Invalid options or combination.",
                e403="Not the creator, or featured by a player.",
                e409="The tournament has started.",
                **NEEDS_USER,
                **NO_TOURNAMENT,
            ),
        },
    )
    def patch(self, request: Request, tournament_id: int) -> Response:
        user = signed_in_user(request)
        _get(tournament_id, request)
        data = ChangeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.tournament_update(tournament_id=tournament_id, user=user, **data.validated_data)
        return Response(_state(tournament_id, request))

    @extend_schema(
        tags=["tournaments"],
        summary="Cancel a tournament (its creator while scheduled; staff at any time)",
        request=None,
        responses={
            200: TournamentSerializer,
            **error_responses(
                e403="Not the creator.", e409="Started or over.", **NEEDS_USER, **NO_TOURNAMENT
            ),
        },
    )
    def delete(self, request: Request, tournament_id: int) -> Response:
        user = signed_in_user(request)
        _get(tournament_id, request)
        services.tournament_cancel(tournament_id=tournament_id, user=user)
        return Response(_state(tournament_id, request))


class TournamentJoinApi(SiestaApi):
    write_scope = TOURNAMENTS

    @extend_schema_serializer(component_name="TournamentJoinInput")
    class InputSerializer(serializers.Serializer[Any]):
        invite = serializers.CharField(required=False, help_text="An invitation's token.")
        password = serializers.CharField(required=False, help_text="An invitation's password.")

    @extend_schema(
        tags=["tournaments"],
        summary="Join a scheduled tournament",
        description="Joining twice changes nothing. An invitation needs its token (else 404, "
        "as an unknown id) and, with a password, the password (else 403). Failed passwords are "
        "limited per tournament, address and player: past them, 429 with Retry-After, before "
        "the password is checked. A player withdrawn for missed games rejoins a running "
        "tournament while a round is left for them (else 409, saying why).",
        request=InputSerializer,
        responses={
            200: TournamentSerializer,
            **error_responses(
                e403="A wrong password.",
                e409="The tournament is full or has started.",
                e429="Too many wrong passwords: try again after Retry-After seconds.",
                **NEEDS_USER,
                **NO_TOURNAMENT,
            ),
        },
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        user = signed_in_user(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        tournament = _get(tournament_id, request, data.validated_data.get("invite"))
        entry.join(request, tournament=tournament, user=user, **data.validated_data)
        return Response(_state(tournament_id, request))


class TournamentLeaveApi(SiestaApi):
    write_scope = TOURNAMENTS

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
        user = signed_in_user(request)
        _get(tournament_id, request)
        services.tournament_leave(tournament_id=tournament_id, user=user)
        # The tournament as it is now, even to someone who just left an invitation.
        return Response(_shape(selectors.tournament_get(tournament_id), request))


class TournamentPauseApi(SiestaApi):
    write_scope = TOURNAMENTS

    @extend_schema(
        tags=["tournaments"],
        summary="Pause in a running arena (join again to resume)",
        description="The game under way is played out; no new game is paired until the player "
        "joins again.",
        request=None,
        responses={
            200: TournamentSerializer,
            **error_responses(
                e409="Not an arena, not running, or not playing in it.",
                **NEEDS_USER,
                **NO_TOURNAMENT,
            ),
        },
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        user = signed_in_user(request)
        _get(tournament_id, request)
        services.tournament_pause(tournament_id=tournament_id, user=user)
        return Response(_state(tournament_id, request))

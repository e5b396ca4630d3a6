"""The API of playing together (API.md, Play together, and docs/api.md): seeks,
rematches, challenges, notifications and presence. Thin views over ``social.services``."""

from __future__ import annotations

from typing import Any, get_args

from django.contrib.auth import get_user_model
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from core import throttling
from core.api.base import SiestaApi, signed_in_user
from core.api.errors import error_responses
from core.api.fields import StrictBooleanField
from core.credentials import PLAY
from core.throttling import SeekThrottle
from games.api.base import GameRouteApi
from games.api.serializers import GameSerializer
from games.models import Game, Seat
from games.selectors import game_or_not_found, game_state
from social import presence
from social.services.challenges import (
    challenge_accept,
    challenge_bot,
    challenge_cancel,
    challenge_create,
    challenge_decline,
    challenge_payload,
    challenges_open,
)
from social.services.notices import (
    notification_payload,
    notifications_latest,
    notifications_mark_read,
    unread_count,
)
from social.services.rematch import rematch_ask, rematch_status
from social.services.seeks import (
    RATING_RANGES,
    seek_cancel,
    seek_create,
    seek_current,
    seek_get,
    seek_payload,
)
from social.state import ChallengeStatus, NotificationKind, SeekStatus

NEEDS_USER = {"e401": "No credentials, or a bad token.", "e403": "A session sent no CSRF token."}


class _GameSettings(serializers.Serializer[Any]):
    variant = serializers.ChoiceField(choices=Game.Variant.choices, default=Game.Variant.STANDARD)
    turn_seconds = serializers.IntegerField(
        min_value=Game.MIN_TURN_SECONDS,
        max_value=Game.MAX_TURN_SECONDS,
        default=Game.DEFAULT_TURN_SECONDS,
    )


class _Settings(_GameSettings):
    rated = StrictBooleanField(default=True)


@extend_schema_serializer(component_name="SeekInput")
class SeekInputSerializer(_Settings):
    players = serializers.IntegerField(min_value=2, max_value=4, default=2)
    mode = serializers.ChoiceField(choices=Game.Mode.choices, default=Game.Mode.FFA)
    rating_range = serializers.IntegerField(
        min_value=RATING_RANGES[0],
        max_value=RATING_RANGES[1],
        allow_null=True,
        default=None,
        help_text="Rating difference accepted at first (it widens as the seek waits); null: any.",
    )
    bot_fill = StrictBooleanField(
        default=False, help_text="Bots may take the seats nobody took after 30 s."
    )
    bot_level = serializers.ChoiceField(
        choices=Seat.BotLevel.choices,
        default=Seat.BotLevel.MEDIUM,
        help_text="The level of those bots (the oldest seek of the table decides).",
    )


# The answers' shapes, for the schema: the services build them (``social.state``'s TypedDicts)
# and a test keeps each component's fields equal to its TypedDict's keys.


@extend_schema_serializer(component_name="Seek")
class SeekSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(
        choices=get_args(SeekStatus),
        help_text="cancelled: by DELETE (it stays readable so); expired: nobody matched it in "
        "time.",
    )
    game = serializers.IntegerField(allow_null=True, help_text="The game, once matched.")
    players = serializers.IntegerField(min_value=2, max_value=4)
    mode = serializers.ChoiceField(choices=Game.Mode.choices)
    variant = serializers.ChoiceField(choices=Game.Variant.choices)
    rated = serializers.BooleanField()
    turn_seconds = serializers.IntegerField()
    rating_range = serializers.IntegerField(allow_null=True)
    bot_fill = serializers.BooleanField()
    bot_level = serializers.ChoiceField(
        choices=Seat.BotLevel.choices, help_text="The level of the bots that fill its seats."
    )
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()


@extend_schema_serializer(component_name="CurrentSeek")
class CurrentSeekSerializer(serializers.Serializer[Any]):
    seek = SeekSerializer(allow_null=True, help_text="The caller's waiting seek, or null.")


class _SeekApi(SiestaApi):
    # Creating and cancelling seeks is throttled per user (429), before the services enqueue the
    # matcher: SIESTA_THROTTLE_SEEKS.
    write_scope = PLAY

    def get_throttles(self) -> list[Any]:
        return [*super().get_throttles(), SeekThrottle()]


class SeekListCreateApi(_SeekApi):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=["play together"],
        summary='The caller\'s waiting seek, if any: {"seek": seek|null}',
        operation_id="seeks_current",
        responses={200: CurrentSeekSerializer, **error_responses(**NEEDS_USER)},
    )
    def get(self, request: Request) -> Response:
        seek = seek_current(user=signed_in_user(request))
        return Response({"seek": seek_payload(seek) if seek else None})

    @extend_schema(
        tags=["play together"],
        summary="Look for a game (quick pairing)",
        request=SeekInputSerializer,
        responses={
            201: SeekSerializer,
            **error_responses(
                e400="Invalid settings.", e409="The caller already has a waiting seek."
            ),
            **error_responses(**NEEDS_USER),
        },
    )
    def post(self, request: Request) -> Response:
        data = SeekInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        # As created ("waiting", API.md), even if the sweep its commit triggered has matched it
        # already: GET /api/seeks/{id}/ (or the lobby socket) tells the match.
        seek = seek_create(user=signed_in_user(request), **data.validated_data)
        return Response(seek_payload(seek), status=status.HTTP_201_CREATED)


class SeekDetailApi(_SeekApi):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=["play together"],
        summary="One of the caller's seeks",
        responses={200: SeekSerializer, **error_responses(e404="No such seek of the caller's.")},
    )
    def get(self, request: Request, seek_id: int) -> Response:
        seek = seek_get(seek_id=seek_id, user=signed_in_user(request))
        return Response(seek_payload(seek))

    @extend_schema(
        tags=["play together"],
        summary="Cancel a seek",
        description="A waiting seek becomes `cancelled` and stays so: GET answers it with that "
        "status, and DELETE again changes nothing. An expired seek is left as it is.",
        responses={
            200: SeekSerializer,
            **error_responses(e404="No such seek of the caller's.", e409="Already matched."),
        },
    )
    def delete(self, request: Request, seek_id: int) -> Response:
        seek = seek_cancel(seek_id=seek_id, user=signed_in_user(request))
        return Response(seek_payload(seek))


@extend_schema_serializer(component_name="Rematch")
class RematchSerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField(allow_null=True, help_text="The new game, once everyone asked.")
    waiting_for = serializers.ListField(child=serializers.CharField())
    asked = serializers.ListField(child=serializers.CharField())


class RematchApi(GameRouteApi):
    write_scope = PLAY

    @extend_schema(
        tags=["play together"],
        summary="Who asked for a rematch of a finished game",
        responses={200: RematchSerializer},
    )
    def get(self, request: Request, game_id: int) -> Response:
        game_or_not_found(game_id, games=Game.objects.only("pk"))
        return Response(rematch_status(game_id=game_id))

    @extend_schema(
        tags=["play together"],
        summary="Ask for a rematch",
        description="When every person of the game has asked (bots always accept), a new game "
        "with the same players, bots and settings starts, seats rotated by one, and every "
        'watcher of the old game gets `{"type": "rematch", "game": id}`.',
        request=None,
        responses={
            200: RematchSerializer,
            **error_responses(
                e403="The caller is not a person of this game.",
                e404="No such game.",
                e409="The game is not over.",
            ),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        return Response(rematch_ask(game_id=game_id, user=signed_in_user(request)))


@extend_schema_serializer(component_name="ChallengeInput")
class ChallengeInputSerializer(_Settings):
    username = serializers.CharField(max_length=150, help_text="Who is challenged.")


@extend_schema_serializer(component_name="Challenge")
class ChallengeSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    challenger = serializers.CharField(help_text="`from`: who challenged (a username).")
    to = serializers.CharField(help_text="Who is challenged (a username).")
    variant = serializers.ChoiceField(choices=Game.Variant.choices)
    rated = serializers.BooleanField()
    turn_seconds = serializers.IntegerField()
    status = serializers.ChoiceField(choices=get_args(ChallengeStatus))
    game = serializers.IntegerField(allow_null=True, help_text="The game, once accepted.")
    created_at = serializers.DateTimeField()

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        # The key is "from", a Python keyword: declared under another name, renamed here.
        fields = super().get_fields()
        return {("from" if name == "challenger" else name): field for name, field in fields.items()}


class ChallengeListCreateApi(SiestaApi):
    permission_classes = [IsAuthenticated]
    write_scope = PLAY

    @extend_schema(
        tags=["play together"],
        summary="Pending challenges the caller sent or received",
        responses={200: ChallengeSerializer(many=True)},
    )
    def get(self, request: Request) -> Response:
        challenges = challenges_open(user=signed_in_user(request))
        return Response([challenge_payload(c) for c in challenges])

    @extend_schema(
        tags=["play together"],
        summary="Challenge a player to a two-player game",
        request=ChallengeInputSerializer,
        responses={
            201: ChallengeSerializer,
            **error_responses(
                e400="Invalid settings, or oneself.",
                e404="No such player.",
                e409="A challenge to this player is already pending.",
                e429="Too many challenges from this player or address; see Retry-After.",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        data = ChallengeInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        wait = throttling.challenge_wait(request, signed_in_user(request))
        if wait is not None:
            raise exceptions.Throttled(wait)
        challenge = challenge_create(challenger=signed_in_user(request), **data.validated_data)
        return Response(challenge_payload(challenge), status=status.HTTP_201_CREATED)


@extend_schema_serializer(component_name="BotChallengeInput")
class BotChallengeInputSerializer(_GameSettings):
    level = serializers.ChoiceField(
        choices=Seat.BotLevel.choices, default=Seat.BotLevel.EXPERT, help_text="Which bot."
    )


class BotChallengeApi(SiestaApi):
    permission_classes = [IsAuthenticated]
    write_scope = PLAY

    @extend_schema(
        tags=["play together"],
        summary="Challenge a bot: the game starts at once",
        description="Bots always accept, so there is no challenge to wait on: the two-player "
        "game starts at once, seats drawn at random, and the answer is the game. It is casual "
        "(bots have no rating and change nobody's); it counts towards the bot level's "
        "performance against people (`GET /api/ratings/bots/`).",
        request=BotChallengeInputSerializer,
        responses={
            201: GameSerializer,
            **error_responses(
                e400="Invalid settings or bot level.",
                e409="The caller already plays as many unfinished games with bots as allowed.",
            ),
            **error_responses(**NEEDS_USER),
        },
    )
    def post(self, request: Request) -> Response:
        data = BotChallengeInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        # No challenge throttle: nobody is bothered, and each person's limit of unfinished games
        # with bots (SIESTA_MAX_BOT_GAMES) bounds it as it bounds POST /api/games/ with bots.
        game = challenge_bot(challenger=signed_in_user(request), **data.validated_data)
        return Response(game_state(game), status=status.HTTP_201_CREATED)


NO_LONGER_OPEN = "The challenge is no longer open (accepted, declined, withdrawn or expired)."


class ChallengeDetailApi(SiestaApi):
    permission_classes = [IsAuthenticated]
    write_scope = PLAY

    @extend_schema(
        tags=["play together"],
        summary="Withdraw a challenge (the challenger)",
        responses={200: ChallengeSerializer, **error_responses(e409=NO_LONGER_OPEN)},
    )
    def delete(self, request: Request, challenge_id: int) -> Response:
        challenge = challenge_cancel(challenge_id=challenge_id, user=signed_in_user(request))
        return Response(challenge_payload(challenge))


class ChallengeAcceptApi(SiestaApi):
    permission_classes = [IsAuthenticated]
    write_scope = PLAY

    @extend_schema(
        tags=["play together"],
        summary="Accept a challenge: the game starts",
        request=None,
        responses={200: ChallengeSerializer, **error_responses(e409=NO_LONGER_OPEN)},
    )
    def post(self, request: Request, challenge_id: int) -> Response:
        challenge = challenge_accept(challenge_id=challenge_id, user=signed_in_user(request))
        return Response(challenge_payload(challenge))


class ChallengeDeclineApi(SiestaApi):
    permission_classes = [IsAuthenticated]
    write_scope = PLAY

    @extend_schema(
        tags=["play together"],
        summary="Decline a challenge",
        request=None,
        responses={200: ChallengeSerializer, **error_responses(e409=NO_LONGER_OPEN)},
    )
    def post(self, request: Request, challenge_id: int) -> Response:
        challenge = challenge_decline(challenge_id=challenge_id, user=signed_in_user(request))
        return Response(challenge_payload(challenge))


@extend_schema_serializer(component_name="Notification")
class NotificationSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=get_args(NotificationKind))
    params = serializers.DictField(help_text="What the text is made of (names, ids), by kind.")
    text = serializers.CharField(help_text="The notice, in the request's language.")
    url = serializers.CharField(help_text="The page it is about (a path of this site).")
    read = serializers.BooleanField()
    at = serializers.DateTimeField()


@extend_schema_serializer(component_name="Unread")
class UnreadSerializer(serializers.Serializer[Any]):
    unread = serializers.IntegerField(min_value=0, help_text="The caller's unread notices.")


@extend_schema_serializer(component_name="Notifications")
class NotificationsSerializer(UnreadSerializer):
    results = NotificationSerializer(many=True, help_text="The latest, newest first.")


@extend_schema_serializer(component_name="Presence")
class PresenceSerializer(serializers.Serializer[Any]):
    online = serializers.IntegerField(min_value=0, help_text="People online now.")
    users = serializers.DictField(
        child=serializers.BooleanField(), help_text="Each username asked for: online or not."
    )


class NotificationListApi(SiestaApi):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=["play together"],
        summary="The caller's latest notices and unread count",
        responses={200: NotificationsSerializer},
    )
    def get(self, request: Request) -> Response:
        user = signed_in_user(request)
        notices = notifications_latest(user=user)
        return Response(
            {
                "unread": unread_count(user.pk),
                "results": [notification_payload(n) for n in notices],
            }
        )


class NotificationReadApi(SiestaApi):
    permission_classes = [IsAuthenticated]
    write_scope = PLAY

    class InputSerializer(serializers.Serializer[Any]):
        ids = serializers.ListField(
            child=serializers.IntegerField(), required=False, help_text="Omitted: all."
        )

    @extend_schema(
        tags=["play together"],
        summary="Mark notices read",
        request=InputSerializer,
        responses={200: UnreadSerializer},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = signed_in_user(request)
        notifications_mark_read(user=user, ids=data.validated_data.get("ids"))
        return Response({"unread": unread_count(user.pk)})


class PresenceApi(SiestaApi):
    @extend_schema(
        tags=["play together"],
        summary="How many people are online, and which of the given ones",
        parameters=[
            OpenApiParameter("users", str, description="Comma-separated usernames (up to 100).")
        ],
        responses={200: PresenceSerializer},
    )
    def get(self, request: Request) -> Response:
        names = [n for n in request.query_params.get("users", "").split(",") if n][:100]
        ids = dict(
            get_user_model().objects.filter(username__in=names).values_list("username", "pk")
        )
        online = presence.online_ids(ids.values())
        return Response(
            {
                "online": presence.online_count(),
                "users": {name: ids.get(name) in online for name in names},
            }
        )

"""Accounts for scripts and bots (API.md, Auth): register, trade a password for a token, log out;
the personal access tokens of bots and tools (create, list, revoke); ``GET /api/me/``.
Sign-ins and registrations are throttled (core/throttling.py)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate, get_user_model, logout, password_validation
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import selectors
from accounts.models import PersonalAccessToken
from accounts.services import (
    USERNAME_TAKEN,
    personal_token_create,
    personal_token_revoke,
    user_register,
    user_token_issue,
    user_token_revoke,
)
from core import throttling
from core.api.base import SiestaApi, signed_in_user
from core.api.errors import error_responses
from core.api.serializers import ErrorSerializer
from core.credentials import ANY_SCOPE, SCOPES, TokenGrant
from ratings.api import StandingSerializer
from ratings.selectors import user_standings

User = get_user_model()


class _NoCredentialsApi(SiestaApi):
    # Sign-up and sign-in take no credentials, so no session (and no CSRF) applies.

    authentication_classes = []
    permission_classes = [AllowAny]


TOO_MANY = OpenApiResponse(
    ErrorSerializer, description="Too many attempts from this address; see Retry-After."
)


class RegisterApi(_NoCredentialsApi):
    throttle_classes = [throttling.AnonThrottle, throttling.RegisterThrottle]

    @extend_schema_serializer(component_name="RegisterInput")
    class InputSerializer(serializers.Serializer[Any]):
        username = serializers.CharField(max_length=150, validators=[UnicodeUsernameValidator()])
        password = serializers.CharField(max_length=128, trim_whitespace=False, write_only=True)

        def validate_username(self, value: str) -> str:
            if User.objects.filter(username__iexact=value).exists():
                raise serializers.ValidationError(USERNAME_TAKEN)
            return value

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            candidate = User(username=attrs["username"])
            try:
                password_validation.validate_password(attrs["password"], user=candidate)
            except DjangoValidationError as exc:
                raise serializers.ValidationError({"password": list(exc.messages)}) from None
            return attrs

    @extend_schema_serializer(component_name="RegisterOutput")
    class OutputSerializer(serializers.Serializer[Any]):
        username = serializers.CharField()
        token = serializers.CharField(help_text="Send as 'Authorization: Token <token>'.")

    @extend_schema(
        tags=["auth"],
        summary="Create an account and get its API token",
        request=InputSerializer,
        responses={
            201: OutputSerializer,
            400: OpenApiResponse(
                ErrorSerializer, description="Username taken or invalid, or password too weak."
            ),
            429: TOO_MANY,
        },
    )
    def post(self, request: Request) -> Response:
        created = False
        try:
            data = self.InputSerializer(data=request.data)
            data.is_valid(raise_exception=True)
            username, token = user_register(**data.validated_data)
            created = True
        finally:
            if not created:  # only accounts created count against the address's limit
                throttling.REGISTER.give_back(throttling.client_address(request))
        output = self.OutputSerializer({"username": username, "token": token})
        return Response(output.data, status=status.HTTP_201_CREATED)


class TokenApi(_NoCredentialsApi):
    throttle_classes = [throttling.AnonThrottle, throttling.AuthThrottle]

    @extend_schema_serializer(component_name="TokenInput")
    class InputSerializer(serializers.Serializer[Any]):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=128, trim_whitespace=False, write_only=True)

    @extend_schema_serializer(component_name="TokenOutput")
    class OutputSerializer(serializers.Serializer[Any]):
        token = serializers.CharField(help_text="Send as 'Authorization: Token <token>'.")

    @extend_schema(
        tags=["auth"],
        summary="Get the API token of an account",
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            400: OpenApiResponse(ErrorSerializer, description="Wrong username or password."),
            429: TOO_MANY,
        },
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        wait = throttling.login_wait(request, data.validated_data["username"])
        if wait is not None:
            raise exceptions.Throttled(wait)
        user = authenticate(request._request, **data.validated_data)
        if user is None:
            raise serializers.ValidationError(_("The username or password is not right."))
        throttling.record_sign_in(request, data.validated_data["username"])
        return Response(self.OutputSerializer({"token": user_token_issue(user=user)}).data)


class LogoutApi(SiestaApi):
    permission_classes = [IsAuthenticated]
    write_scope = ANY_SCOPE  # any token may end itself

    @extend_schema(
        tags=["auth"],
        summary="End the credential of this call",
        description=(
            "With the account's API token: revoke it (`POST /api/auth/token/` issues a new one). "
            "With a personal access token: revoke that token. With the session: end the "
            "session only; every token keeps working."
        ),
        request=None,
        responses={204: None, 401: ErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        user = signed_in_user(request)
        if isinstance(request.auth, TokenGrant) and request.auth.token_id is not None:
            personal_token_revoke(user=user, token_id=request.auth.token_id)
        elif isinstance(request.auth, Token):
            user_token_revoke(user=user)
        else:  # the site's session: a bot's token must not die with its owner's logout
            logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


# -- personal access tokens ------------------------------------------------------------------------


@extend_schema_serializer(component_name="PersonalToken")
class PersonalTokenSerializer(serializers.ModelSerializer[PersonalAccessToken]):
    scopes = serializers.ListField(
        source="scope_list", child=serializers.ChoiceField(choices=SCOPES)
    )
    shown = serializers.CharField(help_text="The token's first characters, to recognise it.")
    expired = serializers.SerializerMethodField()

    class Meta:
        model = PersonalAccessToken
        fields = [
            "id",
            "name",
            "shown",
            "scopes",
            "created_at",
            "expires_at",
            "last_used_at",
            "expired",
        ]

    def get_expired(self, token: PersonalAccessToken) -> bool:
        return token.expired()


class _PersonalTokensApi(SiestaApi):
    # Only the password's credentials (the session or the account's API token) manage personal
    # tokens: a token of limited scopes must not mint itself a wider one.
    permission_classes = [IsAuthenticated]
    read_scope = None
    write_scope = None


class PersonalTokenListCreateApi(_PersonalTokensApi):
    @extend_schema_serializer(component_name="PersonalTokenInput")
    class InputSerializer(serializers.Serializer[Any]):
        name = serializers.CharField(max_length=PersonalAccessToken.NAME_MAX_LENGTH)
        scopes = serializers.ListField(
            child=serializers.ChoiceField(choices=SCOPES), min_length=1, max_length=len(SCOPES)
        )
        expires_at = serializers.DateTimeField(
            required=False, allow_null=True, help_text="Omitted or null: it never expires."
        )

    @extend_schema_serializer(component_name="NewPersonalToken")
    class CreatedSerializer(PersonalTokenSerializer):
        token = serializers.CharField(
            help_text="The secret, shown this once: send as 'Authorization: Token <token>'."
        )

        class Meta(PersonalTokenSerializer.Meta):
            fields = [*PersonalTokenSerializer.Meta.fields, "token"]

    @extend_schema(
        tags=["auth"],
        summary="The caller's personal access tokens",
        responses={200: PersonalTokenSerializer(many=True), 403: ErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        tokens = selectors.personal_tokens_of(user=signed_in_user(request))
        return Response(PersonalTokenSerializer(tokens, many=True).data)

    @extend_schema(
        tags=["auth"],
        summary="Create a personal access token (its secret is shown once)",
        request=InputSerializer,
        responses={
            201: CreatedSerializer,
            **error_responses(
                e403="Not with a personal access token.", e409="Too many tokens: revoke one."
            ),
        },
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        created = personal_token_create(
            user=signed_in_user(request),
            name=data.validated_data["name"],
            scopes=data.validated_data["scopes"],
            expires_at=data.validated_data.get("expires_at"),
        )
        body = {**PersonalTokenSerializer(created.token).data, "token": created.secret}
        return Response(body, status=status.HTTP_201_CREATED)


class PersonalTokenDetailApi(_PersonalTokensApi):
    @extend_schema(
        tags=["auth"],
        summary="Revoke a personal access token (its sockets close)",
        responses={204: None, **error_responses(e403="Not with a personal access token.")},
    )
    def delete(self, request: Request, token_id: int) -> Response:
        personal_token_revoke(user=signed_in_user(request), token_id=token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeApi(SiestaApi):
    permission_classes = [IsAuthenticated]
    read_scope = ANY_SCOPE  # a bot may always ask what its token is

    @extend_schema_serializer(component_name="Me")
    class OutputSerializer(serializers.Serializer[Any]):
        username = serializers.CharField()
        ratings = StandingSerializer(many=True)
        auth = serializers.ChoiceField(
            choices=["session", "token", "personal_token"],
            help_text="How this call signed in.",
        )
        scopes = serializers.ListField(
            child=serializers.ChoiceField(choices=SCOPES),
            allow_null=True,
            help_text="What the token may do (the account's token: every scope); null: session.",
        )

    @extend_schema(
        tags=["auth"],
        summary="The caller: username, ratings, and the token's scopes",
        responses={200: OutputSerializer},
    )
    def get(self, request: Request) -> Response:
        user = signed_in_user(request)
        grant = request.auth
        if isinstance(grant, TokenGrant):
            auth, scopes = "personal_token", [s for s in SCOPES if grant.allows(s)]
        elif isinstance(grant, Token):
            auth, scopes = "token", list(SCOPES)
        else:
            auth, scopes = "session", None
        me = {
            "username": user.get_username(),
            "ratings": user_standings(user=user),
            "auth": auth,
            "scopes": scopes,
        }
        return Response(self.OutputSerializer(me).data)

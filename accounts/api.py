"""Accounts for scripts and bots (API.md, Auth): register, trade a password for a token, and
revoke it. Sign-ins and registrations are throttled (siesta_site/throttling.py)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate, get_user_model, password_validation
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.services import (
    USERNAME_TAKEN,
    user_register,
    user_token_issue,
    user_token_revoke,
)
from siesta_site import throttling
from siesta_site.api.base import SiestaApi, signed_in_user
from siesta_site.api.serializers import ErrorSerializer

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

    @extend_schema(
        tags=["auth"],
        summary="Revoke the caller's API token",
        request=None,
        responses={204: None, 401: ErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        # A script signs in again with POST /api/auth/token/, which issues a new key.
        user_token_revoke(user=signed_in_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)

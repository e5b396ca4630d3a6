"""Accounts for scripts and bots (API.md, Auth): register, and trade a password for a token."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate, get_user_model, password_validation
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from games.api.base import SiestaApi
from games.api.serializers import ErrorSerializer

User = get_user_model()

USERNAME_TAKEN = gettext_lazy("A user with that username already exists.")


def user_register(*, username: str, password: str) -> tuple[str, str]:
    """Create an account and its API token; returns (username, token key)."""
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password)
            token = Token.objects.create(user=user)
    except IntegrityError:  # taken between the check and the insert
        raise serializers.ValidationError({"username": [USERNAME_TAKEN]}) from None
    return user.get_username(), token.key


class _NoCredentialsApi(SiestaApi):
    # Sign-up and sign-in take no credentials, so no session (and no CSRF) applies.

    authentication_classes = []
    permission_classes = [AllowAny]


class RegisterApi(_NoCredentialsApi):
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
        },
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        username, token = user_register(**data.validated_data)
        output = self.OutputSerializer({"username": username, "token": token})
        return Response(output.data, status=status.HTTP_201_CREATED)


class TokenApi(_NoCredentialsApi):
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
        },
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(request._request, **data.validated_data)
        if user is None:
            raise serializers.ValidationError(_("The username or password is not right."))
        token, _created = Token.objects.get_or_create(user=user)
        return Response(self.OutputSerializer({"token": token.key}).data)

"""The shapes of the API's error bodies (``core.api.errors``), for the schema."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

CODE_HELP = (
    "What went wrong, for programs: the engine's code for a refused move (occupied, "
    "not_adjacent, ...), else invalid, not_allowed, not_found, conflict, too_many, or DRF's "
    "(not_authenticated, authentication_failed, permission_denied, method_not_allowed, "
    "parse_error, unsupported_media_type, throttled)."
)


def code_field() -> serializers.CharField:
    return serializers.CharField(help_text=CODE_HELP)


class ErrorSerializer(serializers.Serializer[Any]):
    """Every 4xx under /api/: ``{"error", "code"}``; a 400 for invalid input also carries each
    field's messages under the field's name."""

    error = serializers.CharField(help_text="What went wrong, in the request's language.")
    code = code_field()


@extend_schema_serializer(component_name="IllegalMoveError")
class IllegalMoveErrorSerializer(serializers.Serializer[Any]):
    error = serializers.CharField()
    code = serializers.CharField(
        help_text="Why the engine refused the move, e.g. occupied, not_adjacent, "
        "shadow_next_to_sun, no_point (see docs/api.md); invalid for a body that is not "
        "a move at all. The error text is in the request's language.",
    )
    cell = serializers.CharField(
        required=False,
        allow_null=True,
        help_text="The cell at fault, like F5, or null: present when the engine refused the "
        "move; a body that does not validate carries its fields' messages instead.",
    )


@extend_schema_serializer(component_name="StalePlyError")
class StalePlyErrorSerializer(serializers.Serializer[Any]):
    error = serializers.CharField()
    code = code_field()
    ply = serializers.IntegerField(help_text="The game's current ply.")

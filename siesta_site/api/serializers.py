"""The shapes of the API's error bodies (``siesta_site.api.errors``), for the schema."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers


class ErrorSerializer(serializers.Serializer[Any]):
    error = serializers.CharField()


@extend_schema_serializer(component_name="IllegalMoveError")
class IllegalMoveErrorSerializer(serializers.Serializer[Any]):
    error = serializers.CharField()
    cell = serializers.CharField(allow_null=True, help_text="The cell at fault, like F5.")
    code = serializers.CharField(
        required=False,
        help_text="Why the engine refused the move, e.g. occupied, not_adjacent, "
        "shadow_next_to_sun, no_point (see docs/api.md). The error text is in the "
        "request's language.",
    )


@extend_schema_serializer(component_name="StalePlyError")
class StalePlyErrorSerializer(serializers.Serializer[Any]):
    error = serializers.CharField()
    ply = serializers.IntegerField(help_text="The game's current ply.")

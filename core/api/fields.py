"""Input fields as strict as the schema they produce."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class StrictBooleanField(serializers.BooleanField):
    """A JSON ``true`` or ``false`` and nothing else: DRF's own field also takes ``0``, ``1``,
    ``"yes"``..., which the schema (``type: boolean``) does not allow."""

    def to_internal_value(self, data: Any) -> bool:
        if isinstance(data, bool):
            return data
        self.fail("invalid", input=data)
        raise AssertionError("unreachable")  # fail() raises


class QueryBooleanField(serializers.BooleanField):
    """A query parameter ``true`` or ``false`` and nothing else (the schema's ``boolean`` in a
    query string): DRF's own field also takes ``1``, ``yes``, ``on``..."""

    def to_internal_value(self, data: Any) -> bool:
        if data in ("true", "false"):
            return bool(data == "true")
        self.fail("invalid", input=data)
        raise AssertionError("unreachable")  # fail() raises

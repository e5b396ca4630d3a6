"""JSON from clients, nested no deeper than a message of this site ever is.

Python's parser raises RecursionError (not ValueError) on very deep input, and a deep value that
did parse can still overflow the stack later when it is echoed back or walked. Both the REST API
(``JSONParser``) and the WebSocket consumer read client JSON through here.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework import parsers
from rest_framework.exceptions import APIException, ParseError
from rest_framework.utils.json import strict_constant as json_strict_constant

MAX_DEPTH = 32
"""Arrays and objects inside each other; the deepest message of the API has 3 levels."""

MAX_BODY_BYTES = 64 * 1024
"""The largest REST body read; the largest request of the API is well under 1 KiB."""


class TooDeep(ValueError):
    def __init__(self) -> None:
        super().__init__(
            _("The JSON is nested too deeply: at most %(depth)s levels.") % {"depth": MAX_DEPTH}
        )


class HasNul(ValueError):
    def __init__(self) -> None:
        super().__init__(_("The JSON holds a NUL character, which no value may hold."))


def check_depth(value: Any, *, nul: bool = False) -> None:
    """Raise TooDeep when ``value`` nests lists and dicts more than MAX_DEPTH levels (iterative);
    with ``nul``, HasNul when a string (a key or a value) holds a NUL character, which PostgreSQL
    text cannot store."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
            if nul and any("\x00" in key for key in item):
                raise HasNul()
        elif isinstance(item, str):
            if nul and "\x00" in item:
                raise HasNul()
            continue
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth >= MAX_DEPTH:
            raise TooDeep()
        stack.extend((child, depth + 1) for child in children)


def loads(text: str | bytes) -> Any:
    """``json.loads`` that raises ``TooDeep`` (a ValueError) instead of overflowing."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise TooDeep() from None
    check_depth(value)
    return value


class BodyTooLarge(APIException):
    status_code = 413
    default_code = "body_too_large"


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser with limits: a body larger than MAX_BODY_BYTES is a 413 (DRF reads the
    request stream itself, past Django's DATA_UPLOAD_MAX_MEMORY_SIZE), and one nested too deeply
    or holding a NUL character a 400, rather than a 500."""

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        raw = stream.read(MAX_BODY_BYTES + 1) if stream is not None else b""
        if len(raw) > MAX_BODY_BYTES:
            raise BodyTooLarge(
                _("The body is too large: at most %(limit)s bytes.") % {"limit": MAX_BODY_BYTES}
            )
        try:
            data = json.loads(
                raw.decode(encoding), parse_constant=json_strict_constant if self.strict else None
            )
        except RecursionError:
            raise ParseError(str(TooDeep())) from None
        except ValueError as exc:
            raise ParseError(_("JSON parse error - %(error)s") % {"error": exc}) from None
        try:
            check_depth(data, nul=True)
        except (TooDeep, HasNul) as exc:
            raise ParseError(str(exc)) from None
        return data

"""Checking broadcasts and socket frames against their TypedDicts (``games.state``,
``tournaments.state``, ``social.state``), as Zulip's event schema tests do.

``broadcasts`` (a fixture) records every event the code hands to the channel layer, in the real
flows of a test; ``assert_round_trips`` checks that each survives JSON unchanged (no tuples, lazy
strings, datetimes or non-string keys slip through: the Redis layer and the socket would change or
refuse them) and matches its type exactly: every required key, no unknown key, each value of its
declared type (Literal values included).
"""

from __future__ import annotations

import functools
import json
import types
from dataclasses import dataclass, field
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest


class PayloadMismatch(AssertionError):
    pass


def check_type(value: Any, expected: Any, path: str = "$") -> None:
    """Raise ``PayloadMismatch`` unless ``value`` (decoded JSON) is of the type ``expected``."""
    origin = get_origin(expected)
    if expected is Any:
        return
    if is_typeddict(expected):
        if not isinstance(value, dict):
            raise PayloadMismatch(f"{path}: {expected.__name__} wanted, got {value!r}")
        hints = get_type_hints(expected)
        missing = expected.__required_keys__ - value.keys()
        unknown = value.keys() - hints.keys()
        if missing or unknown:
            raise PayloadMismatch(
                f"{path}: {expected.__name__} misses {sorted(missing)}, "
                f"has unknown {sorted(unknown)}"
            )
        for key, item in value.items():
            check_type(item, hints[key], f"{path}.{key}")
        return
    if origin is Literal:
        if not any(type(value) is type(v) and value == v for v in get_args(expected)):
            raise PayloadMismatch(f"{path}: one of {get_args(expected)} wanted, got {value!r}")
        return
    if origin in (Union, types.UnionType):
        errors = []
        for option in get_args(expected):
            try:
                check_type(value, option, path)
            except PayloadMismatch as exc:
                errors.append(str(exc))
            else:
                return
        raise PayloadMismatch(f"{path}: no option of {expected} fits: {errors}")
    if origin is list:
        if not isinstance(value, list):
            raise PayloadMismatch(f"{path}: a list wanted, got {value!r}")
        (item_type,) = get_args(expected)
        for index, item in enumerate(value):
            check_type(item, item_type, f"{path}[{index}]")
        return
    if origin is dict:
        key_type, item_type = get_args(expected)
        if not isinstance(value, dict) or key_type is not str:
            raise PayloadMismatch(f"{path}: an object wanted, got {value!r}")
        for key, item in value.items():
            check_type(item, item_type, f"{path}.{key}")
        return
    if expected is type(None) or expected is None:
        if value is not None:
            raise PayloadMismatch(f"{path}: null wanted, got {value!r}")
        return
    if expected is float:
        wanted: tuple[type, ...] = (int, float)
    elif expected in (int, str, bool):
        wanted = (expected,)
    else:
        raise TypeError(f"{path}: the checker does not know {expected!r}")
    if not isinstance(value, wanted) or (isinstance(value, bool) and expected is not bool):
        raise PayloadMismatch(f"{path}: {expected.__name__} wanted, got {value!r}")


def assert_round_trips(payload: Any, expected: Any) -> Any:
    """``payload`` equals itself after JSON and has the type ``expected``; returns the decoded
    copy."""
    decoded = json.loads(json.dumps(payload))
    assert decoded == payload, "changed by a JSON round trip"
    check_type(decoded, expected)
    return decoded


@dataclass
class Broadcasts:
    """The events handed to the channel layer, in order: ``(group, event)``."""

    sent: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def of_type(self, event_type: str) -> list[dict[str, Any]]:
        return [event for _group, event in self.sent if event["type"] == event_type]

    def types(self) -> set[str]:
        return {event["type"] for _group, event in self.sent}


class _RecordingLayer:
    def __init__(self, broadcasts: Broadcasts) -> None:
        self.broadcasts = broadcasts

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self.broadcasts.sent.append((group, message))


@pytest.fixture
def broadcasts(monkeypatch: pytest.MonkeyPatch) -> Broadcasts:
    """Every event the apps send to a group during the test (nothing reaches a real layer)."""
    import core.broadcast

    recorded = Broadcasts()
    layer = _RecordingLayer(recorded)
    monkeypatch.setattr(core.broadcast, "get_channel_layer", lambda: layer)
    return recorded


@functools.cache
def _socket_validators() -> dict[str, tuple[Any, Any]]:
    """Per socket of the AsyncAPI document (``siesta_site.asyncapi``): a validator of what the
    site sends on it and one of what it receives."""
    from jsonschema import Draft7Validator

    from siesta_site.asyncapi import document

    spec = document()
    validators = {}
    for name, channel in spec["channels"].items():
        operations = {
            op["action"]: op for op in spec["operations"].values() if op["channel"]["$ref"]
            == f"#/channels/{name}"
        }  # fmt: skip
        pair = []
        for action in ("send", "receive"):
            payloads = []
            for ref in operations[action]["messages"]:
                key = ref["$ref"].rsplit("/", 1)[1]
                message = channel["messages"][key]["$ref"].rsplit("/", 1)[1]
                payloads.append(spec["components"]["messages"][message]["payload"])
            schema = {"components": spec["components"], "oneOf": payloads}
            pair.append(Draft7Validator(schema))
        validators[name] = (pair[0], pair[1])
    return validators


def assert_documented(socket: str, frame: Any, *, sent_by_site: bool = True) -> None:
    """``frame`` (decoded JSON) is one of the messages of ``socket`` (``game``, ``lobby``,
    ``tournament``) in the AsyncAPI document: exactly one of them, nothing undeclared."""
    sends, receives = _socket_validators()[socket]
    errors = list((sends if sent_by_site else receives).iter_errors(frame))
    assert not errors, f"{socket} frame not in the AsyncAPI document: {frame!r}: {errors[0]}"

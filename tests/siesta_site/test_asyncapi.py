"""The AsyncAPI document of the sockets (``siesta_site.asyncapi``, ``GET /api/asyncapi.json``):
served beside the OpenAPI schema and linked from it, every reference resolves, every schema is
valid JSON Schema, every frame the consumers send and every message they read is in it, and real
frames validate against it (here a script's whole handshake and game; the ``test_broadcasts``
modules check every frame of each socket)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from jsonschema import Draft7Validator

from core import sockets
from siesta_site import routing
from siesta_site.asyncapi import SOCKETS, document
from tests.payloads import assert_documented

ROOT = Path(django_settings.BASE_DIR)
CONSUMERS = [
    ROOT / "games" / "consumers.py",
    ROOT / "social" / "consumers.py",
    ROOT / "tournaments" / "consumers.py",
    ROOT / "core" / "sockets.py",
]


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [ref for value in node.values() for ref in _refs(value)]
    if isinstance(node, list):
        return [ref for value in node for ref in _refs(value)]
    return []


def _resolve(spec: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), ref
    node: Any = spec
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def _channel_types(spec: dict[str, Any], channel: str, action: str) -> set[str]:
    """The ``type`` of every message the site ``send``s or ``receive``s on ``channel``."""
    kinds = set()
    for operation in spec["operations"].values():
        if (
            operation["channel"]["$ref"] == f"#/channels/{channel}"
            and operation["action"] == action
        ):
            for ref in operation["messages"]:
                message = _resolve(spec, _resolve(spec, ref["$ref"])["$ref"])
                kinds.add(message["name"])
    return kinds


def test_the_document_is_served_beside_the_openapi_schema_and_linked_from_it(client, settings):
    settings.ALLOWED_HOSTS = ["siesta.example", "testserver"]
    response = client.get("/api/asyncapi.json", HTTP_HOST="siesta.example")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    spec = response.json()
    assert spec["asyncapi"] == "3.0.0"
    assert spec["servers"]["site"] == {
        "host": "siesta.example",
        "protocol": "ws",
        "description": "The site that served this document.",
    }
    openapi = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    assert openapi["externalDocs"]["url"] == "/api/asyncapi.json"
    assert "/api/asyncapi.json" in openapi["info"]["description"]


def test_every_channel_is_a_routed_socket():
    routed = {
        "/" + re.sub(r"<str:\w+_id>", "{id}", str(p.pattern)) for p in routing.websocket_urlpatterns
    }
    assert {socket.address for socket in SOCKETS} == routed - {"/ws/echo/<str:room>/"}


def test_every_reference_resolves_and_every_schema_is_valid_json_schema():
    spec = document()
    for ref in _refs(spec):
        assert _resolve(spec, ref) is not None
    for name, schema in spec["components"]["schemas"].items():
        Draft7Validator.check_schema(schema)
        assert schema["title"] == name
    for operation in spec["operations"].values():
        assert operation["action"] in ("send", "receive")


def _sent_in_source() -> tuple[set[str], set[str]]:
    """What the consumers' code sends: the frame types it annotates (``frame: AckFrame = ...``)
    and the ``"type"`` literals of the dicts it builds."""
    annotated: set[str] = set()
    literals: set[str] = set()
    for path in CONSUMERS:
        text = path.read_text()
        annotated |= set(re.findall(r"\b\w+: (\w+Frame) = ", text))
        literals |= set(re.findall(r'\{"type": "(\w+)"', text))
    return annotated, literals


def test_every_frame_the_consumers_send_is_in_the_document():
    spec = document()
    annotated, literals = _sent_in_source()
    sent = set().union(*(_channel_types(spec, s.name, "send") for s in SOCKETS))

    assert annotated, "the scan found no frame"
    assert annotated <= set(spec["components"]["messages"]), annotated - set(
        spec["components"]["messages"]
    )
    # Literals of event types (``gate.layer_lost``) are not frames; the rest are.
    assert {kind for kind in literals if "." not in kind} <= sent


def test_every_message_the_sockets_read_is_in_the_document():
    from social.consumers import GameChatConsumer, TournamentChatConsumer

    spec = document()
    assert _channel_types(spec, "game", "receive") == set(GameChatConsumer._handlers)
    assert _channel_types(spec, "tournament", "receive") == {
        "sync",
        *TournamentChatConsumer._chat_handlers,
    }
    assert _channel_types(spec, "lobby", "receive") == {"auth", "ping", "sync"}


def test_the_document_refuses_what_no_socket_sends():
    assert_documented("game", {"type": "ack", "id": 1, "ply": 1, "points": [1, 0]})
    for wrong in (
        {"type": "ack", "id": 1, "ply": 1},  # a field missing
        {"type": "ack", "id": 1, "ply": 1, "points": [1, 0], "extra": True},  # one undeclared
        {"type": "ack", "id": 1, "ply": "1", "points": [1, 0]},  # a field of the wrong type
        {"type": "welcome", "username": None, "online": 1},  # another socket's frame
    ):
        with pytest.raises(AssertionError, match="not in the AsyncAPI document"):
            assert_documented("game", wrong)
    assert_documented("game", {"type": "move", "move": "SA1", "ply": 0}, sent_by_site=False)
    with pytest.raises(AssertionError):
        assert_documented("game", {"type": "move", "ply": 0}, sent_by_site=False)


def test_every_error_frame_requires_a_code_from_the_listed_ones():
    spec = document()
    errors = [m for m in spec["components"]["messages"].values() if m["name"] == "error"]
    assert len(errors) >= 3  # the game's, the lobby's and tournament's, the tournament chat's
    for message in errors:
        payload = message["payload"]
        schema = _resolve(spec, payload["$ref"]) if "$ref" in payload else payload
        assert "code" in schema["required"], message["title"]
        codes = set(schema["properties"]["code"]["enum"])
        assert set(sockets.ERROR_CODES) <= codes, message["title"]
    game_error = spec["components"]["messages"]["ErrorFrame"]["payload"]
    game_codes = set(_resolve(spec, game_error["$ref"])["properties"]["code"]["enum"])
    assert {"occupied", "engine_budget", "conflict"} <= game_codes


def test_the_socket_error_codes_are_tabled_in_sockets_md():
    text = (Path(django_settings.BASE_DIR) / "docs" / "sockets.md").read_text()
    table = text.split("### Error codes", 1)[1].split("\n\n")[2]
    tabled = set(re.findall(r"^\| `([a-z_]+)`", table, re.MULTILINE))
    assert tabled >= set(sockets.ERROR_CODES)

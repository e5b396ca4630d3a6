"""The schema of playing together is exact: each answer's component lists every field the
services send (``social.state``'s TypedDicts), each required; and a cancelled seek stays
readable, clearly cancelled."""

from __future__ import annotations

import typing

import pytest
from rest_framework.test import APIClient

from social import state
from social.models import Seek
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def schema(db) -> dict:
    return APIClient().get("/api/schema/?format=json").json()


@pytest.mark.parametrize(
    ("component", "payload"),
    [
        ("Seek", state.SeekPayload),
        ("Challenge", state.ChallengePayload),
        ("Notification", state.NotificationPayload),
    ],
)
def test_each_component_is_its_payload(schema, component, payload):
    found = schema["components"]["schemas"][component]
    keys = set(typing.get_type_hints(payload))
    assert set(found["properties"]) == keys
    assert set(found["required"]) == keys


def _ok(schema: dict, path: str, method: str = "get") -> dict:
    return schema["paths"][path][method]["responses"]["200"]["content"]["application/json"][
        "schema"
    ]


def test_the_reads_are_typed(schema):
    components = schema["components"]["schemas"]
    assert _ok(schema, "/api/seeks/") == {"$ref": "#/components/schemas/CurrentSeek"}
    assert components["CurrentSeek"]["properties"]["seek"]["allOf"] == [
        {"$ref": "#/components/schemas/Seek"}
    ]
    assert components["CurrentSeek"]["properties"]["seek"]["nullable"] is True
    assert _ok(schema, "/api/notifications/") == {"$ref": "#/components/schemas/Notifications"}
    assert components["Notifications"]["properties"]["results"]["items"] == {
        "$ref": "#/components/schemas/Notification"
    }
    assert _ok(schema, "/api/notifications/read/", "post") == {
        "$ref": "#/components/schemas/Unread"
    }
    assert _ok(schema, "/api/presence/") == {"$ref": "#/components/schemas/Presence"}
    assert components["Presence"]["properties"]["users"]["additionalProperties"] == {
        "type": "boolean"
    }
    seek = {"$ref": "#/components/schemas/Seek"}
    assert _ok(schema, "/api/seeks/{seek_id}/") == seek
    assert _ok(schema, "/api/seeks/{seek_id}/", "delete") == seek
    created = schema["paths"]["/api/seeks/"]["post"]["responses"]["201"]
    assert created["content"]["application/json"]["schema"] == seek


def test_a_deleted_seek_reads_as_cancelled_and_deleting_again_changes_nothing():
    client = APIClient()
    client.force_authenticate(UserFactory())
    seek = client.post("/api/seeks/", {}, format="json").json()

    deleted = client.delete(f"/api/seeks/{seek['id']}/")
    read = client.get(f"/api/seeks/{seek['id']}/")
    again = client.delete(f"/api/seeks/{seek['id']}/")

    assert deleted.status_code == read.status_code == again.status_code == 200
    assert deleted.json() == read.json() == again.json() == {**seek, "status": "cancelled"}
    assert client.get("/api/seeks/").json() == {"seek": None}
    assert Seek.objects.get(pk=seek["id"]).status == Seek.Status.CANCELLED


def test_the_answers_have_the_documented_keys(schema):
    user = UserFactory()
    client = APIClient()
    client.force_authenticate(user)
    components = schema["components"]["schemas"]
    seek = client.post("/api/seeks/", {}, format="json").json()
    assert set(seek) == set(components["Seek"]["properties"])
    assert set(client.get("/api/seeks/").json()) == {"seek"}
    assert set(client.get("/api/notifications/").json()) == set(
        components["Notifications"]["properties"]
    )
    presence = client.get(f"/api/presence/?users={user.username},nobody").json()
    assert set(presence) == set(components["Presence"]["properties"])
    assert presence["users"] == {user.username: False, "nobody": False}

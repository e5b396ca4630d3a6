"""The OpenAPI schema lists the answers every operation may give, whatever its view declares."""

import pytest
import yaml
from django.test import Client
from django.urls import reverse

from core.api.schema import METHODS

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        response = Client().get(reverse("schema"))
    assert response.status_code == 200
    return yaml.safe_load(response.content)


def _operations(schema):
    for path, item in schema["paths"].items():
        for method in METHODS:
            if method in item:
                yield f"{method.upper()} {path}", item[method]


def test_every_operation_lists_429_and_503_with_retry_after(schema):
    operations = list(_operations(schema))
    assert len(operations) > 40
    for name, operation in operations:
        for status in ("429", "503"):
            response = operation["responses"].get(status)
            assert response is not None, (name, status)
            assert "Retry-After" in response["headers"], (name, status)
            assert response["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/Error"
            }, (name, status)


def test_answering_a_challenge_lists_its_409(schema):
    paths = schema["paths"]
    challenge = next(p for p in paths if p.startswith("/api/challenges/{") and p.endswith("}/"))
    operations = [
        paths[challenge]["delete"],
        paths[challenge + "accept/"]["post"],
        paths[challenge + "decline/"]["post"],
    ]
    for operation in operations:
        assert "409" in operation["responses"], operation["summary"]


def test_a_give_up_answers_an_empty_move_the_schema_allows(schema):
    move = schema["components"]["schemas"]["PuzzleAttempt"]["properties"]["move"]
    assert move.get("minLength", 0) == 0

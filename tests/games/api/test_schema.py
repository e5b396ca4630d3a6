"""The OpenAPI schema documents the games API, and documents it truly."""

import pytest
import yaml
from django.urls import reverse

from games import selectors
from games.api.serializers import GameSerializer, ResultSerializer, SeatSerializer, TurnSerializer
from tests.games.api.helpers import play, token_client
from tests.games.factories import make_game

pytestmark = pytest.mark.django_db

PATHS = {
    "/api/auth/register/": {"post"},
    "/api/auth/token/": {"post"},
    "/api/games/": {"get", "post"},
    "/api/games/{game_id}/": {"get"},
    "/api/games/{game_id}/join/": {"post"},
    "/api/games/{game_id}/moves/": {"post"},
    "/api/games/{game_id}/hint/": {"post"},
    "/api/games/{game_id}/resign/": {"post"},
    "/api/games/{game_id}/record/": {"get"},
}


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    from django.test import Client

    with django_db_blocker.unblock():
        response = Client().get(reverse("schema"))
    assert response.status_code == 200
    return yaml.safe_load(response.content)


def test_schema_lists_every_operation(schema):
    for path, methods in PATHS.items():
        assert path in schema["paths"], path
        assert methods <= set(schema["paths"][path]), path


def test_schema_describes_requests_and_responses(schema):
    paths = schema["paths"]
    create = paths["/api/games/"]["post"]
    assert create["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/GameCreateInput"
    }
    assert {"201", "400", "401"} <= set(create["responses"])
    moves = paths["/api/games/{game_id}/moves/"]["post"]["responses"]
    assert moves["400"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/IllegalMoveError"
    )
    assert moves["409"]["content"]["application/json"]["schema"]["$ref"].endswith("/StalePlyError")
    listing = paths["/api/games/"]["get"]
    assert listing["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/PaginatedGameList"
    )
    assert {"status", "player", "page"} <= {p["name"] for p in listing["parameters"]}
    components = schema["components"]["schemas"]
    assert set(components["MoveInput"]["required"]) == {"move", "ply"}
    assert set(components["Game"]["properties"]) >= {"seats", "board", "turns", "result", "ply"}


def test_docs_page_renders(client):
    response = client.get(reverse("api-docs"))

    assert response.status_code == 200
    # The start-up script is a file of its own (no inline script, for the CSP); it loads the schema.
    assert '<script src="/api/docs/?script="></script>' in response.content.decode()
    assert "<style" not in response.content.decode()
    script = client.get(reverse("api-docs") + "?script=")
    assert reverse("schema") in script.content.decode()


def test_documented_game_matches_the_real_one(alice, bob):
    """``GameSerializer`` documents ``selectors.game_state``: the keys must stay the same."""
    game = make_game(users=[alice, bob])
    client = token_client(alice)
    play(client, game.pk, "SA1 RB1 HC1", 0)
    client.post(reverse("api-game-resign", args=[game.pk]))
    state = selectors.game_state(selectors.game_get(game.pk))

    assert set(state) == set(GameSerializer().fields)
    rated = selectors.game_state(selectors.game_get(game.pk), ratings=True)
    assert set(rated["seats"][0]) == set(SeatSerializer().fields)
    assert set(state["seats"][0]) <= set(SeatSerializer().fields)  # socket frames: no ratings
    assert set(state["turns"][0]) == set(TurnSerializer().fields)
    assert set(state["result"]) == set(ResultSerializer().fields)
    assert set(state["supply"]) == {"suns", "shadows"}

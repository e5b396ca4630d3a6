"""Attack probes on engine work: one caller hammering hints, the analysis API or puzzle checks
runs out of engine budget (measured CPU seconds) and is refused with 429 + ``Retry-After``
(an ``error`` frame on the game socket) before any more work, while others go on. Signed out,
the budget is the address's."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse
from rest_framework.test import APIClient

from games.engine_budget import user_ident
from games.models import Game
from learn.models import Puzzle
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.games.test_consumers import (  # noqa: F401 - fixtures
    Connect,
    _own_channel_layer_prefix,
    connect,
    receive,
    receive_state,
)
from tests.learn.helpers import recorded
from tests.learn.test_puzzles import _small_puzzle

BEST = reverse("api-analysis-best")
LINE = reverse("api-analysis-line")
TURN = reverse("api-analysis-turn")


def assert_budget_refusal(response) -> int:
    assert response.status_code == 429, response.content
    body = response.json()
    assert body["code"] == "engine_budget"
    assert body["retry_after"] == int(response["Retry-After"]) >= 1
    assert body["error"]
    return body["retry_after"]


def until_refused(post, limit: int = 500) -> int:
    """Call until the budget refuses; the number of calls answered before."""
    for answered in range(limit):
        response = post()
        if response.status_code == 429:
            assert_budget_refusal(response)
            return answered
        assert response.status_code == 200, response.content
    raise AssertionError(f"{limit} calls and never refused")


@pytest.fixture
def small_budget(engine_budget, settings):
    """A budget of 20 ms: a handful of real searches spend it."""
    settings.SIESTA_ENGINE_BUDGET = 0.02
    return engine_budget


# -- the analysis API ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_analysis_api_is_charged_cpu_and_refused_when_spent(small_budget):
    client = APIClient(REMOTE_ADDR="203.0.113.7")
    body = {"record": recorded(turns=12), "count": 10}

    answered = until_refused(lambda: client.post(BEST, body, format="json"))

    assert answered >= 1
    # Every analysis call draws from the same budget, and the refusal comes before any work
    # (a bad record is not even read).
    assert_budget_refusal(client.post(LINE, body, format="json"))
    retry = assert_budget_refusal(client.post(TURN, {**body, "move": "SA1"}, format="json"))
    # The budget refills with time: the last search's overdraft, then some, by Retry-After.
    small_budget.now += retry - 1
    assert_budget_refusal(client.post(BEST, body, format="json"))
    small_budget.now += 1
    assert client.post(BEST, body, format="json").status_code == 200


@pytest.mark.django_db
def test_signed_out_the_budget_is_per_address(small_budget):
    body = {"record": recorded(turns=12)}
    hammer = APIClient(REMOTE_ADDR="203.0.113.8")
    until_refused(lambda: hammer.post(BEST, body, format="json"))

    other = APIClient(REMOTE_ADDR="203.0.113.9")
    assert other.post(BEST, body, format="json").status_code == 200
    # A signed-in user at the same address has a budget of their own.
    user = UserFactory()
    signed_in = APIClient(REMOTE_ADDR="203.0.113.8")
    signed_in.force_authenticate(user)
    assert signed_in.post(BEST, body, format="json").status_code == 200


@pytest.mark.django_db
def test_ten_accounts_behind_one_address_share_its_budget(small_budget, settings):
    settings.SIESTA_ENGINE_BUDGET = 2.0  # each account's budget is far from spent
    settings.SIESTA_ENGINE_ADDRESS_BUDGET = 0.02  # the address's is small
    body = {"record": recorded(turns=12), "count": 10}
    accounts = []
    for _ in range(10):
        client = APIClient(REMOTE_ADDR="203.0.113.20", HTTP_ACCEPT_LANGUAGE="de")
        client.force_authenticate(UserFactory())
        accounts.append(client)

    answered = until_refused(lambda: accounts[0].post(BEST, body, format="json"))

    assert answered >= 1
    for client in accounts[1:]:  # the other nine, who never searched, are refused with it
        refused = client.post(BEST, body, format="json")
        assert_budget_refusal(refused)
        assert refused.json()["error"].startswith("Die Engine-Zeit deines Netzwerks")
    # Another user elsewhere is not.
    other = APIClient(REMOTE_ADDR="198.51.100.20")
    other.force_authenticate(UserFactory())
    assert other.post(BEST, body, format="json").status_code == 200


@pytest.mark.django_db
def test_a_signed_in_user_keeps_their_budget_across_addresses(engine_budget):
    user = UserFactory()
    engine_budget.budget.charge(user_ident(user), 2.0)
    for address in ("203.0.113.10", "198.51.100.1"):
        client = APIClient(REMOTE_ADDR=address)
        client.force_authenticate(user)
        assert_budget_refusal(client.post(BEST, {"record": recorded()}, format="json"))


# -- puzzle checks --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_puzzle_checks_draw_from_the_budget(engine_budget):
    puzzle: Puzzle = _small_puzzle()
    url = reverse("api-puzzle-attempt", args=[puzzle.pk])
    client = APIClient(REMOTE_ADDR="203.0.113.11")
    user = UserFactory()
    client.force_authenticate(user)

    assert client.post(url, {"move": puzzle.solution}, format="json").status_code == 200
    assert engine_budget.budget.owed(user_ident(user)) > 0

    engine_budget.budget.charge(user_ident(user), 2.0)
    refused = client.post(url, {"move": puzzle.solution}, format="json")
    assert_budget_refusal(refused)
    puzzle.refresh_from_db()
    assert puzzle.attempts == 1  # the refused attempt changed nothing


# -- hints ----------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_rest_hint_is_charged_and_refused_when_spent(engine_budget):
    first, second = UserFactory(), UserFactory()
    game = make_game(players=2, users=[first, second])
    client = APIClient()
    client.force_authenticate(first)
    url = reverse("api-game-hint", args=[game.pk])

    assert client.post(url).status_code == 200
    assert engine_budget.budget.owed(user_ident(first)) > 0

    engine_budget.budget.charge(user_ident(first), 2.0)
    retry = assert_budget_refusal(client.post(url))
    assert retry <= 60
    # Refused before the hint: the seat's hint mark is where the first hint left it, and the
    # opponent's budget is untouched.
    assert engine_budget.budget.owed(user_ident(second)) == 0
    engine_budget.now += retry
    assert client.post(url).status_code == 200


@pytest.mark.django_db(transaction=True)
async def test_a_socket_hint_over_budget_gets_an_error_frame(
    engine_budget,
    connect: Connect,  # noqa: F811
):
    first, second = await database_sync_to_async(lambda: (UserFactory(), UserFactory()))()
    game: Game = await database_sync_to_async(make_game)(players=2, users=[first, second])
    socket = await connect(game.pk, user=first)
    await receive_state(socket)
    engine_budget.budget.charge(user_ident(first), 2.5)

    await socket.send_json_to({"type": "hint", "id": "h1"})
    refused = await receive(socket)

    assert refused["type"] == "error"
    assert refused["id"] == "h1"
    assert refused["code"] == "engine_budget"
    assert refused["retry_after"] == 16
    assert "16 seconds" in refused["error"]

    engine_budget.now += 16
    await socket.send_json_to({"type": "hint", "id": "h2"})
    replies = [await receive(socket) for _ in range(2)]  # the hint, and the hinted mark's state
    hint = next(m for m in replies if m["type"] == "hint")
    assert hint["id"] == "h2"
    assert hint["move"]


@pytest.mark.django_db
def test_the_refusal_is_in_the_callers_language(engine_budget):
    client = APIClient(REMOTE_ADDR="203.0.113.12", HTTP_ACCEPT_LANGUAGE="de")
    engine_budget.budget.charge("address:203.0.113.12", 2.5)
    refused = client.post(BEST, {"record": recorded()}, format="json")
    assert_budget_refusal(refused)
    assert refused.json()["error"] == (
        "Du hast deine Engine-Zeit vorerst aufgebraucht. Versuche es in 16 Sekunden erneut."
    )

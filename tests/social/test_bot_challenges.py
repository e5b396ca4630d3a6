"""Challenging a bot (the leaderboard's "Challenge a bot", POST /api/challenges/bots/): bots always
accept, so the game starts at once; it is casual, and it counts towards the bot level's
performance against people."""

from __future__ import annotations

import pytest
from django.test import override_settings
from django.urls import reverse
from rest_framework.test import APIClient

from games import services as game_services
from games.models import Game
from games.services import InvalidInput, LimitReached
from ratings.models import BotResult
from social.models import Challenge, Notification
from social.services import challenges as services
from tests.factories import UserFactory
from tests.ratings.play import play_round

pytestmark = pytest.mark.django_db

URL = "/api/challenges/bots/"


def test_the_game_starts_at_once_casual_with_the_settings():
    ana = UserFactory(username="ana")
    game = services.challenge_bot(
        challenger=ana, level="expert", variant="classic", turn_seconds=86400
    )
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert (game.players, game.mode, game.variant, game.rated, game.turn_seconds) == (
        2,
        "ffa",
        "classic",
        False,
        86400,
    )
    seats = {s.seat: s for s in game.seats.select_related("user")}
    takers = {
        ("user", s.user.username) if s.user_id else ("bot", s.bot_level) for s in seats.values()
    }
    assert takers == {("user", "ana"), ("bot", "expert")}
    # Nobody is asked: no challenge row, no notice.
    assert not Challenge.objects.exists()
    assert not Notification.objects.exists()


def test_seats_are_drawn_at_random():
    ana = UserFactory()
    firsts = set()
    with override_settings(SIESTA_MAX_BOT_GAMES=100):
        for _ in range(24):  # both orders turn up but once in 2^23
            game = services.challenge_bot(challenger=ana, level="easy")
            firsts.add(game.seats.get(seat=1).bot_level or "person")
    assert firsts == {"easy", "person"}


@pytest.mark.parametrize(
    "settings_",
    [
        {"level": "grandmaster"},
        {"level": "expert", "turn_seconds": 1},
        {"level": "expert", "variant": "x"},
    ],
)
def test_bad_settings_are_refused(settings_):
    with pytest.raises(InvalidInput):
        services.challenge_bot(challenger=UserFactory(), **settings_)
    assert not Game.objects.exists()


def test_the_limit_of_games_with_bots_holds():
    ana = UserFactory()
    with override_settings(SIESTA_MAX_BOT_GAMES=1):
        services.challenge_bot(challenger=ana, level="expert")
        with pytest.raises(LimitReached):
            services.challenge_bot(challenger=ana, level="hard")


def test_the_finished_game_counts_for_the_bot_not_for_a_rating():
    ana = UserFactory()
    game = services.challenge_bot(challenger=ana, level="expert")
    play_round(game)
    game_services.game_resign(game_id=game.pk, user=ana)
    row = BotResult.objects.get()
    assert (row.level, row.opponent_rating, row.score) == ("expert", 1500.0, 1.0)
    assert not ana.ratings.exists()


# -- API -----------------------------------------------------------------------------------------


@pytest.fixture
def api():
    client = APIClient()
    client.force_authenticate(UserFactory(username="ana"))
    return client


def test_api_answers_the_started_game(api):
    response = api.post(
        URL, {"level": "hard", "variant": "standard", "turn_seconds": 60}, format="json"
    )
    assert response.status_code == 201
    body = response.json()
    assert (body["status"], body["players"], body["rated"], body["turn_seconds"]) == (
        "active",
        2,
        False,
        60,
    )
    assert sorted((s["username"] or "", s["bot"] or "") for s in body["seats"]) == [
        ("", "hard"),
        ("ana", ""),
    ]
    assert Game.objects.get(pk=body["id"]).status == Game.Status.ACTIVE


def test_api_defaults_to_the_expert(api):
    body = api.post(URL, {}, format="json").json()
    assert {s["bot"] for s in body["seats"]} == {None, "expert"}


def test_api_refusals(api):
    bad = api.post(URL, {"level": "grandmaster"}, format="json")
    assert bad.status_code == 400
    assert "level" in bad.json()
    with override_settings(SIESTA_MAX_BOT_GAMES=1):
        assert api.post(URL, {}, format="json").status_code == 201
        full = api.post(URL, {}, format="json")
    assert full.status_code == 409
    assert "error" in full.json()
    assert APIClient().post(URL, {}, format="json").status_code == 401


def test_schema_names_the_input_and_the_game(client):
    schema = client.get("/api/schema/?format=json").json()
    post = schema["paths"][URL]["post"]
    assert post["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/BotChallengeInput"
    }
    created = post["responses"]["201"]["content"]["application/json"]["schema"]
    assert created == {"$ref": "#/components/schemas/Game"}
    level = schema["components"]["schemas"]["BotChallengeInput"]["properties"]["level"]
    assert level["default"] == "expert"


# -- the page ------------------------------------------------------------------------------------


def test_the_form_goes_straight_to_the_game(client):
    client.force_login(UserFactory())
    response = client.post(
        reverse("challenge_bot"), {"level": "expert", "variant": "standard", "turn_seconds": "120"}
    )
    game = Game.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("game", kwargs={"game_id": game.pk})
    assert game.status == Game.Status.ACTIVE
    assert not game.rated


def test_the_form_says_what_went_wrong(client):
    client.force_login(UserFactory())
    response = client.post(reverse("challenge_bot"), {"level": "grandmaster"}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("leaderboard")
    assert "Choose the settings of the challenge." in response.content.decode()
    with override_settings(SIESTA_MAX_BOT_GAMES=0):
        response = client.post(
            reverse("challenge_bot"),
            {"level": "expert", "variant": "standard", "turn_seconds": "120"},
            follow=True,
        )
    assert response.redirect_chain[-1][0] == reverse("leaderboard")
    assert not Game.objects.exists()


def test_signed_out_the_form_asks_to_log_in(client):
    response = client.post(reverse("challenge_bot"), {"level": "expert"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    assert client.get(reverse("challenge_bot")).status_code in (302, 405)

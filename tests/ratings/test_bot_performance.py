"""Each bot level's performance against people (``ratings.selectors.bot_performances``), on the
leaderboard page's "Bots" box and at GET /api/ratings/bots/: shown after 10 games, never a
rating and never ranked among the players."""

import math

import pytest
from django.urls import reverse

from ratings.selectors import BOT_PERFORMANCE_MIN_GAMES, bot_performances
from tests.factories import UserFactory
from tests.ratings.factories import RatingFactory, bot_game

pytestmark = pytest.mark.django_db

BOTS = "/api/ratings/bots/"


def by_level(pool: str = "ffa") -> dict:
    return {b.level: b for b in bot_performances(pool=pool)}


def test_every_level_is_listed_and_the_figure_waits_for_ten_games():
    for _ in range(BOT_PERFORMANCE_MIN_GAMES - 1):
        bot_game("expert", [(1500.0, 1.0)])
    levels = by_level()
    assert list(levels) == ["easy", "medium", "hard", "expert"]
    assert (levels["easy"].games, levels["easy"].performance) == (0, None)
    assert (levels["expert"].games, levels["expert"].score) == (9, 9.0)
    assert levels["expert"].performance is None

    bot_game("expert", [(1500.0, 0.0)])
    expert = by_level()["expert"]
    assert (expert.games, expert.duels, expert.score) == (10, 10, 9.0)
    # 9 of 10 against 1500: 1500 + 400 × log10(9) = 1881.70.
    assert expert.performance == pytest.approx(1500 + 400 * math.log10(9), abs=0.01)


def test_games_are_counted_once_and_each_person_met_is_a_result():
    for _ in range(BOT_PERFORMANCE_MIN_GAMES):
        bot_game("hard", [(1400.0, 1.0), (1600.0, 0.5)])
    hard = by_level()["hard"]
    assert (hard.games, hard.duels, hard.score) == (10, 20, 15.0)
    expected = 10 / (1 + 10 ** ((1400 - hard.performance) / 400)) + 10 / (
        1 + 10 ** ((1600 - hard.performance) / 400)
    )
    assert expected == pytest.approx(15.0, abs=1e-6)


def test_the_pools_are_apart():
    for _ in range(BOT_PERFORMANCE_MIN_GAMES):
        bot_game("medium", [(1500.0, 0.5)], pool="teams")
    assert by_level("ffa")["medium"].games == 0
    assert by_level("teams")["medium"].performance == pytest.approx(1500.0, abs=0.01)


def test_the_api_lists_each_level_with_its_performance(client):
    for _ in range(BOT_PERFORMANCE_MIN_GAMES):
        bot_game("expert", [(1500.0, 0.5)])
    response = client.get(BOTS)
    assert response.status_code == 200
    body = response.json()
    assert [b["level"] for b in body] == ["easy", "medium", "hard", "expert"]
    assert body[0] == {"level": "easy", "games": 0, "duels": 0, "score": 0.0, "performance": None}
    assert body[3] == {
        "level": "expert",
        "games": 10,
        "duels": 10,
        "score": 5.0,
        "performance": 1500.0,
    }
    assert client.get(BOTS, {"mode": "teams"}).json()[3]["games"] == 0


@pytest.mark.parametrize("mode", ["", "chess"])
def test_the_api_refuses_an_unknown_mode(client, mode):
    response = client.get(BOTS, {"mode": mode})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"


def test_the_schema_types_the_answer(client):
    schema = client.get("/api/schema/?format=json").json()
    ok = schema["paths"][BOTS]["get"]["responses"]["200"]["content"]["application/json"]
    assert ok["schema"] == {
        "type": "array",
        "items": {"$ref": "#/components/schemas/BotPerformance"},
    }
    component = schema["components"]["schemas"]["BotPerformance"]
    assert set(component["properties"]) == {"level", "games", "duels", "score", "performance"}
    assert component["properties"]["performance"]["nullable"] is True


def _bots_box(html: str) -> str:
    return html.split('class="ratings bots-box"', 1)[1].split("</section>", 1)[0]


def test_the_leaderboard_page_shows_the_bots_apart_from_the_players(client):
    RatingFactory(user__username="ana", rating=1600.0)
    for _ in range(BOT_PERFORMANCE_MIN_GAMES):
        bot_game("expert", [(1700.0, 0.5)])
    html = client.get(reverse("leaderboard")).content.decode()
    board, box = html.split('class="ratings bots-box"', 1)
    assert "Bot (expert)" not in board  # not ranked among the players
    box = _bots_box(html)
    assert "Bots have no rating and never change anyone's." in box
    expert = box.split('data-level="expert"', 1)[1].split("</tr>", 1)[0]
    assert "Bot (expert)" in expert
    assert ">1700<" in expert
    assert ">10<" in expert
    easy = box.split('data-level="easy"', 1)[1].split("</tr>", 1)[0]
    assert 'title="Not enough games yet"' in easy
    # Signed out: a way to log in and come back, no form.
    assert f'href="{reverse("login")}?next={reverse("leaderboard")}"' in box
    assert "bot-challenge-form" not in box


def test_a_signed_in_player_gets_the_challenge_form_with_the_expert_first(client):
    client.force_login(UserFactory())
    box = _bots_box(client.get(reverse("leaderboard") + "?mode=teams").content.decode())
    assert f'action="{reverse("challenge_bot")}"' in box
    assert '<option value="expert" selected>Bot (expert)</option>' in box
    assert 'name="rated"' not in box  # bots change nobody's rating: no choice to make

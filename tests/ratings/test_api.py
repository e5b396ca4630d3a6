"""GET /api/ratings/leaderboard/ and GET /api/users/{username}/ratings/ (API.md, "Ratings")."""

import pytest

from games import services as game_services
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.ratings.factories import RatingFactory
from tests.ratings.play import hinted_game, play_round, play_turn, resigned_game

pytestmark = pytest.mark.django_db

LEADERBOARD = "/api/ratings/leaderboard/"


def test_leaderboard_entries(client):
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    resigned_game([ana, bo], bo)
    response = client.get(LEADERBOARD, {"mode": "ffa"})
    assert response.status_code == 200
    body = response.json()
    assert (body["count"], body["next"], body["previous"]) == (2, None, None)
    assert body["results"] == [
        {
            "rank": 1,
            "username": "ana",
            "rating": 1520.0,
            "games": 1,
            "provisional": True,
            "wins": 1,
            "draws": 0,
            "losses": 0,
            "rated_games": 1,
            "hinted_games": 0,
            "hinted_share": 0.0,
        },
        {
            "rank": 2,
            "username": "bo",
            "rating": 1480.0,
            "games": 1,
            "provisional": True,
            "wins": 0,
            "draws": 0,
            "losses": 1,
            "rated_games": 1,
            "hinted_games": 0,
            "hinted_share": 0.0,
        },
    ]


def test_leaderboard_ratings_have_two_decimals_and_pools_stay_apart(client):
    RatingFactory(user__username="steady", rating=1612.3456, games=20)
    RatingFactory(user__username="teamer", pool="teams")
    (entry,) = client.get(LEADERBOARD).json()["results"]
    assert (entry["username"], entry["rating"], entry["provisional"]) == ("steady", 1612.35, False)
    (team_entry,) = client.get(LEADERBOARD, {"mode": "teams"}).json()["results"]
    assert team_entry["username"] == "teamer"


def test_leaderboard_pages_and_ranks(client):
    RatingFactory.create_batch(30)
    first = client.get(LEADERBOARD).json()
    assert first["count"] == 30
    assert len(first["results"]) == 25
    assert first["next"].endswith("page=2")
    second = client.get(first["next"]).json()
    assert [e["rank"] for e in second["results"]] == [26, 27, 28, 29, 30]


def test_leaderboard_minimum_games(client, settings):
    settings.RATINGS_LEADERBOARD_MIN_GAMES = 5
    RatingFactory(user__username="few", games=4)
    RatingFactory(user__username="enough", games=5)
    assert [e["username"] for e in client.get(LEADERBOARD).json()["results"]] == ["enough"]


@pytest.mark.parametrize("url", [LEADERBOARD, "/api/users/{username}/ratings/"])
def test_bad_mode_is_400(client, user, url):
    response = client.get(url.format(username=user.username), {"mode": "chess"})
    assert response.status_code == 400
    assert "chess" in response.json()["error"]


def test_user_ratings_oldest_first_with_reasons(client):
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    rated = resigned_game([ana, bo], bo)
    casual = resigned_game([ana, bo], ana, rated=False)
    unfinished = make_game(players=4, mode="teams", users=[ana])
    play_round(unfinished)  # no entry until a game is over
    response = client.get("/api/users/ana/ratings/")
    assert response.status_code == 200
    entries = response.json()
    assert [e["game"] for e in entries] == [rated.pk, casual.pk]
    first, second = entries
    assert first == {
        "game": rated.pk,
        "at": first["at"],
        "mode": "ffa",
        "before": 1500.0,
        "after": 1520.0,
        "delta": 20.0,
        "counted": True,
        "reason": "rated",
        "result": "win",
    }
    assert first["at"].endswith("Z")
    assert second | {"at": None} == {
        "game": casual.pk,
        "at": None,
        "mode": "ffa",
        "before": 1520.0,
        "after": 1520.0,
        "delta": 0.0,
        "counted": False,
        "reason": "casual",
        "result": None,
    }


def test_user_ratings_reasons_for_hint_and_rated_opponent(client):
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    game = make_game(users=[ana, bo])
    hint = game_services.game_hint(game_id=game.pk, user=ana)
    game_services.game_move_make(game_id=game.pk, user=ana, move=hint["move"], ply=0)
    play_turn(game.pk)
    game_services.game_resign(game_id=game.pk, user=bo)
    assert [e["reason"] for e in client.get("/api/users/ana/ratings/").json()] == ["hint"]
    # The hinter's opponent is still rated (RULES.md: a hint never cancels an opponent's result).
    assert [e["reason"] for e in client.get("/api/users/bo/ratings/").json()] == ["rated"]


def test_user_ratings_too_few_against_a_bot(client):
    ana = UserFactory(username="ana")
    game = make_game(users=[ana], bots=[(2, "easy")])
    play_turn(game.pk)
    play_turn(game.pk)
    game_services.game_resign(game_id=game.pk, user=ana)
    assert [e["reason"] for e in client.get("/api/users/ana/ratings/").json()] == [
        "too_few_rated_players"
    ]


def test_user_ratings_aborted_game(client):
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    game = make_game(users=[ana, bo])
    game_services.game_resign(game_id=game.pk, user=ana)
    (entry,) = client.get("/api/users/bo/ratings/").json()
    assert (entry["counted"], entry["reason"]) == (False, "aborted")


def test_user_ratings_mode_filter(client):
    ana = UserFactory(username="ana")
    resigned_game([ana, UserFactory()], ana)
    assert len(client.get("/api/users/ana/ratings/", {"mode": "ffa"}).json()) == 1
    assert client.get("/api/users/ana/ratings/", {"mode": "teams"}).json() == []


def test_user_ratings_of_unknown_user_is_404(client):
    response = client.get("/api/users/nobody/ratings/")
    assert response.status_code == 404
    assert "nobody" in response.json()["error"]


def test_user_without_games_has_an_empty_history(client, user):
    assert client.get(f"/api/users/{user.username}/ratings/").json() == []


def test_schema_describes_both_endpoints(client):
    response = client.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    paths = response.json()["paths"]
    leaderboard = paths["/api/ratings/leaderboard/"]["get"]
    assert {p["name"] for p in leaderboard["parameters"]} >= {"mode", "page"}
    ok = leaderboard["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok["$ref"] == "#/components/schemas/PaginatedLeaderboardEntryList"
    history = paths["/api/users/{username}/ratings/"]["get"]
    assert {"200", "400", "404"} <= set(history["responses"])


# -- hinted share ----------------------------------------------------------------------------------


def test_leaderboard_entries_carry_the_hinted_share(client):
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    hinted_game([ana, bo], bo)
    hinted_game([ana, bo], ana)
    hinted_game([ana, bo], bo, hinters={ana})
    entries = {e["username"]: e for e in client.get(LEADERBOARD).json()["results"]}
    assert {k: entries["ana"][k] for k in ("games", "rated_games", "hinted_games")} == {
        "games": 2,
        "rated_games": 3,
        "hinted_games": 1,
    }
    assert entries["ana"]["hinted_share"] == 0.333
    assert (entries["bo"]["rated_games"], entries["bo"]["hinted_share"]) == (3, 0.0)


def test_a_leaderboard_entry_without_history_has_no_share(client):
    RatingFactory(user__username="imported")
    (entry,) = client.get(LEADERBOARD).json()["results"]
    assert (entry["rated_games"], entry["hinted_games"], entry["hinted_share"]) == (0, 0, None)


def test_the_leaderboard_api_reads_a_page_in_two_queries(client, django_assert_max_num_queries):
    for _ in range(3):
        first, second = UserFactory(), UserFactory()
        hinted_game([first, second], second)
        hinted_game([first, second], second, hinters={first})
    with django_assert_max_num_queries(2):  # the count, the page with every share
        results = client.get(LEADERBOARD).json()["results"]
    assert sorted(e["hinted_games"] for e in results) == [0, 0, 0, 1, 1, 1]


def test_the_profile_gives_ratings_and_the_hinted_share_over_both_pools(client):
    ana, bo, cy, dee = (UserFactory(username=name) for name in ("ana", "bo", "cy", "dee"))
    hinted_game([ana, bo], bo)
    hinted_game([ana, bo], bo, hinters={ana})
    hinted_game([ana, bo, cy, dee], bo, cy, dee, players=4, mode="teams")
    hinted_game([ana, bo], bo, hinters={ana}, rated=False)  # casual: not counted
    response = client.get("/api/users/ana/")
    assert response.status_code == 200
    body = response.json()
    assert (body["username"], body["rated_games"], body["hinted_games"]) == ("ana", 3, 1)
    assert body["hinted_share"] == 0.333
    ffa, teams = body["ratings"]
    assert (ffa["mode"], ffa["games"], ffa["wins"], ffa["provisional"]) == ("ffa", 1, 1, True)
    assert ffa["rating"] == 1520.0
    assert (teams["mode"], teams["games"]) == ("teams", 1)


def test_the_profile_of_a_new_player_and_of_nobody(client, user):
    body = client.get(f"/api/users/{user.username}/").json()
    assert (body["rated_games"], body["hinted_games"], body["hinted_share"]) == (0, 0, None)
    assert [(r["mode"], r["rating"], r["games"]) for r in body["ratings"]] == [
        ("ffa", 1500.0, 0),
        ("teams", 1500.0, 0),
    ]
    response = client.get("/api/users/nobody-here/")
    assert response.status_code == 404
    assert "nobody-here" in response.json()["error"]

"""The player's pages: lobby (create, join), game page and replay."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.messages import get_messages
from django.urls import reverse

from games import services
from games.models import Game, Seat
from games.selectors import game_get, game_state
from games.views import recent_marks
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.games.services.helpers import play_best_turn

pytestmark = pytest.mark.django_db

FIRST_MOVE = "SA1 RB1 HC1"


def embedded_state(content: str) -> dict:
    match = re.search(r'<script id="game-state" type="application/json">(.*?)</script>', content)
    assert match, "the page embeds the game state"
    return json.loads(match.group(1))


def create_form(**overrides: str) -> dict[str, str]:
    data = {
        "players": "2",
        "mode": "ffa",
        "variant": "standard",
        "rated": "rated",
        "turn_seconds": "120",
        "seat_2": "person",
        "seat_3": "person",
        "seat_4": "person",
    }
    data.update(overrides)
    return data


def page_messages(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


# -- lobby -------------------------------------------------------------------------------------


def test_nav_play_link_goes_to_the_lobby(client):
    content = client.get(reverse("home")).content.decode()
    assert f'href="{reverse("lobby")}"' in content
    assert reverse("lobby") == "/play/"


def test_lobby_for_anonymous_lists_games_and_asks_to_log_in(client):
    open_game = make_game(start=False)
    live_game = make_game()
    response = client.get(reverse("lobby"))
    assert response.status_code == 200
    content = response.content.decode()
    assert 'id="create-form"' not in content
    assert f"{reverse('login')}?next=/play/" in content
    assert reverse("game", args=[open_game.pk]) in content
    assert reverse("game", args=[live_game.pk]) in content
    assert reverse("game_join", args=[open_game.pk]) not in content


def test_lobby_for_a_user_shows_form_join_buttons_and_their_games(client, user):
    mine_open = make_game(users=[user], start=False)
    mine_finished = make_game(users=[user])
    services.game_resign(game_id=mine_finished.pk, user=user)
    other_open = make_game(start=False)
    client.force_login(user)
    response = client.get(reverse("lobby"))
    assert response.status_code == 200
    content = response.content.decode()
    assert 'id="create-form"' in content
    assert "csrfmiddlewaretoken" in content
    assert f'action="{reverse("game_join", args=[other_open.pk])}"' in content
    your_games = content.split('id="mine-heading"')[1].split('id="open-heading"')[0]
    assert reverse("game", args=[mine_open.pk]) in your_games
    assert reverse("game_replay", args=[mine_finished.pk]) in your_games
    assert reverse("game", args=[other_open.pk]) not in your_games


def test_the_lobby_start_button_says_which_bot(client, user):
    client.force_login(user)
    content = client.get(reverse("lobby")).content.decode()
    assert (
        '<button type="submit" id="start-button">Start game against Bot\u00a0(medium)</button>'
        in content
    )
    words = re.search(r'<script id="lobby-strings" type="application/json">(.*?)</script>', content)
    assert words is not None
    assert json.loads(words.group(1))["names"]["hard"] == "Bot (hard)"


def test_the_lobby_offers_each_mode_with_the_player_counts_the_server_allows(client, user):
    """The page does not decide that teams need 4 players: each mode's option says with which
    numbers of players it may be chosen (``GameSettings``), and lobby.js reads only that."""
    client.force_login(user)
    content = client.get(reverse("lobby")).content.decode()
    options = dict(
        re.findall(r'<option value="(ffa|teams)"[^>]*? data-players="([\d ]*)"', content)
    )
    assert options == {"ffa": "2 3 4", "teams": "4"}
    script = (Path(settings.BASE_DIR) / "static" / "js" / "lobby.js").read_text()
    assert "teams" not in script
    assert not re.search(r"[!=]==? ?4\b", script)


def test_the_lobby_refuses_a_team_game_of_three_in_the_services_words(client, user):
    client.force_login(user)
    response = client.post(
        reverse("lobby"),
        {
            "players": 3,
            "mode": "teams",
            "variant": "standard",
            "rated": "casual",
            "turn_seconds": 60,
            "seat_2": "medium",
            "seat_3": "medium",
        },
    )
    assert response.status_code == 200
    assert "Team games need 4 players." in response.content.decode()
    assert not Game.objects.exists()


def test_the_score_strip_is_offered_in_games_of_three_and_four(client, user):
    client.force_login(user)
    two = client.get(reverse("game", args=[make_game(users=[user]).pk])).content.decode()
    four = client.get(reverse("game", args=[make_game(users=[user], players=4).pk]))
    assert re.search(r'id="score-strip"[^>]* hidden', two)
    assert not re.search(r'id="score-strip"[^>]* hidden', four.content.decode())


def test_lobby_names_bots_and_free_seats(client, user):
    make_game(users=[user], players=3, bots=[(2, "hard")], start=False)
    content = client.get(reverse("lobby")).content.decode()
    assert "Bot (hard)" in content
    assert "free seat" in content
    assert user.username in content


def test_lobby_lists_mark_the_players_who_took_a_hint(client, user):
    game = make_game(users=[user], players=2)
    other = game.seats.get(seat=2).user
    services.game_hint(game_id=game.pk, user=user)
    client.force_login(other)
    content = client.get(reverse("lobby")).content.decode()
    for heading in ("Your games", "Live games"):
        section = content.split(heading, 1)[1].split("</section>", 1)[0]
        (chip,) = re.findall(r'<span class="seat-chip seat-1">.*?</span></span>', section, re.S)
        assert user.username in chip
        assert "hint-mark" in chip
        assert 'title="Used a hint: this game does not count for their rating"' in chip
        assert 'class="visually-hidden">Used a hint' in chip
        assert section.count("hint-mark") == 1  # the other player took none


# -- creating games ----------------------------------------------------------------------------


def test_create_two_player_game_redirects_to_the_open_game(client, user):
    client.force_login(user)
    response = client.post(reverse("lobby"), create_form(rated="casual", turn_seconds="300"))
    game = Game.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("game", args=[game.pk])
    assert game.status == Game.Status.OPEN
    assert game.players == 2
    assert not game.rated
    assert game.turn_seconds == 300
    assert game.created_by == user
    assert game.seats.get(seat=1).user == user


def test_create_game_against_a_bot_starts_it(client, user):
    client.force_login(user)
    response = client.post(
        reverse("lobby"), create_form(seat_2="easy", variant="classic", rated="casual")
    )
    game = Game.objects.get()
    assert response.url == reverse("game", args=[game.pk])
    assert game.status == Game.Status.ACTIVE
    assert game.variant == Game.Variant.CLASSIC
    assert game.seats.get(seat=2).bot_level == Seat.BotLevel.EASY
    assert game.to_move == 1


def test_create_four_player_team_game_with_bots(client, user):
    client.force_login(user)
    response = client.post(
        reverse("lobby"),
        create_form(players="4", mode="teams", seat_2="medium", seat_3="person", seat_4="hard"),
    )
    game = Game.objects.get()
    assert response.url == reverse("game", args=[game.pk])
    assert game.mode == Game.Mode.TEAMS
    assert [s.bot_level for s in game.seats.order_by("seat")] == ["", "medium", "", "hard"]
    assert game.status == Game.Status.OPEN


def test_seats_beyond_the_number_of_players_are_ignored(client, user):
    client.force_login(user)
    form = create_form(players="2", seat_2="person", seat_3="hard", seat_4="hard")
    client.post(reverse("lobby"), form)
    game = Game.objects.get()
    assert game.seats.count() == 2
    assert not game.seats.exclude(bot_level="").exists()


def test_seat_fields_may_be_left_out_for_missing_seats(client, user):
    client.force_login(user)
    form = create_form(players="2", seat_2="medium", rated="casual")
    del form["seat_3"], form["seat_4"]
    response = client.post(reverse("lobby"), form)
    assert response.status_code == 302
    assert Game.objects.get().status == Game.Status.ACTIVE


def test_teams_with_three_players_is_refused_with_an_error(client, user):
    client.force_login(user)
    response = client.post(reverse("lobby"), create_form(players="3", mode="teams"))
    assert response.status_code == 200
    assert "Team games need 4 players." in response.content.decode()
    assert not Game.objects.exists()


def test_invalid_choices_show_errors(client, user):
    client.force_login(user)
    response = client.post(reverse("lobby"), create_form(players="5", turn_seconds="1"))
    assert response.status_code == 200
    assert response.content.decode().count('class="errorlist') >= 2
    assert not Game.objects.exists()


def test_anonymous_post_is_sent_to_log_in(client):
    response = client.post(reverse("lobby"), create_form())
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))
    assert not Game.objects.exists()


# -- joining -----------------------------------------------------------------------------------


def test_join_takes_the_free_seat_and_starts_the_game(client, user):
    game = make_game(start=False)
    client.force_login(user)
    response = client.post(reverse("game_join", args=[game.pk]))
    assert response.status_code == 302
    assert response.url == reverse("game", args=[game.pk])
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert game.seats.get(seat=2).user == user


def test_joining_a_full_game_shows_a_message(client, user):
    game = make_game()
    client.force_login(user)
    response = client.post(reverse("game_join", args=[game.pk]))
    assert response.status_code == 302
    assert response.url == reverse("lobby")
    assert page_messages(response) == ["This game has already started."]
    assert not game.seats.filter(user=user).exists()
    assert "This game has already started." in client.get(response.url).content.decode()


def test_joining_your_own_game_shows_a_message(client, user):
    game = make_game(users=[user], players=3, start=False)
    client.force_login(user)
    response = client.post(reverse("game_join", args=[game.pk]))
    assert response.url == reverse("lobby")
    assert page_messages(response) == ["You already have a seat in this game."]


def test_join_needs_post_and_a_login(client, user):
    game = make_game(start=False)
    response = client.post(reverse("game_join", args=[game.pk]))
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))
    client.force_login(user)
    assert client.get(reverse("game_join", args=[game.pk])).status_code == 405


def test_join_unknown_game_is_404(client, user):
    client.force_login(user)
    assert client.post(reverse("game_join", args=[999999])).status_code == 404


# -- game page ---------------------------------------------------------------------------------


@pytest.fixture
def active_game(user):
    """A two-player game between ``user`` (seat 1) and another player, one turn played."""
    game = make_game(users=[user, UserFactory(username="bob")])
    services.game_move_make(game_id=game.pk, user=user, move=FIRST_MOVE, ply=0)
    return game_get(game.pk)


def test_game_page_for_the_player_has_board_state_and_controls(client, user, active_game):
    client.force_login(user)
    response = client.get(reverse("game", args=[active_game.pk]))
    assert response.status_code == 200
    content = response.content.decode()
    for column in "ABCDEFGHIJKL":
        assert f'<span class="col-label" role="columnheader">{column}</span>' in content
    for row in range(1, 13):
        assert f'<span class="row-label" role="rowheader">{row}</span>' in content
    assert content.count('role="gridcell"') == 144
    assert embedded_state(content) == json.loads(json.dumps(game_state(active_game, ratings=True)))
    assert 'id="controls"' in content
    assert 'data-my-seat="1"' in content
    assert f'data-ws-path="/ws/games/{active_game.pk}/"' in content
    assert 'id="game-strings"' in content
    assert "js/game.js" in content
    assert "css/game.css" in content


def test_game_page_draws_pieces_and_highlights_the_last_turn(client, user, active_game):
    client.force_login(user)
    content = client.get(reverse("game", args=[active_game.pk])).content.decode()
    assert re.search(
        r'class="cell cell-last cell-recent seat-1"[^>]*data-cell="A1" aria-label="A1: sun"',
        content,
    )
    assert re.search(r'data-cell="B1" aria-label="B1: roof of player 1"', content)
    assert 'class="piece piece-roof seat-1"' in content
    assert re.search(r'data-cell="C1" aria-label="C1: shadow"', content)
    assert re.search(r'class="cell" role="gridcell" data-cell="D1" aria-label="D1: empty"', content)


def test_game_page_bootstraps_the_seat_panels(client, user, active_game):
    """The panels are drawn by static/js/lib/seats.js (tests/browser) from the embedded state."""
    client.force_login(user)
    content = client.get(reverse("game", args=[active_game.pk])).content.decode()
    assert '<ol class="seat-panels" id="seat-panels" aria-label="Players"></ol>' in content
    state = embedded_state(content)
    assert [s["username"] for s in state["seats"]] == [user.username, "bob"]
    assert state["to_move"] == 2
    assert state["seats"][0]["roofs_left"] == 14
    assert 'id="supply-suns">24<' in content
    assert 'id="supply-shadows">74<' in content


@pytest.mark.parametrize("who", ["spectator", "anonymous"])
def test_game_page_for_watchers_has_no_controls(client, active_game, who):
    if who == "spectator":
        client.force_login(UserFactory())
    response = client.get(reverse("game", args=[active_game.pk]))
    assert response.status_code == 200
    content = response.content.decode()
    assert 'id="controls"' not in content
    assert 'data-my-seat=""' in content
    assert embedded_state(content)["ply"] == 1
    assert '<span class="col-label" role="columnheader">L</span>' in content


def test_open_game_offers_join_to_others(client, active_game):
    game = make_game(start=False)
    client.force_login(UserFactory())
    content = client.get(reverse("game", args=[game.pk])).content.decode()
    assert "Waiting for players to join." in content
    assert f'action="{reverse("game_join", args=[game.pk])}"' in content


def test_bot_seats_are_named_by_level(client, user):
    game = make_game(users=[user], players=3, bots=[(2, "medium"), (3, "easy")])
    content = client.get(reverse("game", args=[game.pk])).content.decode()
    assert "Bot (medium)" in content
    assert "Bot (easy)" in content


def test_team_game_shows_teams(client, user):
    game = make_game(users=[user], players=4, mode="teams")
    content = client.get(reverse("game", args=[game.pk])).content.decode()
    assert sorted(s["team"] for s in embedded_state(content)["seats"]) == [1, 1, 2, 2]
    assert "Team %(team)s: %(score)s" in content  # the words the panels' script fills in


def test_hinted_seat_shows_the_bulb(client, user, active_game):
    bob = active_game.seats.get(seat=2).user
    services.game_hint(game_id=active_game.pk, user=bob)
    content = client.get(reverse("game", args=[active_game.pk])).content.decode()
    assert [s["hinted"] for s in embedded_state(content)["seats"]] == [False, True]


@pytest.mark.parametrize("name", ["game", "game_replay"])
def test_unknown_game_is_404(client, name):
    assert client.get(reverse(name, args=[424242])).status_code == 404


# -- finished games and replay -----------------------------------------------------------------


def test_finished_game_page_shows_winners_and_the_replay(client, user, active_game):
    play_best_turn(active_game)  # bob moves too: not aborted (GameOutcome.aborted)
    services.game_resign(game_id=active_game.pk, user=user)
    response = client.get(reverse("game", args=[active_game.pk]))
    assert response.status_code == 200
    content = response.content.decode()
    assert 'id="result-banner"' in content  # its words: lib/seats.js (test_pages_js, browser)
    assert 'id="replay-board"' in content
    assert 'id="controls"' not in content
    assert "js/replay.js" in content
    assert "js/game.js" not in content
    assert embedded_state(content)["result"]["winners"] == [2]


def test_finished_team_game_shows_team_result(client, user):
    game = make_game(
        users=[user],
        players=4,
        mode="teams",
        bots=[(2, "easy"), (3, "easy"), (4, "easy")],
    )
    play_best_turn(game)
    services.game_resign(game_id=game.pk, user=user)
    game = game_get(game.pk)
    assert game.status == Game.Status.FINISHED
    content = client.get(reverse("game", args=[game.pk])).content.decode()
    state = embedded_state(content)
    assert len(state["result"]["team_scores"]) == 2
    assert state["mode"] == "teams"
    assert 'id="result-banner"' in content


def test_replay_lists_turns_with_points_and_hint_marks(client, user, active_game):
    bob = active_game.seats.get(seat=2).user
    services.game_hint(game_id=active_game.pk, user=bob)
    hint = services.game_hint(game_id=active_game.pk, user=bob)
    services.game_move_make(game_id=active_game.pk, user=bob, move=hint["move"], ply=1)
    client.force_login(UserFactory())
    response = client.get(reverse("game_replay", args=[active_game.pk]))
    assert response.status_code == 200
    content = response.content.decode()
    rows = content.split("<tbody>")[1].split("</tbody>")[0]
    assert rows.count('<tr data-ply="') == 2
    assert FIRST_MOVE in rows
    assert hint["move"] in rows
    assert rows.count("hint-mark") == 1
    assert '<td class="points-col has-points">+1</td>' in rows
    assert "This game is still being played" in content
    assert 'id="score-chart"' in content
    assert len(embedded_state(content)["turns"]) == 2


def test_replay_has_download_link_and_analysis_hook(client, active_game):
    content = client.get(reverse("game_replay", args=[active_game.pk])).content.decode()
    assert f'href="/api/games/{active_game.pk}/record/?download=1"' in content
    assert f'<section id="analysis" data-url="/api/games/{active_game.pk}/analysis/">' in content
    assert "js/analysis.js" in content
    for label in "ABCDEFGHIJKL":
        assert f'role="columnheader">{label}<' in content


def test_replay_of_a_game_without_turns(client):
    game = make_game(start=False)
    response = client.get(reverse("game_replay", args=[game.pk]))
    assert response.status_code == 200
    assert "No turn has been played yet." in response.content.decode()


def test_a_game_resigned_before_any_turn_is_aborted_without_a_winner(client, user):
    game = make_game(users=[user, UserFactory(username="bob")])
    services.game_resign(game_id=game.pk, user=user)
    content = client.get(reverse("game", args=[game.pk])).content.decode()
    state = embedded_state(content)
    assert state["ply"] == 0  # lib/seats.js: aborted, no trophy (test_pages_js)
    assert state["result"]["end_reason"] == "resigned"
    assert state["result"]["aborted"] is True
    assert state["result"]["winners"] == []
    assert "Aborted: the game ended before every player had moved, so nobody won." in content


# -- the lobby that gets you playing -----------------------------------------------------------


def test_the_lobby_defaults_to_a_casual_game_against_a_bot(client, user):
    client.force_login(user)
    content = client.get(reverse("lobby")).content.decode()
    assert re.search(r'<option value="medium" selected>', content)
    assert re.search(r'value="casual"[^>]*checked', content)
    assert "Play a person" in content
    response = client.post(reverse("lobby"), create_form(seat_2="medium", rated="casual"))
    game = Game.objects.get()
    assert response.url == reverse("game", args=[game.pk])
    assert game.status == Game.Status.ACTIVE


def test_rated_needs_two_people_and_says_why(client, user):
    client.force_login(user)
    response = client.post(reverse("lobby"), create_form(seat_2="hard", rated="rated"))
    assert response.status_code == 200
    assert "A rated game needs at least two people" in response.content.decode()
    assert not Game.objects.exists()


def test_play_a_person_opens_a_game_with_an_invite_link_and_cancel(client, user):
    client.force_login(user)
    form = create_form(players="3", seat_2="hard", seat_3="easy", rated="rated", start="person")
    response = client.post(reverse("lobby"), form)
    game = Game.objects.get()
    assert response.url == reverse("game", args=[game.pk])
    assert game.status == Game.Status.OPEN
    assert game.rated
    assert not game.seats.exclude(bot_level="").exists()
    content = client.get(response.url).content.decode()
    assert f'value="http://testserver/games/{game.pk}/"' in content
    assert reverse("game_cancel", args=[game.pk]) in content

    response = client.post(reverse("game_cancel", args=[game.pk]))
    assert response.url == reverse("lobby")
    game.refresh_from_db()
    assert game.status == Game.Status.CANCELLED


def test_cancel_of_someone_elses_game_changes_nothing(client, user):
    game = make_game(players=2, start=False)
    client.force_login(user)
    response = client.post(reverse("game_cancel", args=[game.pk]))
    assert response.url == reverse("game", args=[game.pk])
    assert Game.objects.filter(pk=game.pk).exists()
    assert client.post(reverse("game_cancel", args=[424242])).status_code == 404


def test_the_lobby_lists_come_alone_for_live_updates(client, user):
    open_game = make_game(players=2, start=False)
    response = client.get(reverse("lobby"), {"lists": "1"})
    content = response.content.decode()
    assert f"Join game {open_game.pk}" not in content  # anonymous: a Watch link instead
    assert f'href="/games/{open_game.pk}/"' in content
    assert "<html" not in content
    assert "create-form" not in content


def test_recent_marks_outline_every_turn_since_the_players_last_one():
    state = {
        "players": 3,
        "turns": [
            {"seat": 1, "move": "SA1 RB1 HC1"},
            {"seat": 2, "move": "SD1 RE1 HF1"},
            {"seat": 3, "move": "SA2 RB2"},
        ],
    }
    # Player 1: both turns since theirs, each in the colour of its player.
    assert recent_marks(state, 1) == {"D1": 2, "E1": 2, "F1": 2, "A2": 3, "B2": 3}
    # Player 3 moved last: their own turn stays outlined until the next one.
    assert recent_marks(state, 3) == {"A2": 3, "B2": 3}
    # A watcher: the last round (players - 1 turns).
    assert recent_marks(state, None) == {"D1": 2, "E1": 2, "F1": 2, "A2": 3, "B2": 3}
    assert recent_marks({"players": 2, "turns": []}, 1) == {}

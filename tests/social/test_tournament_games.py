"""Tournaments lead their players: a round just paired pushes each player's next game to their
open pages (the lobby socket's ``tournament_game`` frame), every page renders the player's
current tournament game for the banner (so a reload keeps it), and a finished tournament game
leads back to the tournament with its standings instead of offering a rematch."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from games import services as games
from games.models import Seat
from social.state import TournamentGameFrame
from tests.payloads import assert_documented, assert_round_trips
from tests.tournaments.factories import make_tournament
from tests.tournaments.helpers import finish, round_games, start
from tournaments import selectors
from tournaments.selectors import tournament_game_of

pytestmark = pytest.mark.django_db


def _pushes(broadcasts):
    return [
        (group, event["message"])
        for group, event in broadcasts.sent
        if event["type"] == "social.message" and event["message"]["type"] == "tournament_game"
    ]


def _players(game):
    return [s.user for s in Seat.objects.filter(game=game).order_by("seat").select_related("user")]


def test_pairing_round_1_pushes_each_player_their_game_and_opponent(broadcasts, settings):
    tournament = start(make_tournament(players=4, rounds=2, turn_seconds=60))
    pushes = _pushes(broadcasts)
    assert len(pushes) == 4
    for game in round_games(tournament, 1):
        first, second = _players(game)
        for user, other in ((first, second), (second, first)):
            [frame] = [m for g, m in pushes if g == f"user.{user.pk}"]
            assert_round_trips(frame, TournamentGameFrame)
            assert_documented("lobby", frame)
            assert frame["game"] == game.pk
            assert frame["tournament"] == tournament.pk
            assert frame["name"] == tournament.name
            assert frame["round"] == 1
            assert frame["arena"] is False
            assert frame["opponents"] == [other.get_username()]
            # The first turn's time: the grace before the clock runs, then the turn's 60 s.
            assert 0 < frame["starts_in"] <= settings.SIESTA_TOURNAMENT_GRACE_SECONDS + 60


def test_an_arena_game_is_pushed_as_an_arena_game_with_its_grace(broadcasts, settings):
    """The banner says "Your game against …" (no round: an arena's rounds are pairing waves), and
    the arena's first turn has the same grace as every tournament game."""
    arena = start(
        make_tournament(
            players=2,
            format="arena",
            rounds=None,
            duration_minutes=60,
            turn_seconds=60,
            starts_in=timedelta(0),
        )
    )
    pushes = _pushes(broadcasts)
    assert len(pushes) == 2
    for _group, frame in pushes:
        assert_round_trips(frame, TournamentGameFrame)
        assert frame["tournament"] == arena.pk
        assert frame["arena"] is True
        assert 60 < frame["starts_in"] <= settings.SIESTA_TOURNAMENT_GRACE_SECONDS + 60


def test_the_next_round_is_pushed_when_the_last_game_of_a_round_ends(broadcasts):
    tournament = start(make_tournament(players=2, rounds=2))
    [game] = round_games(tournament, 1)
    broadcasts.sent.clear()
    finish(game)
    tournament.refresh_from_db()
    assert tournament.current_round == 2
    [round_two] = round_games(tournament, 2)
    pushes = _pushes(broadcasts)
    assert {m["game"] for _g, m in pushes} == {round_two.pk}
    assert {m["round"] for _g, m in pushes} == {2}
    assert {g for g, _m in pushes} == {f"user.{u.pk}" for u in _players(round_two)}


def test_a_bye_is_not_pushed_a_game(broadcasts):
    tournament = start(make_tournament(players=3, rounds=1))
    pushed_to = {g for g, _m in _pushes(broadcasts)}
    seated = {f"user.{u.pk}" for game in round_games(tournament, 1) for u in _players(game)}
    assert pushed_to == seated
    assert len(seated) == 2


def test_the_current_game_of_a_player_is_none_once_it_ended_or_the_player_withdrew():
    tournament = start(make_tournament(players=2, rounds=1))
    [game] = round_games(tournament, 1)
    first, _second = _players(game)
    assert tournament_game_of(first.pk)["game"] == game.pk
    finish(game)
    assert tournament_game_of(first.pk) is None


def _next_game_script(html: str):
    match = re.search(r'<script id="next-game-data" type="application/json">(.*?)</script>', html)
    return json.loads(match.group(1)) if match else None


def test_every_page_renders_the_players_current_tournament_game(client):
    tournament = start(make_tournament(players=2, rounds=2))
    [game] = round_games(tournament, 1)
    first, second = _players(game)
    client.force_login(first)
    for url in (reverse("lobby"), reverse("tournament", args=[tournament.pk]), reverse("home")):
        data = _next_game_script(client.get(url).content.decode())
        assert data["game"] == game.pk, url
        assert data["opponents"] == [second.get_username()]
        assert data["round"] == 1
    client.logout()
    assert _next_game_script(client.get(reverse("lobby")).content.decode()) is None


def test_after_round_1_the_finished_game_page_leads_to_round_2():
    tournament = start(make_tournament(players=2, rounds=2))
    [game] = round_games(tournament, 1)
    first, _second = _players(game)
    finish(game)
    [round_two] = round_games(tournament, 2)
    client = Client()
    client.force_login(first)
    html = client.get(reverse("game", args=[game.pk])).content.decode()
    assert _next_game_script(html)["game"] == round_two.pk
    assert 'id="back-to-tournament"' in html
    assert reverse("tournament", args=[tournament.pk]) in html
    assert 'id="rematch-button"' not in html
    assert 'class="tournament-after-standings"' in html
    assert first.get_username() in html


def test_a_casual_finished_game_still_offers_a_rematch(client):
    tournament = start(make_tournament(players=2, rounds=1))
    [game] = round_games(tournament, 1)
    first, second = _players(game)
    other = games.game_create_seated(users=[first, second])
    games.game_resign(game_id=other.pk, user=first)
    client.force_login(first)
    html = client.get(reverse("game", args=[other.pk])).content.decode()
    assert 'id="rematch-button"' in html
    assert 'id="back-to-tournament"' not in html


def test_the_tournament_page_highlights_your_game_and_links_replays(client):
    """Your game of the round on top; finished games link their replays; rating changes."""
    tournament = start(make_tournament(players=2, rounds=2))
    [game] = round_games(tournament, 1)
    first, second = _players(game)
    client.force_login(first)
    html = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert 'id="your-game"' in html
    assert f"your game against {second.get_username()}" in html
    finish(game)
    [round_two] = round_games(tournament, 2)
    html = client.get(reverse("tournament_live", args=[tournament.pk])).content.decode()
    assert reverse("game_replay", args=[game.pk]) in html
    assert f'href="{reverse("game", args=[round_two.pk])}"' in html
    # The standings carry each player's rating change over the tournament's rated games.
    changes = selectors.rating_changes(tournament)
    assert set(changes) == {first.get_username(), second.get_username()}
    assert "rating-change is-up" in html
    assert "rating-change is-down" in html


def test_the_tournament_page_has_its_chat_and_an_svg_trophy_for_the_winner(client):
    tournament = start(make_tournament(players=2, rounds=1))
    [game] = round_games(tournament, 1)
    html = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert f'data-ws-path="/ws/tournaments/{tournament.pk}/"' in html
    finish(game)
    html = client.get(reverse("tournament_live", args=[tournament.pk])).content.decode()
    winner = html[html.index('id="tournament-winner"') :]
    assert winner.index('href="#icon-trophy"') < winner.index("Tournament winner")
    assert "🏆" not in html


def test_the_standings_caption_names_a_scheduled_tournament_in_the_readers_language():
    tournament = start(
        make_tournament(players=2, rounds=1, name="Daily Swiss", name_key="daily_swiss")
    )
    [game] = round_games(tournament, 1)
    first, _second = _players(game)
    finish(game)
    client = Client()
    client.force_login(first)
    html = client.get(reverse("game", args=[game.pk]), HTTP_ACCEPT_LANGUAGE="es").content.decode()
    caption = re.search(r"<caption>(.*?)</caption>", html, re.S)
    assert caption is not None
    assert "Suizo diario" in caption.group(1)
    assert "Daily Swiss" not in caption.group(1)

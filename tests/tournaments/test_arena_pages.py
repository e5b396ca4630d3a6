"""An arena's page: the end of its time, the top game to watch, pause and resume buttons, the
streak mark and the performance column."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse

from tests.factories import UserFactory
from tests.tournaments.factories import make_tournament
from tests.tournaments.helpers import finish, start
from tournaments.models import Pairing

pytestmark = pytest.mark.django_db


def test_a_player_pauses_and_resumes_from_the_page_and_spectators_get_the_top_game(client):
    users = [UserFactory() for _ in range(3)]
    arena = start(
        make_tournament(
            players=users,
            format="arena",
            rounds=None,
            duration_minutes=60,
            starts_in=timedelta(0),
        )
    )
    game_id = Pairing.objects.filter(tournament=arena).values_list("game_id", flat=True).first()
    page = client.get(reverse("tournament", args=[arena.pk])).content.decode()
    assert f'href="{reverse("game", args=[game_id])}" id="arena-top-game"' in page
    assert "Performance" in page
    waiting = next(u for u in users if not Pairing.objects.filter(player__user=u).exists())
    client.force_login(waiting)
    page = client.get(reverse("tournament", args=[arena.pk])).content.decode()
    assert reverse("tournament_pause", args=[arena.pk]) in page
    client.post(reverse("tournament_pause", args=[arena.pk]))
    page = client.get(reverse("tournament", args=[arena.pk])).content.decode()
    assert "Resume" in page
    assert "(paused)" in page
    client.post(reverse("tournament_join", args=[arena.pk]))
    page = client.get(reverse("tournament", args=[arena.pk])).content.decode()
    assert reverse("tournament_pause", args=[arena.pk]) in page


def test_a_visitor_joins_a_running_arena_from_the_page(client):
    arena = start(
        make_tournament(
            players=2, format="arena", rounds=None, duration_minutes=60, starts_in=timedelta(0)
        )
    )
    client.force_login(UserFactory())
    page = client.get(reverse("tournament", args=[arena.pk])).content.decode()
    assert "Join the arena" in page
    client.post(reverse("tournament_join", args=[arena.pk]))
    assert arena.players.count() == 3


def test_the_streak_is_marked_in_the_standings(client):
    users = [UserFactory() for _ in range(2)]
    arena = start(
        make_tournament(
            players=users, format="arena", rounds=None, duration_minutes=60, starts_in=timedelta(0)
        )
    )
    leader = users[0]
    for _ in range(2):  # two players only: they meet again at once
        pairing = Pairing.objects.filter(tournament=arena, game__status="active").first()
        assert pairing is not None
        game = pairing.game
        seat = game.seats.get(user=leader).seat
        finish(game, winner=seat)
    page = client.get(reverse("tournament", args=[arena.pk])).content.decode()
    assert "badge-streak" in page


def test_a_player_paired_in_an_earlier_wave_is_led_to_their_game(client):
    users = [UserFactory() for _ in range(3)]
    arena = start(
        make_tournament(
            players=users, format="arena", rounds=None, duration_minutes=60, starts_in=timedelta(0)
        )
    )
    first = Pairing.objects.filter(tournament=arena).first()
    assert first is not None
    client.force_login(first.player.user)
    client.post(reverse("tournament_join", args=[arena.pk]))  # nothing changes for a player
    late = UserFactory()
    client.force_login(late)
    client.post(reverse("tournament_join", args=[arena.pk]))  # a second wave: the third and late
    arena.refresh_from_db()
    assert arena.current_round == 2
    client.force_login(first.player.user)
    page = client.get(reverse("tournament", args=[arena.pk])).content.decode()
    assert f'id="play-your-game" href="{reverse("game", args=[first.game_id])}"' in page

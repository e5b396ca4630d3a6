"""An arena's page: the end of its time, the top game to watch, pause and resume buttons, the
streak mark and the opponents' rating column; the list names its end, not a round."""

from __future__ import annotations

import re
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
    assert "Opp. rating" in page
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


@pytest.mark.parametrize(
    ("language", "words", "not_words"),
    [
        (
            "es",
            ["Tu partida contra", "Partidas", "Elo rivales", "cuenta doble", "Estás en la arena"],
            ["Ronda", "Buchholz", "descanso", "Rendimiento", "Te has inscrito"],
        ),
        (
            "de",
            ["Dein Spiel gegen", "Spiele", "Gegner-Wertung", "doppelt", "Du bist in der Arena"],
            ["Runde", "Buchholz", "spielfrei", "Leistung"],
        ),
    ],
)
def test_the_arena_page_speaks_of_games_and_streaks_not_rounds_and_byes(
    client, language, words, not_words
):
    users = [UserFactory() for _ in range(3)]
    arena = start(
        make_tournament(
            players=users, format="arena", rounds=None, duration_minutes=60, starts_in=timedelta(0)
        )
    )
    waiting = next(u for u in users if not Pairing.objects.filter(player__user=u).exists())
    client.force_login(waiting)
    client.post(reverse("tournament_pause", args=[arena.pk]))
    page = client.post(
        reverse("tournament_join", args=[arena.pk]), follow=True, HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()  # resumed: the message, and paired at once with whoever is free (none)
    playing = next(u for u in users if Pairing.objects.filter(player__user=u).exists())
    client.force_login(playing)
    page += client.get(
        reverse("tournament", args=[arena.pk]), HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()
    page = re.sub(r"<script.*?</script>", "", page, flags=re.S)  # what the page shows
    for word in words:
        assert word in page, word
    for word in not_words:
        assert word not in page, word


def test_a_running_arena_on_the_list_names_its_end_not_a_round(client):
    users = [UserFactory() for _ in range(2)]
    start(
        make_tournament(
            players=users, format="arena", rounds=None, duration_minutes=60, starts_in=timedelta(0)
        )
    )
    page = client.get(reverse("tournaments")).content.decode()
    assert "Arena: new games start until" in page
    shown = re.sub(r"<script.*?</script>", "", page, flags=re.S)
    assert "Round" not in shown.split('class="tournament-list"', 1)[1]

"""A player withdrawn for missed games is told so, with the reason, on the tournament's page and in
a notice, and can rejoin while a round is left for them; a withdrawal of one's own is final."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from core.errors import Conflict
from games import services as games
from games.models import Game
from social.models import Notification
from social.services.notices import notification_payload
from tests.games.services.helpers import play_best_turn, seat_user
from tests.tournaments.factories import make_tournament
from tests.tournaments.helpers import committed, finish, round_games, start
from tournaments import selectors, services
from tournaments.models import Pairing, Tournament, TournamentPlayer

pytestmark = pytest.mark.django_db

TURN = 120


@pytest.fixture(autouse=True)
def _grace(settings):
    settings.SIESTA_TOURNAMENT_GRACE_SECONDS = 30


def expire(game: Game) -> None:
    game.refresh_from_db()
    assert game.deadline is not None
    committed(games.game_turn_timeouts_expire, now=game.deadline + timedelta(seconds=1))


def _game_of(tournament: Tournament, user) -> Game | None:
    tournament.refresh_from_db()
    for game in round_games(tournament):
        if game.seats.filter(user=user).exists():
            return game
    return None


def _miss_two_games(rounds: int) -> tuple[Tournament, object, TournamentPlayer]:
    """Three players; the first seat of round 1 misses their first turn in two games in a row."""
    tournament = start(make_tournament(players=3, rounds=rounds, turn_seconds=TURN))
    (game,) = round_games(tournament)
    absent = seat_user(game, 1)
    expire(game)
    for _ in range(3):
        game = _game_of(tournament, absent)
        if game is not None:
            break
        finish(round_games(tournament)[0])  # the absentee rests this round
    assert game is not None
    if game.seats.get(user=absent).seat == 2:
        play_best_turn(game)
    expire(game)
    entry = tournament.players.get(user=absent)
    assert entry.withdrawn
    tournament.refresh_from_db()
    return tournament, absent, entry


def _page(tournament: Tournament, user) -> str:
    client = Client()
    client.force_login(user)
    return client.get(reverse("tournament", args=[tournament.pk])).content.decode()


def test_withdrawn_for_missed_games_is_told_why_and_rejoins_for_the_next_round() -> None:
    tournament, absent, entry = _miss_two_games(rounds=6)
    withdrawal = selectors.withdrawal_of(tournament, absent.pk)
    assert withdrawal == selectors.Withdrawal(reason=selectors.MISSED_GAMES, rejoin_refusal=None)

    page = _page(tournament, absent)
    assert "You were withdrawn: you missed two games in a row" in page
    assert 'id="rejoin-button"' in page
    assert "You withdrew from this tournament." not in page

    [notice] = Notification.objects.filter(user=absent, kind="tournament_withdrawn")
    assert notice.url == reverse("tournament", args=[tournament.pk])
    assert notification_payload(notice)["text"] == (
        "Test cup: you were withdrawn for missing two games in a row. "
        "You can rejoin on the tournament's page."
    )

    services.tournament_join(tournament_id=tournament.pk, user=absent)
    entry.refresh_from_db()
    assert not entry.withdrawn
    assert selectors.withdrawal_of(tournament, absent.pk) is None
    # The round under way is played out without them; the next one pairs them again.
    round_now = tournament.current_round
    for game in round_games(tournament):
        finish(game)
    tournament.refresh_from_db()
    assert tournament.current_round == round_now + 1
    assert Pairing.objects.filter(
        tournament=tournament, round__number=round_now + 1, player=entry
    ).exists()


def test_with_no_round_left_the_page_and_the_notice_say_why_not() -> None:
    tournament, absent, _entry = _miss_two_games(rounds=3)
    tournament.refresh_from_db()
    withdrawal = selectors.withdrawal_of(tournament, absent.pk)
    assert withdrawal is not None
    assert withdrawal.reason == selectors.MISSED_GAMES
    assert withdrawal.rejoin_refusal in (
        "The last round is under way: no round is left to play.",
        "This tournament is over.",
    )
    page = _page(tournament, absent)
    assert 'id="rejoin-button"' not in page
    assert withdrawal.rejoin_refusal in page
    [notice] = Notification.objects.filter(user=absent, kind="tournament_withdrawn")
    assert notification_payload(notice)["text"] == (
        "Test cup: you were withdrawn for missing two games in a row."
    )
    with pytest.raises(Conflict) as refused:
        services.tournament_join(tournament_id=tournament.pk, user=absent)
    assert refused.value.message == withdrawal.rejoin_refusal


def test_a_withdrawal_of_ones_own_is_final_and_says_so() -> None:
    tournament = start(make_tournament(players=2, rounds=3, turn_seconds=TURN))
    (game,) = round_games(tournament)
    leaver = seat_user(game, 1)
    committed(services.tournament_leave, tournament_id=tournament.pk, user=leaver)
    tournament.refresh_from_db()
    withdrawal = selectors.withdrawal_of(tournament, leaver.pk)
    assert withdrawal is not None
    assert withdrawal.reason == selectors.LEFT
    page = _page(tournament, leaver)
    assert "You withdrew from this tournament." in page
    assert 'id="rejoin-button"' not in page
    assert not Notification.objects.filter(user=leaver, kind="tournament_withdrawn").exists()
    if tournament.status == Tournament.Status.RUNNING:
        with pytest.raises(Conflict):
            services.tournament_join(tournament_id=tournament.pk, user=leaver)

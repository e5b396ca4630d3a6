"""Per-user limits: open games waiting for players, and unfinished games with bots. One account
cannot fill the lobby or keep the bot workers busy for everyone."""

from __future__ import annotations

import pytest
from django.utils import translation

from core.errors import ErrorKind
from games import services
from games.models import Game
from games.services import BotSpec, LimitReached
from tests.factories import UserFactory
from tests.games.factories import make_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def limits(settings):
    settings.SIESTA_MAX_OPEN_GAMES = 2
    settings.SIESTA_MAX_BOT_GAMES = 2


def test_open_games_are_limited_until_one_is_cancelled_or_starts(limits, user):
    first = services.game_create(user=user)
    services.game_create(user=user, players=3)
    count = Game.objects.count()
    with pytest.raises(LimitReached, match="already have 2 open games") as refused:
        services.game_create(user=user)
    assert refused.value.kind == ErrorKind.CONFLICT
    assert Game.objects.count() == count

    services.game_cancel(game_id=first.pk, user=user)
    third = services.game_create(user=user)
    services.game_join(game_id=third.pk, user=UserFactory())  # it starts: no longer open
    services.game_create(user=user)
    assert Game.objects.filter(created_by=user, status="open").count() == 2


def test_games_of_others_and_started_games_do_not_count(limits, user):
    for _ in range(3):
        make_game(users=[user])  # active games against people
        services.game_create(user=UserFactory())
    services.game_create(user=user)
    services.game_create(user=user)


def test_games_with_bots_are_limited_until_one_ends(limits, user):
    playing = services.game_create(user=user, bots=[BotSpec(2, "easy")])
    services.game_create(user=user, players=3, bots=[BotSpec(3, "easy")])  # open, waiting
    with pytest.raises(LimitReached, match="already playing 2 games with bots"):
        services.game_create(user=user, bots=[BotSpec(2, "hard")])
    services.game_create(user=user)  # a game against people is still fine

    services.game_resign(game_id=playing.pk, user=user)
    services.game_create(user=user, bots=[BotSpec(2, "hard")])


def test_joining_a_game_with_bots_counts_too(limits):
    player = UserFactory()
    for _ in range(2):
        services.game_create(user=player, bots=[BotSpec(2, "easy")])
    table = services.game_create(user=UserFactory(), players=3, bots=[BotSpec(2, "medium")])
    with pytest.raises(LimitReached):
        services.game_join(game_id=table.pk, user=player)
    table.refresh_from_db()
    assert list(table.seats.filter(user=player)) == []
    # A game of people only is open to them.
    people = services.game_create(user=UserFactory())
    services.game_join(game_id=people.pk, user=player)


def test_a_player_out_of_a_game_with_bots_is_done_with_it(limits, user):
    """In a game of three, a player who resigns leaves it to the bots: it no longer counts."""
    game = make_game(players=3, users=[user, UserFactory()], bots=[(3, "easy")])
    services.game_create(user=user, bots=[BotSpec(2, "easy")])
    with pytest.raises(LimitReached):
        services.game_create(user=user, bots=[BotSpec(2, "easy")])
    services.game_resign(game_id=game.pk, user=user)
    game.refresh_from_db()
    assert game.status == "active"
    services.game_create(user=user, bots=[BotSpec(2, "easy")])


def test_the_refusal_is_translated(limits, user):
    services.game_create(user=user)
    services.game_create(user=user)
    with translation.override("de"), pytest.raises(LimitReached) as refused:
        services.game_create(user=user)
    assert "2" in refused.value.message
    assert "open" not in refused.value.message.lower()


@pytest.mark.requires_postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attempt", range(3))
def test_two_games_opened_at_once_cannot_both_pass_the_limit(settings, attempt):
    from tests.games.services.test_concurrency import race

    settings.SIESTA_MAX_OPEN_GAMES = 1
    user = UserFactory()
    outcomes = race(
        first=lambda: services.game_create(user=user),
        second=lambda: services.game_create(user=user),
    )
    refused = [o for o in outcomes.values() if isinstance(o, Exception)]
    assert len(refused) == 1
    assert isinstance(refused[0], LimitReached)
    assert Game.objects.filter(created_by=user, status="open").count() == 1

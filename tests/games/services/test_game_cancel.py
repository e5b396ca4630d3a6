"""game_cancel and game_open_expire: an open game ends before it starts, leaves the lobby, and
its watchers are told; nothing else can be cancelled."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import selectors, services
from games.models import Game
from games.services import Conflict, NotAllowed, NotFound
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.games.services.helpers import snapshot

pytestmark = pytest.mark.django_db


def open_games() -> list[int]:
    return list(selectors.game_list(status=Game.Status.OPEN).values_list("pk", flat=True))


def test_the_creator_cancels_an_open_game(watch, django_capture_on_commit_callbacks):
    game = make_game(players=3, start=False)
    services.game_join(game_id=game.pk, user=UserFactory())
    watcher = watch(game.pk)
    creator = game.created_by
    with django_capture_on_commit_callbacks(execute=True):
        services.game_cancel(game_id=game.pk, user=creator)
    game.refresh_from_db()
    assert (game.status, game.end_reason, game.to_move) == ("cancelled", "cancelled", None)
    assert game.finished_at is not None
    assert game.pk not in open_games()
    [event] = watcher.events()
    assert event["game"]["status"] == "cancelled"
    assert event["game"]["result"]["end_reason"] == "cancelled"
    assert event["game"]["result"]["winners"] == []
    assert event["version"] == game.version
    # Nobody can join or play it any more.
    with pytest.raises(Conflict):
        services.game_join(game_id=game.pk, user=UserFactory())


def test_a_cancelled_game_is_neither_rated_nor_analysed(finished_outcomes):
    game = make_game(start=False)
    services.game_cancel(game_id=game.pk, user=game.created_by)
    assert finished_outcomes == []
    assert not Game.objects.filter(pk=game.pk, analysis__isnull=False).exists()


def test_only_the_creator_may_cancel():
    game = make_game(players=3, start=False)
    joiner = UserFactory()
    services.game_join(game_id=game.pk, user=joiner)
    before = snapshot(game)
    for someone in (joiner, UserFactory()):
        with pytest.raises(NotAllowed, match="Only the player who opened this game"):
            services.game_cancel(game_id=game.pk, user=someone)
    assert snapshot(game) == before


def test_a_started_or_ended_game_cannot_be_cancelled():
    game = make_game()
    before = snapshot(game)
    with pytest.raises(Conflict, match="still waiting for players"):
        services.game_cancel(game_id=game.pk, user=game.created_by)
    assert snapshot(game) == before
    waiting = make_game(start=False)
    services.game_cancel(game_id=waiting.pk, user=waiting.created_by)
    with pytest.raises(Conflict):
        services.game_cancel(game_id=waiting.pk, user=waiting.created_by)


def test_cancelling_an_unknown_game_is_not_found(user):
    with pytest.raises(NotFound):
        services.game_cancel(game_id=987654, user=user)


def test_open_games_nobody_completed_in_time_expire(
    settings, watch, django_capture_on_commit_callbacks
):
    settings.SIESTA_OPEN_GAME_MINUTES = 30
    old, fresh = make_game(start=False), make_game(start=False)
    active = make_game()
    long_ago = timezone.now() - timedelta(minutes=31)
    Game.objects.filter(pk__in=[old.pk, active.pk]).update(created_at=long_ago)
    watcher = watch(old.pk)

    with django_capture_on_commit_callbacks(execute=True):
        assert services.game_open_expire() == [old.pk]

    old.refresh_from_db()
    assert (old.status, old.end_reason) == ("cancelled", "expired")
    assert [e["game"]["result"]["end_reason"] for e in watcher.events()] == ["expired"]
    assert open_games() == [fresh.pk]
    active.refresh_from_db()
    assert active.status == "active"
    # Later, the fresh one expires too; a second sweep finds nothing more.
    later = timezone.now() + timedelta(minutes=31)
    assert services.game_open_expire(now=later) == [fresh.pk]
    assert services.game_open_expire(now=later) == []


def test_the_sweep_runs_as_a_periodic_task(settings):
    from games.tasks import expire_open_games

    settings.SIESTA_OPEN_GAME_MINUTES = 1
    game = make_game(start=False)
    Game.objects.filter(pk=game.pk).update(created_at=timezone.now() - timedelta(minutes=2))
    assert expire_open_games() == [game.pk]
    assert "games.tasks.expire_open_games" in {
        entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()
    }

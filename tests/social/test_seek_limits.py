"""Limits on every path of quick pairing: a seek's bot fill counts against the bot games limit as
a game opened with bots does, seek writes are throttled per user (429), and a flood of seeks puts
a bounded number of matcher tasks on the queue (the triggered sweep is coalesced)."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from django.core.cache import cache, caches
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from games import services as game_services
from games.models import Game
from games.services import BotSpec, LimitReached
from siesta_site.celery import app
from social import enqueue
from social.models import Seek
from social.services.seeks import BOT_FILL_AFTER, seek_cancel, seek_create, seeks_match
from tests.factories import UserFactory
from tests.social.factories import make_seek

pytestmark = pytest.mark.django_db


@pytest.fixture
def bot_limit(settings):
    settings.SIESTA_MAX_BOT_GAMES = 3
    return 3


def bot_games_playing(user) -> int:
    return (
        Game.objects.filter(status__in=["open", "active"], seats__user=user)
        .filter(seats__bot_level__gt="")
        .distinct()
        .count()
    )


def test_a_bot_fill_seek_at_the_limit_is_refused(bot_limit, user):
    for _ in range(bot_limit):
        game_services.game_create(user=user, bots=[BotSpec(seat=2, level="easy")])
    with pytest.raises(LimitReached, match="already playing 3 games with bots"):
        seek_create(user=user, bot_fill=True)
    seek_create(user=user)  # people only: welcome


def test_bot_fill_never_takes_a_person_past_the_limit(bot_limit, user, caplog):
    """The issue's path: bot-fill seeks, one after another, reached 5 active bot games past a
    cap of 3. Now the seats by bots stop at the cap, on the matcher's side too: a seek made
    under the cap whose person reached it meanwhile waits for people instead."""
    caplog.set_level(logging.INFO)
    now = timezone.now()
    long_ago = now - BOT_FILL_AFTER - timedelta(seconds=1)
    for _ in range(bot_limit - 1):
        make_seek(user, at=long_ago, bot_fill=True)
        assert len(seeks_match(now=now)) == 1
    assert bot_games_playing(user) == bot_limit - 1

    seek = make_seek(user, at=long_ago, bot_fill=True)  # allowed: one game to go
    game_services.game_create(user=user, bots=[BotSpec(seat=2, level="easy")])  # now at the cap
    assert seeks_match(now=now) == []
    seek.refresh_from_db()
    assert seek.status == Seek.Status.WAITING
    assert bot_games_playing(user) == bot_limit
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]

    # A person comes: the seek is matched with them, no bot needed.
    make_seek(UserFactory(), at=now)
    [game_id] = seeks_match(now=now)
    assert not Game.objects.get(pk=game_id).seats.exclude(bot_level="").exists()


def test_a_table_with_bots_leaves_out_the_people_at_the_limit(bot_limit):
    """Three bot-fill seeks for 4 players, one of them at the limit: the other two play with two
    bots; the third waits."""
    ana, bo, cy = UserFactory(), UserFactory(), UserFactory()
    long_ago = timezone.now() - BOT_FILL_AFTER - timedelta(seconds=1)
    seeks = [make_seek(u, at=long_ago, players=4, bot_fill=True) for u in (ana, bo)]
    for _ in range(bot_limit):
        game_services.game_create(user=cy, bots=[BotSpec(seat=2, level="easy")])
    # cy's seek, made before the limit counted it (as a race would), is still in the pool.
    waiting = Seek.objects.create(
        user=cy, players=4, bot_fill=True, rating=1500, expires_at=timezone.now() + timedelta(1)
    )
    Seek.objects.filter(pk=waiting.pk).update(created_at=long_ago)
    [game_id] = seeks_match()
    seated = set(Game.objects.get(pk=game_id).seats.values_list("user", flat=True))
    assert seated == {ana.pk, bo.pk, None}
    waiting.refresh_from_db()
    assert waiting.status == Seek.Status.WAITING
    assert {s.pk for s in seeks} == set(
        Seek.objects.filter(game_id=game_id).values_list("pk", flat=True)
    )


def test_a_rematch_of_a_bot_game_counts_too(bot_limit, user):
    """Games the site seats (here through ``game_create_seated``) check every person."""
    for _ in range(bot_limit):
        game_services.game_create(user=user, bots=[BotSpec(seat=2, level="easy")])
    with pytest.raises(LimitReached):
        game_services.game_create_seated(users=[user, "easy"])


# -- floods ----------------------------------------------------------------------------------------


@pytest.fixture
def published(monkeypatch, settings):
    """The matcher's tasks as the broker gets them (not run): the broker is the edge."""
    sent: list[tuple] = []
    task = app.tasks[enqueue.MATCH_SEEKS]
    monkeypatch.setattr(task, "apply_async", lambda *a, **k: sent.append((a, k)))
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "m"}
    }
    cache.delete(enqueue.MATCHER_PENDING)
    # The flag's expiry only bounds a lost sweep; a loaded machine may take longer than its 2 s
    # to make the flood, which must still be one sweep.
    monkeypatch.setattr(enqueue, "MATCHER_PENDING_SECONDS", 600)
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = False
    yield sent
    app.conf.task_always_eager = previous


def test_a_flood_of_seeks_enqueues_one_sweep_until_it_runs(published, transactional_db):
    people = [UserFactory() for _ in range(50)]
    for person in people:
        seek = seek_create(user=person)
        seek_cancel(seek_id=seek.pk, user=person)
    assert len(published) == 1  # 100 seek changes, one waiting sweep

    # The sweep starts: the next change needs one of its own.
    app.tasks[enqueue.MATCH_SEEKS].run()
    seek_create(user=people[0])
    assert len(published) == 2


def test_without_a_cache_every_seek_still_enqueues_its_sweep(
    published, monkeypatch, transactional_db
):
    def down(*args, **kwargs):
        raise ConnectionError("the cache is away")

    monkeypatch.setattr(caches["default"], "add", down)
    for person in (UserFactory(), UserFactory()):
        seek_create(user=person)
    assert len(published) == 2


def test_seek_writes_are_throttled_per_user(real_throttles, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**real_throttles, "seeks": "4/minute"},
    }
    user = UserFactory()
    client = APIClient()
    client.force_authenticate(user)
    answers = []
    for _ in range(3):
        created = client.post(reverse("api-seeks"), {}, format="json")
        answers.append(created.status_code)
        if created.status_code == 201:
            answers.append(client.delete(f"/api/seeks/{created.json()['id']}/").status_code)
    assert answers[:4] == [201, 200, 201, 200]
    assert answers[4] == 429
    refused = client.post(reverse("api-seeks"), {}, format="json")
    assert refused.status_code == 429
    assert refused.json()["error"].startswith("Request was throttled.")
    assert int(refused["Retry-After"]) >= 1
    assert Seek.objects.filter(user=user).count() == 2  # refused before the service ran
    assert client.get(reverse("api-seeks")).status_code == 200  # reads are not counted
    other = APIClient()
    other.force_authenticate(UserFactory())
    assert other.post(reverse("api-seeks"), {}, format="json").status_code == 201

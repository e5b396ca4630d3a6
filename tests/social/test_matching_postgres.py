"""The matcher under several workers, on PostgreSQL: ``SKIP LOCKED`` keeps two sweeps apart, so
no seek is ever seated twice."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import connection, transaction

from games.models import Game, Seat
from social.models import Seek
from social.services import seeks
from social.services.seeks import seeks_match
from tests.factories import UserFactory
from tests.social.factories import make_seek

pytestmark = [pytest.mark.requires_postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _no_triggered_sweep(monkeypatch):
    """Seeks commit for real here, and each would trigger a sweep at once; these tests run the
    sweeps themselves."""
    monkeypatch.setattr(seeks, "_enqueue_matcher", lambda: None)


def in_thread(target, *args):
    """Run ``target`` in a thread with its own database connection (closed at the end)."""
    result: dict[str, object] = {}

    def run():
        try:
            result["value"] = target(*args)
        except Exception as exc:  # surfaced by the test
            result["error"] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, result


def test_a_sweep_skips_seeks_another_sweep_holds():
    make_seek()
    make_seek()
    locked, release = threading.Event(), threading.Event()

    def hold_the_seeks():
        with transaction.atomic():
            list(Seek.objects.select_for_update().filter(status=Seek.Status.WAITING))
            locked.set()
            release.wait(20)

    holder, _ = in_thread(hold_the_seeks)
    assert locked.wait(20)
    try:
        # Another worker's sweep does not wait for the lock and does not see those seeks.
        assert seeks_match() == []
    finally:
        release.set()
        holder.join(20)
    assert len(seeks_match()) == 1


def test_two_concurrent_matchers_never_pair_a_seek_twice():
    users = [UserFactory() for _ in range(24)]
    for user in users:
        make_seek(user)
    start = threading.Barrier(2)

    def sweep_until_done():
        start.wait(20)
        made = []
        for _ in range(30):
            made += seeks_match()
            if not Seek.objects.filter(status=Seek.Status.WAITING).exists():
                break
        return made

    threads = [in_thread(sweep_until_done) for _ in range(2)]
    for thread, _ in threads:
        thread.join(60)
    for _, result in threads:
        assert "error" not in result, result.get("error")
    made = [game for _, result in threads for game in result["value"]]

    assert len(made) == len(set(made)) == 12
    assert Game.objects.count() == 12
    assert not Seek.objects.exclude(status=Seek.Status.MATCHED).exists()
    # Every person is seated exactly once, in the game their seek names.
    seated = Counter(Seat.objects.values_list("user_id", flat=True))
    assert seated == Counter({user.pk: 1 for user in users})
    for seek in Seek.objects.all():
        assert Seat.objects.filter(game_id=seek.game_id, user_id=seek.user_id).exists()

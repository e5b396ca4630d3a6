"""Quick pairing: seeks, the matcher (settings, rating ranges widening with the wait, bots after
30 s, expiry), one open seek per person, and the API of API.md (Play together)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game
from games.services import Conflict, InvalidInput
from social.models import Seek
from social.services.seeks import (
    BOT_FILL_AFTER,
    SEEK_LIFETIME,
    effective_range,
    seek_cancel,
    seek_payload,
    seeks_match,
    user_rating,
)
from tests.factories import UserFactory
from tests.social.factories import make_seek

pytestmark = pytest.mark.django_db


def seats_of(game_id: int) -> list[tuple[int, str | None, str]]:
    game = Game.objects.get(pk=game_id)
    return [(s.seat, s.user.username if s.user else None, s.bot_level) for s in game.seats.all()]


def test_two_compatible_seeks_make_an_active_game_with_both():
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    first, second = make_seek(ana), make_seek(bo)

    created = seeks_match()

    assert len(created) == 1
    game = Game.objects.get(pk=created[0])
    assert game.status == Game.Status.ACTIVE
    assert (game.players, game.mode, game.turn_seconds, game.rated) == (2, "ffa", 120, True)
    assert sorted(name for _seat, name, _bot in seats_of(game.pk)) == ["ana", "bo"]
    for seek in (first, second):
        seek.refresh_from_db()
        assert (seek.status, seek.game_id) == (Seek.Status.MATCHED, game.pk)
    assert seeks_match() == []  # nobody is seated twice


@pytest.mark.parametrize(
    "other",
    [
        {"players": 3},
        {"turn_seconds": 300},
        {"variant": "classic"},
        {"rated": False},
    ],
)
def test_seeks_with_other_settings_are_not_paired(other):
    make_seek()
    make_seek(**other)
    assert seeks_match() == []
    assert Seek.objects.filter(status=Seek.Status.WAITING).count() == 2


def test_four_player_and_team_seeks_wait_for_four():
    seekers = [UserFactory() for _ in range(4)]
    for user in seekers[:3]:
        make_seek(user, players=4, mode="teams")
    assert seeks_match() == []

    make_seek(seekers[3], players=4, mode="teams")
    [game_id] = seeks_match()
    game = Game.objects.get(pk=game_id)
    assert (game.players, game.mode, game.status) == (4, "teams", Game.Status.ACTIVE)
    assert sorted(t for t in game.seats.values_list("team", flat=True)) == [1, 1, 2, 2]


def test_the_oldest_seeks_are_seated_first():
    now = timezone.now()
    old = [make_seek(at=now - timedelta(seconds=20 - i)) for i in range(3)]
    [game_id] = seeks_match(now=now)
    seated = {name for _s, name, _b in seats_of(game_id)}
    assert seated == {old[0].user.username, old[1].user.username}
    old[2].refresh_from_db()
    assert old[2].status == Seek.Status.WAITING


def test_rating_ranges_keep_far_apart_players_waiting_then_widen():
    now = timezone.now()
    low = make_seek(rating=1400, rating_range=100, at=now)
    make_seek(rating=1650, rating_range=100, at=now)

    # 250 apart, ranges of 100: no game at first.
    assert seeks_match(now=now) == []
    assert effective_range(low, now) == 100
    # Each range adds itself once per 30 s of waiting: 200 after 30 s (not enough), 300 after 60.
    later = now + timedelta(seconds=30)
    assert effective_range(low, later) == 200
    assert seeks_match(now=later) == []
    latest = now + timedelta(seconds=60)
    assert effective_range(low, latest) == 300
    assert len(seeks_match(now=latest)) == 1


def test_a_range_must_suit_both_seeks():
    now = timezone.now()
    make_seek(rating=1500, rating_range=None, at=now)  # anyone
    make_seek(rating=1800, rating_range=100, at=now)
    assert seeks_match(now=now) == []
    other = make_seek(rating=1750, rating_range=None, at=now)
    [game_id] = seeks_match(now=now)
    assert other.user.username in {name for _s, name, _b in seats_of(game_id)}


def test_the_rating_comes_from_the_pool_of_the_mode():
    from ratings.models import Rating

    user = UserFactory()
    Rating.objects.create(user=user, pool="ffa", rating=1712.5)
    assert make_seek(user).rating == 1712.5
    assert user_rating(user.pk, "teams") == 1500


def test_one_open_seek_per_person_and_cancel():
    user = UserFactory()
    seek = make_seek(user)
    with pytest.raises(Conflict):
        make_seek(user, turn_seconds=300)
    assert seek_cancel(seek_id=seek.pk, user=user).status == Seek.Status.CANCELLED
    assert make_seek(user, turn_seconds=300).status == Seek.Status.WAITING  # free again


def test_cancelled_and_expired_seeks_are_never_paired():
    now = timezone.now()
    cancelled = make_seek(at=now)
    seek_cancel(seek_id=cancelled.pk, user=cancelled.user)
    stale = make_seek(at=now - SEEK_LIFETIME - timedelta(seconds=1))
    fresh = make_seek(at=now)

    assert seeks_match(now=now) == []
    stale.refresh_from_db()
    fresh.refresh_from_db()
    assert stale.status == Seek.Status.EXPIRED
    assert fresh.status == Seek.Status.WAITING


def test_a_matched_seek_cannot_be_cancelled():
    first = make_seek()
    make_seek()
    seeks_match()
    with pytest.raises(Conflict):
        seek_cancel(seek_id=first.pk, user=first.user)


def test_bots_fill_a_seek_that_allowed_them_after_30_seconds():
    now = timezone.now()
    seek = make_seek(at=now, players=3, bot_fill=True)
    assert seeks_match(now=now + timedelta(seconds=29)) == []
    [game_id] = seeks_match(now=now + BOT_FILL_AFTER)
    seats = seats_of(game_id)
    assert [name for _s, name, _b in seats if name] == [seek.user.username]
    assert sorted(bot for _s, _n, bot in seats if bot) == ["medium", "medium"]
    assert Game.objects.get(pk=game_id).status == Game.Status.ACTIVE


def test_a_seek_chooses_the_level_of_its_bots_the_expert_too():
    now = timezone.now()
    seek = make_seek(at=now, players=2, bot_fill=True, bot_level="expert")
    assert seek_payload(seek)["bot_level"] == "expert"
    [game_id] = seeks_match(now=now + BOT_FILL_AFTER)
    assert [bot for _s, _n, bot in seats_of(game_id) if bot] == ["expert"]
    with pytest.raises(InvalidInput):
        make_seek(bot_fill=True, bot_level="grandmaster")


def test_bot_fill_keeps_the_people_who_are_there():
    now = timezone.now()
    wants_bots = make_seek(at=now - timedelta(seconds=40), players=4, bot_fill=True)
    also = make_seek(at=now - timedelta(seconds=5), players=4, bot_fill=True)
    no_bots = make_seek(at=now - timedelta(seconds=5), players=4)
    [game_id] = seeks_match(now=now)
    people = {name for _s, name, _b in seats_of(game_id) if name}
    assert people == {wants_bots.user.username, also.user.username}
    no_bots.refresh_from_db()
    assert no_bots.status == Seek.Status.WAITING


def test_a_seek_without_bots_just_waits():
    now = timezone.now()
    make_seek(at=now - timedelta(minutes=5))
    assert seeks_match(now=now) == []


@pytest.mark.parametrize(
    "bad",
    [{"players": 5}, {"mode": "teams", "players": 2}, {"turn_seconds": 5}, {"rating_range": 10}],
)
def test_bad_seeks_are_refused(bad):
    with pytest.raises(InvalidInput):
        make_seek(**bad)
    assert not Seek.objects.exists()


# -- the API --------------------------------------------------------------------------------------


@pytest.fixture
def api_client():
    from rest_framework.test import APIClient

    return APIClient()


def test_api_seek_waits_then_is_matched_by_the_triggered_sweep(
    api_client, django_capture_on_commit_callbacks
):
    ana, bo = UserFactory(), UserFactory()
    api_client.force_authenticate(ana)
    with django_capture_on_commit_callbacks(execute=True):
        response = api_client.post("/api/seeks/", {"rating_range": 200}, format="json")
    assert response.status_code == 201
    assert response.json()["status"] == "waiting"
    seek_id = response.json()["id"]

    api_client.force_authenticate(bo)
    with django_capture_on_commit_callbacks(execute=True):
        answer = api_client.post("/api/seeks/", {}, format="json")
    assert answer.status_code == 201
    # The new seek triggered a sweep on commit: both are matched.
    assert api_client.get(f"/api/seeks/{answer.json()['id']}/").json()["status"] == "matched"

    api_client.force_authenticate(ana)
    mine = api_client.get(f"/api/seeks/{seek_id}/").json()
    assert mine["status"] == "matched"
    assert mine["game"] == Seek.objects.get(pk=answer.json()["id"]).game_id
    assert Game.objects.get(pk=mine["game"]).status == "active"


def test_api_seek_errors(api_client):
    user, other = UserFactory(), UserFactory()
    assert api_client.post("/api/seeks/", {}, format="json").status_code in (401, 403)
    api_client.force_authenticate(user)
    bad = api_client.post("/api/seeks/", {"players": 9}, format="json")
    assert bad.status_code == 400
    assert "players" in bad.json()["error"]
    bad_level = api_client.post("/api/seeks/", {"bot_level": "grandmaster"}, format="json")
    assert bad_level.status_code == 400
    assert "bot_level" in bad_level.json()["error"]
    seek_id = api_client.post("/api/seeks/", {}, format="json").json()["id"]
    again = api_client.post("/api/seeks/", {}, format="json")
    assert again.status_code == 409
    assert again.json()["error"]
    assert api_client.get("/api/seeks/").json()["seek"]["id"] == seek_id

    api_client.force_authenticate(other)
    assert api_client.get(f"/api/seeks/{seek_id}/").status_code == 404
    assert api_client.delete(f"/api/seeks/{seek_id}/").status_code == 404

    api_client.force_authenticate(user)
    cancelled = api_client.delete(f"/api/seeks/{seek_id}/")
    assert cancelled.status_code == 200
    assert cancelled.json()["status"] == "cancelled"
    assert api_client.get("/api/seeks/").json() == {"seek": None}

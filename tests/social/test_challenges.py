"""Challenges from a profile: the challenged person gets it live on the lobby socket and on their
next visit, accepts (the game starts for both) or declines; the challenger may withdraw."""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone
from rest_framework.test import APIClient

from games.models import Game
from games.services import Conflict, InvalidInput, NotAllowed, NotFound
from social.models import Challenge, Notification
from social.services.challenges import (
    CHALLENGE_LIFETIME,
    challenge_accept,
    challenge_cancel,
    challenge_create,
    challenge_decline,
    challenges_expire,
)
from social.services.notices import notification_text
from social.services.preferences import preferences_update
from tests.factories import UserFactory
from tests.social.sockets import receive, receive_type


@pytest.fixture
def pair(db):
    return UserFactory(username="ana"), UserFactory(username="bo")


def test_accept_starts_a_two_player_game_with_the_settings(pair):
    ana, bo = pair
    challenge = challenge_create(
        challenger=ana, username="bo", variant="classic", rated=False, turn_seconds=86400
    )
    assert challenge.status == Challenge.Status.PENDING
    notice = Notification.objects.get(user=bo)
    assert notification_text(notice.kind, notice.params) == "Challenge from ana."

    accepted = challenge_accept(challenge_id=challenge.pk, user=bo)
    game = Game.objects.get(pk=accepted.game_id)
    assert game.status == Game.Status.ACTIVE
    assert (game.players, game.variant, game.rated, game.turn_seconds) == (
        2,
        "classic",
        False,
        86400,
    )
    assert {s.user.username for s in game.seats.all()} == {"ana", "bo"}
    # Answered: the notice is read, and ana learns that bo accepted.
    notice.refresh_from_db()
    assert notice.read_at is not None
    answer = Notification.objects.get(user=ana)
    assert notification_text(answer.kind, answer.params) == (
        f"bo accepted your challenge: game {game.pk}."
    )
    with pytest.raises(Conflict):
        challenge_accept(challenge_id=challenge.pk, user=bo)


def test_decline_cancel_and_who_may_do_what(pair):
    ana, bo = pair
    stranger = UserFactory()
    challenge = challenge_create(challenger=ana, username="bo")
    with pytest.raises(NotAllowed):
        challenge_accept(challenge_id=challenge.pk, user=ana)
    with pytest.raises(NotFound):
        challenge_decline(challenge_id=challenge.pk, user=stranger)
    with pytest.raises(NotAllowed):
        challenge_cancel(challenge_id=challenge.pk, user=bo)
    assert challenge_decline(challenge_id=challenge.pk, user=bo).status == "declined"
    assert not Game.objects.exists()

    again = challenge_create(challenger=ana, username="bo")
    assert challenge_cancel(challenge_id=again.pk, user=ana).status == "cancelled"


def test_bad_challenges_are_refused(pair):
    ana, _bo = pair
    with pytest.raises(InvalidInput):
        challenge_create(challenger=ana, username="ana")
    with pytest.raises(NotFound):
        challenge_create(challenger=ana, username="nobody")
    with pytest.raises(InvalidInput):
        challenge_create(challenger=ana, username="bo", turn_seconds=1)
    challenge_create(challenger=ana, username="bo")
    with pytest.raises(Conflict):
        challenge_create(challenger=ana, username="bo")
    assert Challenge.objects.count() == 1


def test_old_challenges_expire(pair):
    ana, _bo = pair
    challenge = challenge_create(challenger=ana, username="bo")
    assert challenges_expire() == 0
    later = timezone.now() + CHALLENGE_LIFETIME + timedelta(minutes=1)
    assert challenges_expire(now=later) == 1
    challenge.refresh_from_db()
    assert challenge.status == "expired"


def test_challenge_api(pair):
    ana, bo = pair
    client = APIClient()
    client.force_authenticate(ana)
    created = client.post(
        "/api/challenges/", {"username": "bo", "turn_seconds": 300}, format="json"
    )
    assert created.status_code == 201
    body = created.json()
    assert (body["from"], body["to"], body["status"], body["turn_seconds"]) == (
        "ana",
        "bo",
        "pending",
        300,
    )
    assert client.post("/api/challenges/", {"username": "zz"}, format="json").status_code == 404
    assert client.post(f"/api/challenges/{body['id']}/accept/").status_code == 403

    client.force_authenticate(bo)
    assert [c["id"] for c in client.get("/api/challenges/").json()] == [body["id"]]
    accepted = client.post(f"/api/challenges/{body['id']}/accept/").json()
    assert accepted["status"] == "accepted"
    assert accepted["game"]
    assert client.get("/api/challenges/").json() == []


def test_challenge_from_the_profile_page_without_script(client, pair):
    ana, bo = pair
    client.force_login(ana)
    page = client.get("/users/bo/").content.decode()
    assert 'action="/users/bo/challenge/"' in page
    assert "/users/ana/challenge/" not in client.get("/users/ana/").content.decode()
    response = client.post(
        "/users/bo/challenge/", {"variant": "standard", "turn_seconds": 120, "rated": "1"}
    )
    assert response.status_code == 302
    challenge = Challenge.objects.get()
    client.force_login(bo)
    listing = client.get("/notifications/").content.decode()
    assert "Challenge from ana." in listing
    accepted = client.post(f"/challenges/{challenge.pk}/accept/")
    challenge.refresh_from_db()
    assert accepted["Location"] == f"/games/{challenge.game_id}/"


@pytest.mark.django_db(transaction=True)
async def test_the_challenged_person_gets_it_live_and_on_the_next_visit(sockets):
    ana, bo = await database_sync_to_async(lambda: (UserFactory(), UserFactory()))()
    challenger = await sockets.open("/ws/lobby/", user=ana)
    challenged = await sockets.open("/ws/lobby/", user=bo)
    assert (await receive(challenged))["challenges"] == []
    await receive(challenger)

    challenge = await database_sync_to_async(challenge_create)(challenger=ana, username=bo.username)
    live = await receive_type(challenged, "challenge")
    assert live["challenge"]["id"] == challenge.pk
    assert live["challenge"]["from"] == ana.username
    notice = await receive_type(challenged, "notification")
    assert notice["unread"] == 1
    assert notice["notification"]["kind"] == "challenge"

    # A page opened later: the welcome carries the pending challenge.
    later = await sockets.open("/ws/lobby/", user=bo)
    welcome = await receive(later)
    assert [c["id"] for c in welcome["challenges"]] == [challenge.pk]
    assert welcome["unread"] == 1

    accepted = await database_sync_to_async(challenge_accept)(challenge_id=challenge.pk, user=bo)
    # The challenger's page learns the game and jumps into it.
    update = await receive_type(challenger, "challenge")
    assert update["challenge"]["status"] == "accepted"
    assert update["challenge"]["game"] == accepted.game_id


def test_challenges_are_throttled_per_challenger_with_429_and_no_mail(db, real_throttles, settings):
    """Issue 31: 40 challenge+cancel pairs sent 40 mails. Past the challenger's limit a challenge
    is refused (429, the API's error body, Retry-After) and makes no notice and no mail."""
    from django.core import mail

    from core.throttling import Rate

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    limit = Rate.parse(real_throttles["challenge"])
    assert limit is not None
    ana = UserFactory(username="ana")
    bo = UserFactory(username="bo", email="bo@example.com")
    preferences_update(user=bo, email_challenges=True, email_confirmed=bo.email)
    client = APIClient(REMOTE_ADDR="203.0.113.40")
    client.force_authenticate(ana)
    for _ in range(limit.count):
        created = client.post("/api/challenges/", {"username": "bo"}, format="json")
        assert created.status_code == 201
        assert client.delete(f"/api/challenges/{created.json()['id']}/").status_code == 200
    sent = len(mail.outbox)

    refused = client.post("/api/challenges/", {"username": "bo"}, format="json")

    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= limit.seconds
    assert refused.json()["error"]
    assert Challenge.objects.filter(challenger=ana).count() == limit.count
    assert len(mail.outbox) == sent
    # Listing is not counted; another challenger is not held back.
    assert client.get("/api/challenges/").status_code == 200
    other = APIClient(REMOTE_ADDR="203.0.113.41")
    other.force_authenticate(UserFactory())
    assert other.post("/api/challenges/", {"username": "bo"}, format="json").status_code == 201


def test_challenges_are_throttled_per_address_across_accounts(db, real_throttles, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**real_throttles, "challenge_address": "3/hour"},
    }
    UserFactory(username="bo")
    for number in range(4):
        client = APIClient(REMOTE_ADDR="203.0.113.42")
        client.force_authenticate(UserFactory(username=f"sock{number}"))
        answer = client.post("/api/challenges/", {"username": "bo"}, format="json")
        assert answer.status_code == (201 if number < 3 else 429)


def test_the_profile_page_says_a_challenge_is_throttled(client, pair, settings, real_throttles):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**real_throttles, "challenge": "1/hour"},
    }
    ana, _bo = pair
    client.force_login(ana)
    form = {"variant": "standard", "turn_seconds": 120, "rated": "1"}
    client.post("/users/bo/challenge/", form)
    challenge_cancel(challenge_id=Challenge.objects.get().pk, user=ana)
    page = client.post("/users/bo/challenge/", form, follow=True, HTTP_ACCEPT_LANGUAGE="it")
    assert "Troppi tentativi" in page.content.decode()
    assert Challenge.objects.count() == 1

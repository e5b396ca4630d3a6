"""The probes of issue 31, "mail to anyone", replayed with the real limits: a stranger's address
flooded with challenge mails, the anonymous password-reset flood, and the owner locked out by
bad passwords from elsewhere. Each now ends the way it should."""

from __future__ import annotations

import pytest
from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

from core.throttling import Rate
from social.models import Challenge
from social.services.preferences import preferences_update
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

STRANGER = "stranger@example.org"


def rate(rates: dict, scope: str) -> Rate:
    found = Rate.parse(rates[scope])
    assert found is not None, f"{scope} is throttled by default"
    return found


def test_forty_challenges_and_cancels_send_no_mail_to_a_strangers_address(
    client, real_throttles, django_capture_on_commit_callbacks
):
    """The probe: B puts a stranger's address in their preferences (asking for challenge mails);
    A sends 40 challenge+cancel pairs in a row. Before: 40 mails to the stranger. Now: the one
    confirmation link (which nobody follows), no challenge mail, and challenges refused (429)
    past the challenger's limit."""
    attacker, accomplice = UserFactory(username="a"), UserFactory(username="b", email="")
    client.force_login(accomplice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/notifications/preferences/", {"email": STRANGER, "email_challenges": "on"})
    api = APIClient(REMOTE_ADDR="203.0.113.66")
    api.force_authenticate(attacker)
    answers = []
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(40):
            created = api.post("/api/challenges/", {"username": "b"}, format="json")
            answers.append(created.status_code)
            if created.status_code == 201:
                api.delete(f"/api/challenges/{created.json()['id']}/")

    limit = rate(real_throttles, "challenge")
    assert answers == [201] * limit.count + [429] * (40 - limit.count)
    assert Challenge.objects.count() == limit.count
    to_stranger = [m for m in mail.outbox if m.to == [STRANGER]]
    assert [m.subject for m in to_stranger] == ["Siesta: confirm your e-mail address"]


def test_a_confirmed_address_gets_at_most_its_hours_mails(
    real_throttles, django_capture_on_commit_callbacks
):
    """Many challengers at once against a confirmed address: the notices stay on the site, the
    mails stop at ``mail_address`` an hour."""
    victim = UserFactory(username="v", email="v@example.com")
    preferences_update(user=victim, email_challenges=True, email_confirmed=victim.email)
    with django_capture_on_commit_callbacks(execute=True):
        for number in range(30):
            api = APIClient(REMOTE_ADDR=f"198.51.100.{number + 1}")
            api.force_authenticate(UserFactory())
            assert api.post("/api/challenges/", {"username": "v"}, format="json").status_code == 201
    assert (
        len([m for m in mail.outbox if m.to == ["v@example.com"]])
        == rate(real_throttles, "mail_address").count
    )


def test_twenty_anonymous_reset_requests_send_at_most_the_addresss_limit(real_throttles):
    """The probe: 20 anonymous posts of the reset form for one address. Before: 20 mails. Now:
    ``password_reset_address`` mails at most, then 429 (and unconfirmed addresses get none)."""
    owner = UserFactory(username="o", email="o@example.com")
    preferences_update(user=owner, email_confirmed=owner.email)
    UserFactory(username="u", email=STRANGER)  # set, never confirmed
    answers = [
        Client(REMOTE_ADDR=f"192.0.2.{n + 1}")
        .post("/accounts/password_reset/", {"email": "o@example.com"})
        .status_code
        for n in range(20)
    ]
    for n in range(20):
        Client(REMOTE_ADDR=f"192.0.2.{n + 101}").post(
            "/accounts/password_reset/", {"email": STRANGER}
        )

    limit = rate(real_throttles, "password_reset_address")
    assert answers == [302] * limit.count + [429] * (20 - limit.count)
    assert len([m for m in mail.outbox if m.to == ["o@example.com"]]) == limit.count
    assert [m for m in mail.outbox if m.to == [STRANGER]] == []


def test_twenty_bad_passwords_from_elsewhere_do_not_lock_the_owner_out(real_throttles):
    """The probe: 20 bad passwords for one username, from 20 addresses. Before: the owner could
    not sign in for an hour. Now: the owner signs in from their own address at once, by the API
    and by the form."""
    owner = UserFactory(username="owner")
    for n in range(20):
        wrong = APIClient(REMOTE_ADDR=f"198.51.100.{n + 1}").post(
            "/api/auth/token/", {"username": "owner", "password": "guess"}, format="json"
        )
        assert wrong.status_code == 400
    # Even one attacker address hammering away only delays itself.
    hammer = APIClient(REMOTE_ADDR="198.51.100.200")
    for _ in range(rate(real_throttles, "login_failures").count + 1):
        hammer.post("/api/auth/token/", {"username": "owner", "password": "guess"}, format="json")
    held = hammer.post(
        "/api/auth/token/", {"username": "owner", "password": PASSWORD}, format="json"
    )
    assert held.status_code == 429

    home = APIClient(REMOTE_ADDR="192.0.2.10")
    assert (
        home.post(
            "/api/auth/token/", {"username": "owner", "password": PASSWORD}, format="json"
        ).status_code
        == 200
    )
    form = Client(REMOTE_ADDR="192.0.2.10").post(
        "/accounts/login/", {"username": owner.username, "password": PASSWORD}
    )
    assert form.status_code == 302

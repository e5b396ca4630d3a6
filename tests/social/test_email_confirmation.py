"""The e-mail address of the preferences: unconfirmed until the signed link mailed to it is
followed (a button, so that a mail scanner fetching the link confirms nothing); no notice is
mailed to an unconfirmed address; the link can be sent again, throttled."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from social.services.challenges import challenge_create
from social.services.preferences import email_is_confirmed
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PREFERENCES = "/notifications/preferences/"
RESEND = "/notifications/preferences/confirm/"


@pytest.fixture(autouse=True)
def _locmem_email(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SIESTA_SITE_URL = "https://siesta.example"


def confirm_link(message) -> str:
    found = re.search(r"https://siesta\.example(/notifications/confirm/[^/\s]+/)", message.body)
    assert found is not None, message.body
    return found.group(1)


def set_address(client, address: str, **choices: str):
    return client.post(PREFERENCES, {"email": address, "email_challenges": "on", **choices})


def challenge_mails(to: str) -> list:
    return [m for m in mail.outbox if m.to == [to] and "Challenge" in m.subject]


def test_a_new_address_is_mailed_nothing_but_its_link_until_confirmed(
    client, django_capture_on_commit_callbacks
):
    ana = UserFactory(username="ana", email="")
    client.force_login(ana)
    with django_capture_on_commit_callbacks(execute=True):
        saved = set_address(client, "ana@example.com")
    assert saved.status_code == 302
    [link_mail] = mail.outbox
    assert link_mail.to == ["ana@example.com"]
    assert link_mail.subject == "Siesta: confirm your e-mail address"
    page = client.get(PREFERENCES).content.decode()
    assert "ana@example.com is unconfirmed" in page
    assert "Send the link again" in page

    with django_capture_on_commit_callbacks(execute=True):
        challenge_create(challenger=UserFactory(), username="ana")
    assert challenge_mails("ana@example.com") == []

    link = confirm_link(link_mail)
    question = client.get(link)  # what a mail scanner would fetch: a question, no change
    assert "Confirm ana@example.com as the e-mail address of ana?" in question.content.decode()
    ana.refresh_from_db()
    assert not email_is_confirmed(ana)
    done = client.post(link)
    assert "Done: ana@example.com is confirmed." in done.content.decode()
    ana.refresh_from_db()
    assert email_is_confirmed(ana)
    assert "ana@example.com is confirmed." in client.get(PREFERENCES).content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        challenge_create(challenger=UserFactory(), username="ana")
    assert len(challenge_mails("ana@example.com")) == 1


def test_a_changed_address_is_unconfirmed_and_the_old_link_no_longer_works(
    client, django_capture_on_commit_callbacks
):
    ana = UserFactory(username="ana", email="")
    client.force_login(ana)
    with django_capture_on_commit_callbacks(execute=True):
        set_address(client, "ana@example.com")
    old_link = confirm_link(mail.outbox[0])
    client.post(old_link)

    with django_capture_on_commit_callbacks(execute=True):
        set_address(client, "ana@other.example")
    ana.refresh_from_db()
    assert not email_is_confirmed(ana)
    assert mail.outbox[-1].to == ["ana@other.example"]
    # The first link names the first address: it cannot confirm the second.
    assert client.get(old_link).status_code == 404
    assert client.post(old_link).status_code == 404
    ana.refresh_from_db()
    assert not email_is_confirmed(ana)
    # Only the case changes: still the confirmed mailbox, no new link.
    client.post(confirm_link(mail.outbox[-1]))
    sent = len(mail.outbox)
    with django_capture_on_commit_callbacks(execute=True):
        set_address(client, "Ana@Other.example")
    ana.refresh_from_db()
    assert email_is_confirmed(ana)
    assert len(mail.outbox) == sent


def test_an_expired_or_forged_link_is_refused(client, settings, django_capture_on_commit_callbacks):
    ana = UserFactory(username="ana", email="")
    client.force_login(ana)
    with django_capture_on_commit_callbacks(execute=True):
        set_address(client, "ana@example.com")
    link = confirm_link(mail.outbox[0])
    settings.SIESTA_EMAIL_CONFIRM_DAYS = -1  # every link is past its age

    assert client.get(link).status_code == 404
    assert client.post(link).status_code == 404
    assert client.get("/notifications/confirm/forged/").status_code == 404
    ana.refresh_from_db()
    assert not email_is_confirmed(ana)


def test_sending_the_link_again_is_throttled(
    client, real_throttles, django_capture_on_commit_callbacks
):
    from core.throttling import Rate

    limit = Rate.parse(real_throttles["email_confirm"])
    assert limit is not None
    ana = UserFactory(username="ana", email="")
    client.force_login(ana)
    with django_capture_on_commit_callbacks(execute=True):
        set_address(client, "ana@example.com")  # the first link
        for _ in range(limit.count - 1):
            page = client.post(RESEND, follow=True)
            assert "We sent a confirmation link to ana@example.com." in page.content.decode()
        refused = client.post(RESEND, follow=True, HTTP_ACCEPT_LANGUAGE="fr")
    assert len(mail.outbox) == limit.count
    assert "Trop de tentatives" in refused.content.decode()


def test_the_link_is_in_the_readers_language(client, django_capture_on_commit_callbacks):
    ana = UserFactory(username="ana", email="")
    client.force_login(ana)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(PREFERENCES, {"email": "ana@example.com"}, HTTP_ACCEPT_LANGUAGE="it")
    [link_mail] = mail.outbox
    assert link_mail.subject == "Siesta: conferma il tuo indirizzo e-mail"

"""The account pages: registration, sign-in and out, password change (Django's forms)."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


def test_register_creates_user_and_logs_in(client):
    response = client.post(
        reverse("register"),
        {"username": "siestero", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302
    assert response.url == reverse("home")
    user = get_user_model().objects.get(username="siestero")
    assert client.session["_auth_user_id"] == str(user.pk)
    assert "siestero" in client.get(reverse("home")).content.decode()


def test_register_rejects_mismatched_passwords(client):
    response = client.post(
        reverse("register"),
        {"username": "siestero", "password1": PASSWORD, "password2": PASSWORD + "x"},
    )
    assert response.status_code == 200
    assert not get_user_model().objects.filter(username="siestero").exists()
    assert "_auth_user_id" not in client.session


def test_login_and_logout(client, user):
    response = client.post(reverse("login"), {"username": user.username, "password": PASSWORD})
    assert response.status_code == 302
    assert response.url == reverse("home")
    assert client.session["_auth_user_id"] == str(user.pk)

    response = client.post(reverse("logout"))
    assert response.status_code == 302
    assert "_auth_user_id" not in client.session


def test_password_change_pages(client, user):
    client.force_login(user)
    assert client.get(reverse("password_change")).status_code == 200
    assert client.get(reverse("password_change_done")).status_code == 200


def test_the_register_form_refuses_a_password_of_only_spaces(client):
    page = client.post(
        reverse("register"), {"username": "blanca", "password1": " " * 10, "password2": " " * 10}
    )

    assert page.status_code == 200
    assert "Your password cannot be only spaces." in page.content.decode()
    assert not get_user_model().objects.filter(username="blanca").exists()


RESET = "/accounts/password_reset/"


def test_the_sign_in_page_links_to_the_password_reset(client):
    page = client.get(reverse("login")).content.decode()
    assert f'href="{reverse("password_reset")}"' in page
    assert "Forgot password?" in page


def test_a_forgotten_password_is_reset_through_the_site_pages(client):
    """Every step is a page of the site (not the admin's) and the new password signs in."""
    import re

    from django.core import mail

    from social.services.preferences import preferences_update

    ana = UserFactory(username="ana", email="ana@example.com")
    preferences_update(user=ana, email_confirmed="ana@example.com")
    form = client.get(RESET).content.decode()
    assert "site-header" in form
    assert "Django" not in form
    done = client.post(RESET, {"email": "ana@example.com"}, follow=True)
    assert "Check your e-mail" in done.content.decode()
    [sent] = mail.outbox
    link = re.search(r"https?://[^/\s]+(/accounts/reset/\S+)", sent.body)
    assert link is not None, sent.body
    confirm = client.get(link.group(1), follow=True)
    assert "Set a new password" in confirm.content.decode()
    new_password = PASSWORD + "-new"
    complete = client.post(
        confirm.redirect_chain[-1][0],
        {"new_password1": new_password, "new_password2": new_password},
        follow=True,
    )
    assert "Your new password is set" in complete.content.decode()
    client.logout()
    assert client.login(username="ana", password=new_password)


def test_a_used_reset_link_says_so_in_the_site_page(client):
    page = client.get("/accounts/reset/MQ/set-password/").content.decode()
    assert "This link is no longer valid" in page
    assert f'href="{reverse("password_reset")}"' in page


def test_a_password_reset_is_mailed_to_a_confirmed_address_only(client):
    """The reset link sets the password: it goes only to an address its owner proved is theirs
    (an unconfirmed one may be a typo, or a stranger's)."""
    from django.core import mail

    from social.services.preferences import preferences_update

    confirmed = UserFactory(username="ana", email="ana@example.com")
    preferences_update(user=confirmed, email_confirmed="ana@example.com")
    UserFactory(username="bo", email="bo@example.com")  # never confirmed

    assert client.post(RESET, {"email": "bo@example.com"}).status_code == 302
    assert mail.outbox == []
    assert client.post(RESET, {"email": "ANA@example.com"}).status_code == 302
    [sent] = mail.outbox
    assert sent.to == ["ana@example.com"]
    assert "/accounts/reset/" in sent.body


def test_password_resets_are_throttled_per_address_asked_for_and_per_client(
    client, settings, real_throttles
):
    from django.core import mail

    from core.throttling import Rate
    from social.services.preferences import preferences_update

    per_address = Rate.parse(real_throttles["password_reset_address"])
    per_client = Rate.parse(real_throttles["password_reset"])
    assert per_address is not None
    assert per_client is not None
    assert per_address.count < per_client.count
    ana = UserFactory(username="ana", email="ana@example.com")
    preferences_update(user=ana, email_confirmed=ana.email)
    for _ in range(per_address.count):
        assert client.post(RESET, {"email": "ana@example.com"}).status_code == 302
    refused = client.post(RESET, {"email": "ana@example.com"}, HTTP_ACCEPT_LANGUAGE="es")
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= per_address.seconds
    assert "Demasiados intentos" in refused.content.decode()
    assert len(mail.outbox) == per_address.count
    # The client's own limit: other addresses, one by one, until it is reached.
    spent = per_address.count + 1
    for number in range(per_client.count - spent):
        assert client.post(RESET, {"email": f"x{number}@example.com"}).status_code == 302
    assert client.post(RESET, {"email": "new@example.com"}).status_code == 429


def test_the_reset_link_comes_from_the_configured_origin_not_the_host_header(client, settings):
    """A spoofed Host (allowed, as behind a proxy that passes it on) or an https claim never
    reaches the mail: the link starts with SIESTA_SITE_URL."""
    from django.core import mail

    from social.services.preferences import preferences_update

    settings.SIESTA_SITE_URL = "http://siesta.example:9100"
    settings.ALLOWED_HOSTS = ["*"]
    ana = UserFactory(username="ana", email="ana@example.com")
    preferences_update(user=ana, email_confirmed="ana@example.com")
    posted = client.post(
        RESET,
        {"email": "ana@example.com"},
        headers={"Host": "127.0.0.1:6666", "X-Forwarded-Host": "evil.example"},
        secure=True,
    )
    assert posted.status_code == 302
    [sent] = mail.outbox
    assert "http://siesta.example:9100/accounts/reset/" in sent.body
    assert "6666" not in sent.body + sent.subject
    assert "evil.example" not in sent.body + sent.subject
    assert "https://" not in sent.body

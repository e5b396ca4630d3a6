"""The account pages: registration, sign-in and out, password change (Django's forms)."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tests.factories import PASSWORD

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

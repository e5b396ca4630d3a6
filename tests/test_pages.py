import pytest
from django.contrib.auth import get_user_model
from django.contrib.staticfiles import finders
from django.urls import reverse

from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("name", ["home", "rules", "login", "register", "api-docs", "schema"])
def test_public_pages_load(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 200


def test_home_links_to_rules_and_login(client):
    content = client.get(reverse("home")).content.decode()
    assert reverse("rules") in content
    assert reverse("login") in content
    assert reverse("register") in content


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


def test_language_switch(client):
    response = client.post(reverse("set_language"), {"language": "es", "next": reverse("home")})
    assert response.status_code == 302
    assert '<html lang="es">' in client.get(reverse("home")).content.decode()


def test_site_stylesheet_is_found():
    assert finders.find("css/site.css")


async def test_asgi_application_serves_home():
    from channels.testing import HttpCommunicator

    from siesta_site.asgi import application

    communicator = HttpCommunicator(application, "GET", "/", headers=[(b"host", b"testserver")])
    response = await communicator.get_response()
    assert response["status"] == 200
    assert "☀ Siesta" in response["body"].decode()

import pytest
from django.contrib.staticfiles import finders
from django.urls import reverse

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

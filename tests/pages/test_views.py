"""The pages app's views (the rules page: test_rules_page.py)."""

from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_favicon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response.url.endswith("img/favicon.svg")


@pytest.mark.parametrize(("name", "path"), [("home", "/"), ("rules", "/rules/")])
def test_urls_keep_their_names_and_paths(client, name, path):
    assert reverse(name) == path
    assert client.get(path).status_code == 200


def test_rules_page_refuses_posts(client):
    assert client.post(reverse("rules")).status_code == 405

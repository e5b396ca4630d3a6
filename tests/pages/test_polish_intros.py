"""Intros that name everything they introduce: the tournaments page names the arena beside round
robin and Swiss, in every language."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation

pytestmark = pytest.mark.django_db

ARENA = {"en": "arena", "es": "arena", "de": "Arena", "it": "arena", "fr": "arène"}
SWISS = {"en": "Swiss", "es": "suizo", "de": "Schweizer", "it": "svizzero", "fr": "suisse"}


@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_the_tournaments_intro_names_the_three_formats(client, language):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    html = client.get(reverse("tournaments")).content.decode()
    lead = html.split('<p class="lead">', 1)[1].split("</p>", 1)[0]
    assert ARENA[language] in lead, lead
    assert SWISS[language] in lead, lead
    if language != "en":
        with translation.override("en"):
            assert "Round robin" not in lead

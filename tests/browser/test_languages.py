"""The translated site in Chromium at 1366×900: the header fits on one line in every language,
and the glossary's words are the ones on screen (screenshots in screenshots/languages/)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

LANGUAGES = ["es", "de", "it", "fr"]
FINISHED_HEADING = {"es": "Terminados", "de": "Beendet", "it": "Terminati", "fr": "Terminés"}


def _header_rows(page) -> int:
    """How many distinct lines the header's links and account items sit on."""
    tops = page.eval_on_selector_all(
        ".nav-links a, .nav-account > a, .nav-account button, .nav-account select",
        "items => items.filter(i => i.offsetParent)"
        ".map(i => Math.round(i.getBoundingClientRect().top))",
    )
    rows: list[int] = []
    for top in sorted(tops):
        if not rows or top - rows[-1] > 12:
            rows.append(top)
    return len(rows)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_signed_in_header_fits_on_one_line(pages, player, screenshot, language):
    page = pages.open(player, language=language)
    page.goto(reverse("tournaments"))
    expect(page.locator("html")).to_have_attribute("lang", language)
    expect(page.locator("#finished-heading")).to_have_text(FINISHED_HEADING[language])
    screenshot(page, f"languages/tournaments-{language}")
    assert _header_rows(page) == 1


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_rules_and_puzzles_pages_render(pages, player, screenshot, language):
    page = pages.open(player, language=language)
    page.goto(reverse("rules"))
    screenshot(page, f"languages/rules-{language}")
    page.goto(reverse("puzzles"))
    screenshot(page, f"languages/puzzles-{language}")
    assert _header_rows(page) == 1


def test_french_rules_keep_the_colon_with_its_word(pages, player):
    page = pages.open(player, language="fr")
    page.goto(reverse("rules"))
    text = page.locator("main").inner_text()
    assert "\u00a0:" in text
    assert not any(line.lstrip().startswith(":") for line in text.splitlines())

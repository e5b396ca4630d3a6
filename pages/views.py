"""The pages that are not game play: home and the rules with their worked examples."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.utils import timezone
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from learn.services import daily_puzzle_for
from pages import selectors
from pages.worked_examples import worked_examples
from tournaments.views import client_strings as tournament_strings


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever the pages' ``<link rel="icon">`` says."""
    return redirect(static("img/favicon.svg"), permanent=True)


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """Games to watch, tournaments to join, the leaders, today's puzzle and, for a signed-in
    player, their games waiting for them."""
    return render(
        request,
        "home.html",
        {
            "home": selectors.home_page(viewer=request.user),
            # Chosen once a day and kept (a write the first time): a service, not a selector.
            "daily": daily_puzzle_for(day=timezone.localdate()),
            "strings": tournament_strings(),
        },
    )


@require_GET
def rules(request: HttpRequest) -> HttpResponse:
    """The rules in the active language (English where a language has no rules page), with the
    worked examples played out by the rules engine."""
    language = (get_language() or "en").split("-")[0]
    templates = [f"rules/rules_{language}.html", "rules/rules_en.html"]
    return render(request, templates, {"examples": worked_examples()})


@require_GET
def without_sight(request: HttpRequest) -> HttpResponse:
    """How to play by keyboard and screen reader: the board's keys and the command line's
    commands (docs/accessibility.md, which is not served), linked from the game page."""
    return render(request, "rules/without_sight.html")

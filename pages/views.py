"""The pages that are not game play: home and the rules with their worked examples."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from pages.worked_examples import worked_examples


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever the pages' ``<link rel="icon">`` says."""
    return redirect(static("img/favicon.svg"), permanent=True)


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")


@require_GET
def rules(request: HttpRequest) -> HttpResponse:
    """The rules in the active language (English where a language has no rules page), with the
    worked examples played out by the rules engine."""
    language = (get_language() or "en").split("-")[0]
    templates = [f"rules/rules_{language}.html", "rules/rules_en.html"]
    return render(request, templates, {"examples": worked_examples()})

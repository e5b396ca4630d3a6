"""What every page needs of the social app: the unread count in the header, and the words of
``static/js/together.js``."""

from __future__ import annotations

from functools import cache
from typing import Any

from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from games.models import TURN_TIME_CHOICES, Game


def together_strings() -> dict[str, Any]:
    """Placeholders are ``%(name)s``, filled in by the scripts."""
    return {
        "waiting": _("Looking for opponents… %(seconds)s s"),
        "matched": _("Game found! Opening game %(game)s…"),
        "expired": _("Nobody was found in time. Try again?"),
        "cancelled": _("You left the queue."),
        "cancel": _("Cancel"),
        "challenge_from": _("%(name)s challenges you: %(settings)s"),
        "challenge_declined": _("%(name)s declined your challenge."),
        "challenge_sent": _("Challenge sent to %(name)s."),
        "accept": _("Accept"),
        "decline": _("Decline"),
        "online": _("online"),
        "online_count": _("%(count)s online"),
        "rated": _("rated"),
        "casual": _("casual"),
        "error": _("Something went wrong. Please try again."),
        "next_game": _("Round %(round)s: your game against %(names)s"),
        "next_arena_game": _("Your game against %(names)s"),
        "next_game_clock": _("first turn: %(time)s left"),
        "next_game_opening": _("opening in %(seconds)s s"),
        "go_to_game": _("Go to your game"),
        "stay": _("Stay here"),
        # A challenge's settings: the variant's name and the turn time in words.
        "variants": dict(Game.Variant.choices),
        "turn_times": {str(seconds): label for seconds, label in TURN_TIME_CHOICES},
        "minutes": _("%(count)s min"),
        "seconds": _("%(count)s s"),
        "days": _("%(count)s d"),
    }


def social(request: HttpRequest) -> dict[str, Any]:
    context: dict[str, Any] = {"together_strings": together_strings}
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        from social.services.notices import unread_count
        from tournaments.selectors import tournament_game_of

        # Read when a template first asks, once per request however often the page names them.
        context["unread_notifications"] = cache(lambda: unread_count(user.pk))
        # The banner that leads a player to their tournament game survives reloads.
        context["next_tournament_game"] = cache(lambda: tournament_game_of(user.pk))
    return context

"""Template hooks of the social app, so the games' templates need one line each."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import gettext as _

from games.models import Game, Seat
from social import presence
from social.models import ChatMessage
from social.services.chat import CHAT_PRESETS
from social.services.rematch import rematch_status
from tournaments import selectors as tournament_selectors

register = template.Library()

TOURNAMENT_ROWS = 5
"""Rows of the standings a finished tournament game shows."""


def _chat_strings() -> dict[str, str]:
    return {
        "players": _("Players' chat"),
        "spectators": _("Spectators' chat"),
        "after": _("Chat"),
        "tournament": _("Tournament chat"),
        "mute": _("Mute"),
        "unmute": _("Unmute"),
        "muted": _("The chat is muted."),
        "empty": _("No message yet."),
        "rematch_offer": _("%(names)s would like a rematch."),
        "rematch_waiting": _("Waiting for %(names)s to accept the rematch."),
        "rematch_ready": _("The rematch starts: game %(game)s."),
        "new_game_waiting": _("Looking for a new game in the lobby…"),
        "error": _("Something went wrong. Please try again."),
    }


def _chat_common(user: Any) -> dict[str, Any]:
    return {
        "user": user,
        "presets": [(key, str(label)) for key, label in CHAT_PRESETS.items()],
        "limit": ChatMessage.MAX_LENGTH,
        "strings": _chat_strings(),
    }


@register.inclusion_tag("social/_chat.html", takes_context=True)
def chat_panel(context: dict[str, Any], game: Game) -> dict[str, Any]:
    """The chat of a game page (live or replay)."""
    return {
        **_chat_common(context["user"]),
        "game": game,
        "ws_path": f"/ws/games/{game.pk}/",
        # "New game" lets bots fill in after 30 s when bots played this one.
        "with_bots": Seat.objects.filter(game=game).exclude(bot_level="").exists(),
    }


@register.inclusion_tag("social/_chat.html", takes_context=True)
def tournament_chat_panel(context: dict[str, Any], tournament_id: int) -> dict[str, Any]:
    """The chat of a tournament's page, on the tournament's socket (the same script)."""
    return {**_chat_common(context["user"]), "ws_path": f"/ws/tournaments/{tournament_id}/"}


@register.inclusion_tag("social/_rematch.html", takes_context=True)
def rematch_buttons(context: dict[str, Any], game: Game) -> dict[str, Any]:
    """Rematch and New game on a finished game's result, for the people who played it; a
    tournament game's result shows "Back to the tournament" and the standings' top rows."""
    user = context["user"]
    seated = (
        user.is_authenticated
        and game.status == Game.Status.FINISHED
        and Seat.objects.filter(game=game, user_id=user.pk, bot_level="").exists()
    )
    tournament_id = tournament_selectors.tournament_id_of_game(game.pk)
    if tournament_id is not None and game.status == Game.Status.FINISHED:
        # A tournament game leads back to its tournament, not to a rematch; an invitation-only
        # one shows nothing of the tournament to whoever may not see it (nor a rematch).
        tournament = tournament_selectors.tournament_get(tournament_id)
        if not tournament_selectors.can_see(tournament, user):
            return {"game": game, "seated": False, "status": None, "user": user}
        state = tournament_selectors.tournament_state(tournament)
        return {
            "game": game,
            "user": user,
            "tournament": state,
            "tournament_name": tournament.display_name,
            "standings": state["standings"][:TOURNAMENT_ROWS],
        }
    status = rematch_status(game_id=game.pk) if seated else None
    return {"game": game, "seated": seated, "status": status, "user": user}


@register.inclusion_tag("social/_challenge.html", takes_context=True)
def challenge_box(context: dict[str, Any], player: Any) -> dict[str, Any]:
    """The Challenge button and settings on someone else's profile."""
    from social.forms import ChallengeForm

    user = context["user"]
    return {
        "player": player,
        "user": user,
        "show": user.is_authenticated and user.pk != player.pk,
        "form": ChallengeForm(),
        "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("social/_bot_challenge.html", takes_context=True)
def bot_challenge_box(context: dict[str, Any]) -> dict[str, Any]:
    """ "Challenge a bot" (the expert first) beside the bots' performances on the leaderboard:
    the game starts at once."""
    from social.forms import BotChallengeForm

    return {
        "user": context["user"],
        "form": BotChallengeForm(),
        "csrf_token": context.get("csrf_token"),
    }


@register.simple_tag
def online_count() -> int:
    return presence.online_count()

"""Template tags of the tournaments app: a player's tournaments on their profile (the profile
page belongs to ratings, which does not import tournaments; the template asks for them)."""

from __future__ import annotations

from typing import Any

from django import template
from django.contrib.auth.models import User

from tournaments.selectors import tournaments_of_user

register = template.Library()

PROFILE_LIMIT = 20


@register.inclusion_tag("tournaments/_profile.html", takes_context=True)
def player_tournaments(context: dict[str, Any], player: User) -> dict[str, Any]:
    """``player``'s latest tournaments with their final place once over, those the reader may
    see (an invitation-only one only to those in it)."""
    viewer = context.get("user")
    return {"entries": list(tournaments_of_user(player, viewer=viewer)[:PROFILE_LIMIT])}

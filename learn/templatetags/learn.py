"""``{% daily_puzzle_card %}``: the daily puzzle on the home page (a template of the games app,
which so stays free of any import of learn)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils import timezone

from learn.services import daily_puzzle_for

register = template.Library()


@register.inclusion_tag("learn/_daily_card.html")
def daily_puzzle_card() -> dict[str, Any]:
    return {"daily": daily_puzzle_for(day=timezone.localdate())}

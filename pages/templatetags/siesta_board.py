"""``{% board_svg %}``: a Siesta board (RULES.md board text) drawn as inline, accessible SVG by
:func:`games.engine.svg.board`, its accessible name in the reader's language.

Usage::

    {% load siesta_board %}
    {% board_svg rows %}
    {% board_svg rows highlight="F5 G5" window="D3:H7" size=28 title=_("Before") %}
    {% board_svg rows crop=True marks="A5" %}

The arguments are those of :func:`games.engine.svg.board` (see :mod:`games.engine.svg`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine import svg

register = template.Library()


def describe_board(summary: svg.Summary) -> str:
    """The board in words, for screen readers: the window, then each kind of piece."""
    sentences = [
        _(
            "Siesta board, columns %(first_column)s to %(last_column)s, "
            "rows %(first_row)s to %(last_row)s."
        )
        % {
            "first_column": summary.first_column,
            "last_column": summary.last_column,
            "first_row": summary.first_row,
            "last_row": summary.last_row,
        }
    ]
    if suns := summary.suns:
        sentences.append(
            ngettext("Sun: %(cells)s.", "Suns: %(cells)s.", len(suns)) % {"cells": ", ".join(suns)}
        )
    if shadows := summary.shadows:
        sentences.append(
            ngettext("Shadow: %(cells)s.", "Shadows: %(cells)s.", len(shadows))
            % {"cells": ", ".join(shadows)}
        )
    for seat, roofs in summary.roofs:
        sentences.append(
            ngettext(
                "Roof of player %(seat)s: %(cells)s.",
                "Roofs of player %(seat)s: %(cells)s.",
                len(roofs),
            )
            % {"seat": seat, "cells": ", ".join(roofs)}
        )
    if summary.outlined:
        sentences.append(_("Outlined: %(cells)s.") % {"cells": ", ".join(summary.outlined)})
    if summary.marked:
        sentences.append(_("Marked illegal: %(cells)s.") % {"cells": ", ".join(summary.marked)})
    return " ".join(sentences)


@register.simple_tag
def board_svg(
    rows: Sequence[str], highlight: str | Iterable[str] | None = None, **options: Any
) -> SafeString:
    """Draw a board (the keyword options are those of :func:`games.engine.svg.board`)."""
    # Safe: the engine builds the markup from escaped text and numbers only.
    return mark_safe(svg.board(rows, highlight=highlight, describe=describe_board, **options))

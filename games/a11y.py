"""The words the game page says without sight (static/js/a11y/game.js, docs/accessibility.md):
the live region's turns and results, the cells' owners, the command line's answers.

Placeholders are ``%(name)s``, filled in by the script; counted texts carry both plural forms.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.plurals import counted_forms


def a11y_strings() -> dict[str, Any]:
    return {
        "seat_name": _("%(name)s (player %(seat)s)"),
        "cell_roof": _("%(cell)s: roof of %(name)s"),
        # A cell's words (cell_roof or the board's own) and the siestas it is part of.
        "in_siestas": counted_forms(
            lambda n: ngettext("%(words)s, %(count)s siesta", "%(words)s, %(count)s siestas", n)
        ),
        "turn_played": counted_forms(
            lambda n: ngettext(
                "%(name)s played %(move)s and scored %(points)s point.",
                "%(name)s played %(move)s and scored %(points)s points.",
                n,
            )
        ),
        "turn_gave": counted_forms(
            lambda n: ngettext(
                "%(name)s got %(points)s point from it.",
                "%(name)s got %(points)s points from it.",
                n,
            )
        ),
        "seat_score": counted_forms(
            lambda n: ngettext("%(name)s: %(points)s point.", "%(name)s: %(points)s points.", n)
        ),
        "your_turn": _("Your turn."),
        "their_turn": _("%(name)s is to move."),
        "time_left": _("Time left: %(time)s."),
        "minutes": counted_forms(lambda n: ngettext("%(count)s minute", "%(count)s minutes", n)),
        "seconds": counted_forms(lambda n: ngettext("%(count)s second", "%(count)s seconds", n)),
        "no_turns": _("No turn has been played yet."),
        "supply": _("In the supply: %(suns)s suns, %(shadows)s shadows."),
        "roofs_left": _("%(name)s has %(count)s roofs left."),
        "empty_run": _("%(from)s to %(to)s: empty"),
        "bad_line": _("Name a row 1 to 12, a column A to L or a cell such as F5."),
        "piece_chosen": _("Piece: %(piece)s."),
        "confirming": _("Confirming the turn."),
        "undone": _("Last placement taken back."),
        "cleared": _("Turn cleared."),
        "checking_move": _("Checking %(move)s."),
        "unknown": _("Unknown command. Type help for the list."),
        "help": _(
            "Type a turn such as SF5 RF6 HF7, then confirm. Undo and clear take placements back."
            " Questions: score, turn, time, last (or last 5), pieces, row 5, column F, cell F5."
        ),
        # The page language's words for each command, besides the English one ("|" between).
        "commands": {
            "help": _("help"),
            "score": _("scores|points"),
            "turn": _("whose"),
            "time": _("clock"),
            "last": _("turns|moves"),
            "pieces": _("supply|left"),
            "row": _("line"),
            "column": _("col"),
            "cell": _("square"),
            "confirm": _("ok|send"),
            "undo": _("back"),
            "clear": _("reset"),
        },
    }

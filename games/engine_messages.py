"""The engine's refusals in the reader's language.

The engine raises errors with English text (what its command line prints), a ``code`` and the
``params`` of that text (:data:`games.engine.errors.CODES`). The site says the same in the active
language and in its own words ("player", not "seat"); an error without a known code keeps the
engine's text.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.engine import EngineError


def _templates() -> dict[str, str]:
    # Built per call: gettext must run in the language active at the time.
    return {
        "bad_cell": _("'%(text)s' is not a cell: write a column A–L and a row 1–12, like F5"),
        "off_board": _("%(cell)s is off the board: columns are A–L and rows 1–12"),
        "bad_piece": _("'%(letter)s' is not a piece: use S (sun), R (roof) or H (shadow)"),
        "bad_placement": _(
            "'%(text)s' is not a placement: write a piece letter and a cell, like SF5"
        ),
        "move_not_text": _("Send a move like SF5 RF6 HF7."),
        "empty_move": _("An empty move: a turn places one to three pieces, like SF5 RF6 HF7"),
        "occupied": _("%(cell)s is already occupied"),
        "not_adjacent": _("%(cell)s is not next to any piece on the board"),
        "no_suns_left": _("No suns are left for %(cell)s"),
        "sun_next_to_shadow": _("A sun at %(cell)s would be next to a shadow"),
        "no_shadows_left": _("No shadows are left for %(cell)s"),
        "shadow_next_to_sun": _("A shadow at %(cell)s would be next to a sun"),
        "no_roofs_left": _("Player %(seat)s has no roofs left for %(cell)s"),
        "shadow_not_in_siesta": _("A shadow at %(cell)s would not be part of any siesta"),
        "after_end.last_sun": _(
            "The last sun ended the game: no placement may follow it "
            "(%(placement)s is one too many)"
        ),
        "after_end.last_shadow": _(
            "The last shadow ended the game: no placement may follow it "
            "(%(placement)s is one too many)"
        ),
        "after_end.last_roof": _(
            "A last roof ended the game: no placement may follow it (%(placement)s is one too many)"
        ),
        "no_point": _(
            "%(move)s scores no point for player %(seat)s: every turn must score at least one"
        ),
        "game_over": _("The game is over."),
    }


def engine_error_message(exc: EngineError) -> str:
    """``exc`` in the active language, naming the same cell, piece or count."""
    params = dict(exc.params)
    code = exc.code
    if code == "too_many_placements":
        count = int(params.get("count", 4))
        return _("A turn places at most three pieces (%(count)s given)") % {"count": count}
    if code == "turn_too_short":
        count = int(params.get("count", 0))
        return _("A turn places exactly three pieces (%(count)s given) unless it ends the game") % {
            "count": count
        }
    if code == "after_end":
        code = f"after_end.{params.get('ending', '')}"
    template = _templates().get(code)
    if template is None:
        return str(exc)
    try:
        return template % params
    except (KeyError, TypeError, ValueError):
        return str(exc)

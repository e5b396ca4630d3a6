"""Counted texts handed to the page scripts, which pick the form with ``Intl.PluralRules``."""

from __future__ import annotations

from collections.abc import Callable


def counted_forms(text: Callable[[int], str]) -> dict[str, str]:
    """Both forms of a counted text: the scripts' ``plural`` picks one with Intl.PluralRules
    (n = 2 gives gettext's "other" form in every language of the site)."""
    return {"one": text(1), "other": text(2)}

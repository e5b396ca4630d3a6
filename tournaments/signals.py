"""What the tournaments app announces to the apps that depend on it (social)."""

from django.dispatch import Signal

round_started = Signal()
"""Sent after the commit that pairs a round, with ``tournament_id``, ``name`` (as stored),
``name_key`` (of a scheduled tournament's translated name, or ""), ``round`` (its number) and
``seats``: ``[(user_id, game_id or None for a bye)]``. Sent with ``send_robust``: a
failing receiver is logged and never fails the pairing."""

player_withdrawn = Signal()
"""Sent after the commit that withdraws a player for missed games (``FORFEITS_TO_WITHDRAW``
forfeits in a row), with ``tournament_id``, ``name``, ``user_id``, ``round`` (the current round's
number, or the arena's wave) and ``can_rejoin``. Sent with ``send_robust``."""

"""What the games app announces to the apps that depend on it (ratings, tournaments)."""

from django.dispatch import Signal

game_finished = Signal()
"""Sent once per game, inside the transaction that finishes it, with ``outcome``: a
:class:`games.selectors.FinishedGame`. Receivers run in that transaction: what they write commits
or rolls back with the end of the game."""

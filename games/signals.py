"""What the games app announces to the apps that depend on it (ratings, tournaments, social)."""

from django.dispatch import Signal

game_finished = Signal()
"""Sent once per game, inside the transaction that finishes it, with ``outcome``: a
:class:`games.selectors.FinishedGame`. Receivers run in that transaction: what they write commits
or rolls back with the end of the game."""

game_changed = Signal()
"""Sent after the commit of every change to a game (created, joined, started, a turn, a hint, an
end...), with ``state``: the public game state of API.md (``games.state.GameState``). Sent with
``send_robust``: a failing receiver is logged and never fails the request. Other apps
(``social``) use it for notices."""

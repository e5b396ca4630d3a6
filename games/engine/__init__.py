"""The Siesta rules engine: pure standard-library Python, shared by the site, the bots and the
analysis. Nothing here imports Django.

The package exports what a caller needs to play a game, as ``chess`` does for python-chess: the
position, the turn and its parts, the cells' names, the outcome and the refusals. The rest is
imported from its module: search (``games.engine.search``: ``best_turn``, ``legal_turns``, ...),
study (``games.engine.study``), game records (``games.engine.record``), comparing outcomes
(``games.engine.outcome``), the board codec (``games.engine.notation``) and the SVG board
(``games.engine.svg``).

>>> from games.engine import Position
>>> from games.engine.search import best_turn
>>> pos = Position(players=2)
>>> pos.play("SA1 RB1 HC1")
(1, 0)
>>> best_turn(pos).points
2
"""

from games.engine.errors import (
    EngineError,
    GameOverError,
    IllegalMoveError,
    NotationError,
    SetupError,
)
from games.engine.notation import Cell, Piece, Placement, Turn, cell_name, parse_cell
from games.engine.outcome import GameOutcome, SeatResult
from games.engine.position import PlayedTurn, Position, Termination

__all__ = [
    "Cell",
    "EngineError",
    "GameOutcome",
    "GameOverError",
    "IllegalMoveError",
    "NotationError",
    "Piece",
    "Placement",
    "PlayedTurn",
    "Position",
    "SeatResult",
    "SetupError",
    "Termination",
    "Turn",
    "cell_name",
    "parse_cell",
]

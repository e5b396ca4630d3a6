"""The Siesta rules engine: pure standard-library Python, shared by the site, the bots and the
analysis. Nothing here imports Django.

>>> from games.engine import Position, best_turn
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
    RecordError,
)
from games.engine.notation import Cell, Piece, Placement, Turn, cell_name, parse_cell
from games.engine.outcome import GameOutcome, SeatResult, Verdict, compare, verdict_of
from games.engine.position import PlayedTurn, Position, Termination
from games.engine.record import GameRecord, Replay, replay, replay_report
from games.engine.search import (
    BestTurn,
    best_turn,
    best_turns,
    has_scoring_turn,
    legal_turns,
    random_turn,
    scoring_turns,
)

__all__ = [
    "BestTurn",
    "Cell",
    "EngineError",
    "GameOutcome",
    "GameOverError",
    "GameRecord",
    "IllegalMoveError",
    "NotationError",
    "Piece",
    "Placement",
    "PlayedTurn",
    "Position",
    "RecordError",
    "Replay",
    "SeatResult",
    "Termination",
    "Turn",
    "Verdict",
    "best_turn",
    "best_turns",
    "cell_name",
    "compare",
    "has_scoring_turn",
    "legal_turns",
    "parse_cell",
    "random_turn",
    "replay",
    "replay_report",
    "scoring_turns",
    "verdict_of",
]

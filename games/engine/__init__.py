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
    SetupError,
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
from games.engine.study import (
    Reach,
    TurnFeatures,
    check_setup,
    plain_worth,
    position_for,
    single_best,
    solution_cores,
    top_turns,
    turn_features,
    turn_reach,
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
    "Reach",
    "RecordError",
    "Replay",
    "SeatResult",
    "SetupError",
    "Termination",
    "Turn",
    "TurnFeatures",
    "Verdict",
    "best_turn",
    "best_turns",
    "cell_name",
    "check_setup",
    "compare",
    "has_scoring_turn",
    "legal_turns",
    "parse_cell",
    "plain_worth",
    "position_for",
    "random_turn",
    "replay",
    "replay_report",
    "scoring_turns",
    "single_best",
    "solution_cores",
    "top_turns",
    "turn_features",
    "turn_reach",
    "verdict_of",
]

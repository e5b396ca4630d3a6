"""Many submissions for the same ply at the same moment, over REST and WebSockets mixed, round
after round, against a live site: exactly one is applied per round, the plies stay gapless, and
nothing answers 5xx or drops a socket."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from games.engine import Position
from games.engine.search import best_turn, scoring_turns
from tests.reliability.live import Rest, Socket


@dataclass
class Outcome:
    via: str  # "rest" or "ws"
    move: str
    applied: bool
    answer: Any  # the HTTP status, or the WebSocket frame


@dataclass
class RaceReport:
    rounds: int = 0
    submissions: int = 0
    applied: int = 0
    refusals: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    games: list[int] = field(default_factory=list)


class Table:
    """A two-player game on the live site, with a REST client each and ``sockets`` WebSockets
    each, all signed in."""

    def __init__(self, port: int, tokens: list[str], sockets: int) -> None:
        self.port = port
        self.tokens = tokens
        self.rest = Rest(port)
        status, game = self.rest.request("POST", "/api/games/", {"players": 2}, token=tokens[0])
        assert status == 201, game
        self.game_id = game["id"]
        status, game = self.rest.request(
            "POST", f"/api/games/{self.game_id}/join/", token=tokens[1]
        )
        assert status == 200, game
        assert game["status"] == "active", game
        self.position = Position(players=2)
        self.sockets = {
            seat: [Socket(port, self.game_id, tokens[seat - 1]) for _ in range(sockets)]
            for seat in (1, 2)
        }

    def close(self) -> None:
        for sockets in self.sockets.values():
            for socket in sockets:
                socket.close()
        self.rest.close()


def candidate_moves(position: Position, rng: random.Random, count: int = 6) -> list[str]:
    """Several different legal scoring turns for the player to move (one for the opening)."""
    moves = {str(turn) for _points, turn in scoring_turns(position, rng)}
    if not moves:
        best = best_turn(position)
        assert best.turn is not None
        moves = {str(best.turn)}
    return sorted(moves)[:count]


def race(port: int, tokens: list[str], *, submissions: int, rounds: int) -> RaceReport:
    """``rounds`` rounds of ``submissions`` submissions for the current ply, half over REST and
    half over WebSockets, all from the player to move, released together. Asserts as it goes."""
    rng = random.Random(9)
    over_rest = submissions // 2
    over_ws = submissions - over_rest
    rest_clients = [Rest(port) for _ in range(over_rest)]
    table = Table(port, tokens, over_ws)
    report = RaceReport(games=[table.game_id])
    started = time.monotonic()
    pool = ThreadPoolExecutor(max_workers=submissions)
    try:
        for _ in range(rounds):
            if table.position.over:
                table.close()
                table = Table(port, tokens, over_ws)
                report.games.append(table.game_id)
            outcomes = _one_round(table, rest_clients, pool, rng)
            applied = [o for o in outcomes if o.applied]
            assert len(applied) == 1, outcomes
            for outcome in outcomes:
                if outcome.applied:
                    continue
                if outcome.via == "rest":
                    assert outcome.answer == 409, outcome  # a stale ply: never a 5xx
                    report.refusals["rest 409"] += 1
                else:
                    assert outcome.answer["type"] == "error", outcome
                    assert "ply" in outcome.answer, outcome  # a stale ply
                    report.refusals["ws stale ply"] += 1
            table.position.play(applied[0].move)
            state = table.rest.get(f"/api/games/{table.game_id}/")
            assert state["ply"] == table.position.ply, state["ply"]
            report.rounds += 1
            report.submissions += len(outcomes)
            report.applied += 1
    finally:
        pool.shutdown()
        table.close()
        for client in rest_clients:
            client.close()
    report.seconds = time.monotonic() - started
    # Every game: plies 1..n without a gap, each once, and the record replays.
    for game_id in report.games:
        state = Rest(port).get(f"/api/games/{game_id}/")
        assert [t["ply"] for t in state["turns"]] == list(range(1, state["ply"] + 1))
    return report


def _one_round(
    table: Table, rest_clients: list[Rest], pool: ThreadPoolExecutor, rng: random.Random
) -> list[Outcome]:
    position = table.position
    mover = position.to_move
    assert mover is not None
    ply = position.ply
    moves = candidate_moves(position, rng)
    token = table.tokens[mover - 1]
    jobs: list[tuple[str, Any]] = [("rest", c) for c in rest_clients] + [
        ("ws", s) for s in table.sockets[mover]
    ]
    start = threading.Barrier(len(jobs))

    def submit(index: int, via: str, client: Any) -> Outcome:
        move = moves[index % len(moves)]
        start.wait(timeout=30)
        if via == "rest":
            status, _body = client.request(
                "POST",
                f"/api/games/{table.game_id}/moves/",
                {"move": move, "ply": ply},
                token=token,
            )
            assert status < 500, (status, _body)
            return Outcome(via, move, status == 201, status)
        frame = client.request({"type": "move", "move": move, "ply": ply})
        return Outcome(via, move, frame["type"] == "ack", frame)

    futures = [pool.submit(submit, i, via, client) for i, (via, client) in enumerate(jobs)]
    return [future.result(timeout=120) for future in futures]

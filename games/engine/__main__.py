"""Command line of the rules engine (RULES.md, "The engine's command line").

python -m games.engine replay RECORD.json|-
python -m games.engine best RECORD.json|-
python -m games.engine bench [--games N] [--scoring-games N]
python -m games.engine codec-js   (the board codec for the page scripts: static/js/codec.js)
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from games.engine.errors import EngineError
from games.engine.record import GameRecord, replay, replay_report
from games.engine.search import best_turn


def _read(path: str) -> bytes:
    """The raw bytes: decoding is the record parser's job, so that bytes that are not UTF-8 are
    bad input (an error object) whatever the locale's stdin encoding."""
    try:
        if path == "-":
            return sys.stdin.buffer.read()
        with open(path, "rb") as file:
            return file.read()
    except OSError as exc:
        raise SystemExit(f"cannot read {path}: {exc.strerror}") from None


def _record_or_error(raw: bytes) -> GameRecord | dict[str, Any]:
    try:
        return GameRecord.from_json(raw)
    except EngineError as exc:
        return {"error": {"turn": None, "message": str(exc)}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m games.engine", description=__doc__.split("\n")[1]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (("replay", "replay a game record"), ("best", "best turn after a record")):
        command = sub.add_parser(name, help=text)
        command.add_argument("record", help="a game record file, or - for standard input")
    bench = sub.add_parser("bench", help="time the exact search and whole games")
    bench.add_argument("--games", type=int, default=5, help="best-vs-best games to time")
    bench.add_argument("--cases", default=None, help="best.json to time (default: ../shared)")
    bench.add_argument(
        "--scoring-games",
        type=int,
        default=0,
        help="only time has_scoring_turn over every position of this many recorded games",
    )
    sub.add_parser("codec-js", help="print the board codec as an ES module (static/js/codec.js)")
    args = parser.parse_args(argv)

    if args.command == "codec-js":
        from games.engine.codec_js import codec_module

        sys.stdout.write(codec_module())
        return 0

    if args.command == "bench":
        from games.engine.bench import run, time_has_scoring_turn

        if args.scoring_games:
            time_has_scoring_turn(args.scoring_games)
        else:
            run(games=args.games, cases_path=args.cases)
        return 0

    record = _record_or_error(_read(args.record))
    if isinstance(record, dict):
        print(json.dumps(record))
        return 0
    if args.command == "replay":
        print(json.dumps(replay_report(record)))
        return 0
    result = replay(record)
    best = best_turn(result.position)
    answer: dict[str, Any] = {"move": str(best.turn) if best.turn else None, "points": best.points}
    if result.error is not None:  # the answer is for the position before the illegal move
        answer["error"] = {"turn": result.error_turn, "message": str(result.error)}
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Game records: reading and validating them, writing them back, replaying them, and the
command line that reads them (RULES.md, "The engine's command line")."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import EngineError, IllegalMoveError, Termination
from games.engine.errors import RecordError
from games.engine.record import GameRecord, replay, replay_report

REPO_ROOT = Path(__file__).resolve().parents[2]

GOOD_RECORD = {"players": 2, "variant": "standard", "moves": ["SA1 RB1 HC1", "RC2 SC3 HD1"]}


# -- reading records ----------------------------------------------------------------------------


def test_defaults():
    record = GameRecord.from_json({})
    assert record == GameRecord(players=2, variant="standard", setup=None, moves=[])


def test_reads_a_json_string_and_bytes():
    text = json.dumps(GOOD_RECORD)
    assert GameRecord.from_json(text) == GameRecord.from_json(GOOD_RECORD)
    assert GameRecord.from_json(text.encode()) == GameRecord.from_json(GOOD_RECORD)


def test_extra_keys_and_teams_are_accepted_and_ignored_by_the_replay():
    data = {**GOOD_RECORD, "players": 4, "teams": [[1, 3], [2, 4]], "clock": {"x": 1}}
    record = GameRecord.from_json(data)
    assert record.teams == [[1, 3], [2, 4]]
    assert replay_report(record)["scores"] == [2, 1, 0, 0]


MALFORMED = {
    "a number": 42,
    "a list": [GOOD_RECORD],
    "null": None,
    "a JSON string that is not an object": '"a record"',
    "invalid JSON": "{players: 2",
    "empty text": "",
    "players 5": {"players": 5},
    "players 1": {"players": 1},
    "players as text": {"players": "2"},
    "players true": {"players": True},
    "variant x": {"variant": "x"},
    "variant null": {"variant": None},
    "moves a string": {"moves": "SA1 RB1 HC1"},
    "moves of numbers": {"moves": [1, 2]},
    "moves null": {"moves": None},
    "hints a string": {"hints": "0"},
    "hints of booleans": {"hints": [True]},
    "setup a list": {"setup": ["S1#"]},
    "setup board a string": {"setup": {"board": "S1#"}},
    "setup board bad character": {"setup": {"board": ["S1X"]}},
    "setup board too many rows": {"setup": {"board": ["."] * 13}},
    "setup board too many suns": {"setup": {"board": ["S" * 12] * 3}},
    "setup to_move 3": {"setup": {"to_move": 3}},
    "setup to_move text": {"setup": {"to_move": "1"}},
    "setup to_move true": {"setup": {"to_move": True}},
    "setup supply a list": {"setup": {"supply": [25, 75]}},
    "setup supply negative": {"setup": {"supply": {"suns": -1}}},
    "setup supply roofs a number": {"setup": {"supply": {"roofs": 15}}},
    "setup supply roofs too short": {"setup": {"supply": {"roofs": [15]}}},
    "setup scores too long": {"setup": {"scores": [0, 0, 0]}},
    "setup scores of text": {"setup": {"scores": ["0", "0"]}},
}


@pytest.mark.parametrize("data", list(MALFORMED.values()), ids=list(MALFORMED))
def test_malformed_record_is_a_record_error(data):
    with pytest.raises(RecordError) as caught:
        GameRecord.from_json(data)
    assert isinstance(caught.value, EngineError)
    assert isinstance(caught.value, ValueError)
    assert str(caught.value)


def test_record_error_messages_say_what_is_wrong():
    with pytest.raises(RecordError, match=r"players must be 2, 3 or 4 \(got 5\)"):
        GameRecord.from_json({"players": 5})
    with pytest.raises(RecordError, match="variant must be 'standard' or 'classic'"):
        GameRecord.from_json({"variant": "x"})
    with pytest.raises(RecordError, match="not valid JSON"):
        GameRecord.from_json("{")
    with pytest.raises(RecordError, match="bad setup: C1: 'X' is not a board character"):
        GameRecord.from_json({"setup": {"board": ["S1X"]}})


def test_bytes_that_are_not_utf8_are_a_record_error():
    with pytest.raises(RecordError, match="not valid JSON"):
        GameRecord.from_json(b'{"players": 2, "moves": ["\xff"]}')


def test_absurdly_nested_json_is_a_record_error():
    with pytest.raises(RecordError, match="not valid JSON"):
        GameRecord.from_json("[" * 100_000 + "]" * 100_000)


def test_illegal_moves_are_not_a_record_error():
    # A record may hold an illegal move: the replay reports it (below).
    record = GameRecord.from_json({"moves": ["SA1 RB1 RC1", "nonsense"]})
    assert record.moves == ["SA1 RB1 RC1", "nonsense"]


# -- writing records ----------------------------------------------------------------------------


FULL_RECORD = {
    "players": 3,
    "variant": "classic",
    "setup": {
        "board": ["S1##", "", "", "..2"],
        "to_move": 2,
        "supply": {"suns": 20, "shadows": 70, "roofs": [10, 11, 12]},
        "scores": [5, 1, 0],
    },
    "moves": ["HE1 RC2 SC3"],
    "hints": [0],
    "teams": None,
}


@pytest.mark.parametrize("data", [GOOD_RECORD, FULL_RECORD, {}], ids=["plain", "full", "empty"])
def test_to_json_round_trips(data):
    record = GameRecord.from_json(data)
    written = record.to_json()
    assert GameRecord.from_json(written) == record
    assert GameRecord.from_json(json.dumps(written)) == record
    assert json.loads(json.dumps(written)) == written


def test_to_json_leaves_out_what_is_not_there():
    assert GameRecord.from_json({}).to_json() == {"players": 2, "variant": "standard", "moves": []}
    written = GameRecord.from_json(FULL_RECORD).to_json()
    assert written["setup"] == FULL_RECORD["setup"]
    assert written["hints"] == [0]
    assert "teams" not in written


# -- replaying ----------------------------------------------------------------------------------


def test_replay_plays_every_move():
    result = replay(GameRecord.from_json(GOOD_RECORD))
    assert result.error is None
    assert result.error_turn is None
    assert result.position.scores == [2, 1]
    assert result.position.ply == 2


def test_replay_starts_from_the_setup():
    record = GameRecord.from_json(FULL_RECORD)
    start = record.start()
    assert start.to_move == 2
    assert start.scores == [5, 1, 0]
    assert start.supply() == {"suns": 20, "shadows": 70, "roofs": [10, 11, 12]}
    result = replay(record)
    assert result.error is None
    assert result.position.to_move == 3


@pytest.mark.parametrize(
    ("bad_move", "mentions"),
    [("SD5 RE5 HF5", "D5"), ("HD1 HD1 RE1", "D1"), ("HD1 XZ99 RE1", "'X'"), ("", "empty move")],
)
def test_replay_stops_at_the_first_illegal_move(bad_move, mentions):
    moves = ["SA1 RB1 HC1", bad_move, "RC2 SC3 HD1"]
    record = GameRecord.from_json({"moves": moves})
    result = replay(record)
    assert result.error_turn == 1
    assert isinstance(result.error, IllegalMoveError)
    assert mentions in str(result.error)
    assert result.position.ply == 1
    report = replay_report(record)
    assert report["error"] == {"turn": 1, "message": str(result.error)}
    assert report["turns"] == [{"move": "SA1 RB1 HC1", "points": [1, 0]}]
    assert report["scores"] == [1, 0]
    assert report["to_move"] == 2


def test_replay_of_a_move_after_the_end_is_an_error():
    record = GameRecord.from_json(
        {"setup": {"board": [".1##"], "supply": {"suns": 1}}, "moves": ["SA1", "RE1 HE2 RF1"]}
    )
    result = replay(record)
    assert result.error_turn == 1
    assert result.position.end is Termination.LAST_SUN
    assert "over" in str(result.error)


def test_replay_report_has_the_documented_shape():
    report = replay_report(GameRecord.from_json(GOOD_RECORD))
    assert set(report) == {
        "turns",
        "scores",
        "to_move",
        "over",
        "end_reason",
        "board",
        "supply",
        "error",
    }
    assert report["turns"] == [
        {"move": "SA1 RB1 HC1", "points": [1, 0]},
        {"move": "RC2 SC3 HD1", "points": [1, 1]},
    ]
    assert report["to_move"] == 1
    assert report["over"] is False
    assert report["end_reason"] is None
    assert report["board"][:3] == ["S1##........", "..2.........", "..S........."]
    assert report["supply"] == {"suns": 23, "shadows": 73, "roofs": [14, 14]}
    assert report["error"] is None
    json.dumps(report)


def test_replay_report_prints_moves_in_canonical_notation():
    report = replay_report(GameRecord.from_json({"moves": ["sa1  rb1 hc1"]}))
    assert report["turns"][0]["move"] == "SA1 RB1 HC1"


# -- the command line ---------------------------------------------------------------------------


def run_engine(*args, stdin=None):
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    return subprocess.run(
        [sys.executable, "-m", "games.engine", *args],
        input=stdin,
        capture_output=True,
        cwd=REPO_ROOT,
        env=env,
        timeout=120,
        check=False,
    )


BAD_STDIN = {
    "invalid JSON": b"{players: 2",
    "empty": b"",
    "not an object": b"[1, 2]",
    "players 5": b'{"players": 5}',
    "bad setup": b'{"setup": {"board": ["S1X"]}}',
    "not UTF-8": b'{"moves": ["\xff\xfe"]}',
    "absurdly nested": b"[" * 100_000 + b"]" * 100_000,
}


@pytest.mark.parametrize("command", ["replay", "best"])
@pytest.mark.parametrize("stdin", list(BAD_STDIN.values()), ids=list(BAD_STDIN))
def test_cli_prints_an_error_object_for_a_malformed_record(command, stdin):
    proc = run_engine(command, "-", stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    assert b"Traceback" not in proc.stderr
    output = json.loads(proc.stdout)
    assert output == {"error": {"turn": None, "message": output["error"]["message"]}}
    assert output["error"]["message"]


def test_cli_reads_a_file(tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(GOOD_RECORD))
    proc = run_engine("replay", str(path))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == replay_report(GameRecord.from_json(GOOD_RECORD))


def test_cli_file_that_is_not_utf8_is_an_error_object(tmp_path):
    path = tmp_path / "game.json"
    path.write_bytes(b'{"moves": ["\xff"]}')
    proc = run_engine("replay", str(path))
    assert proc.returncode == 0, proc.stderr
    assert b"Traceback" not in proc.stderr
    assert "not valid JSON" in json.loads(proc.stdout)["error"]["message"]


@pytest.mark.parametrize("command", ["replay", "best"])
def test_cli_exits_non_zero_for_a_missing_file(command, tmp_path):
    missing = tmp_path / "missing.json"
    proc = run_engine(command, str(missing))
    assert proc.returncode != 0
    assert b"Traceback" not in proc.stderr
    assert str(missing).encode() in proc.stderr
    assert proc.stdout == b""


def test_cli_exits_non_zero_for_a_directory(tmp_path):
    proc = run_engine("replay", str(tmp_path))
    assert proc.returncode != 0
    assert b"Traceback" not in proc.stderr


def test_cli_reports_an_illegal_move_with_exit_zero():
    record = {"moves": ["SA1 RB1 HC1", "SD5 RE5 HF5"]}
    proc = run_engine("replay", "-", stdin=json.dumps(record).encode())
    assert proc.returncode == 0
    output = json.loads(proc.stdout)
    assert output["error"]["turn"] == 1
    assert "D5" in output["error"]["message"]
    assert output["scores"] == [1, 0]


def test_cli_best_when_the_game_is_over():
    record = {"setup": {"board": [".1##"], "supply": {"suns": 1}}, "moves": ["SA1"]}
    proc = run_engine("best", "-", stdin=json.dumps(record).encode())
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == {"move": None, "points": 0}


def test_cli_without_a_command_is_a_usage_error():
    proc = run_engine()
    assert proc.returncode == 2
    assert b"usage" in proc.stderr
    assert b"Traceback" not in proc.stderr

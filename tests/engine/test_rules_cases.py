"""The shared rules cases (../shared/rules-cases/*.json), checked in-process with the comparisons
that ../shared/tools/check_rules.py makes through the command line, plus one run of the command
line itself."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine.record import GameRecord, replay, replay_report
from games.engine.search import best_turn

REPO_ROOT = Path(__file__).resolve().parents[2]
CASES_DIR = REPO_ROOT.parent / "shared" / "rules-cases"
FIELDS = ("scores", "over", "end_reason", "to_move", "board")


def _load_cases() -> list:
    if not CASES_DIR.is_dir():
        reason = f"the shared rules cases are not checked out at {CASES_DIR}"
        return [pytest.param(None, id="no-rules-cases", marks=pytest.mark.skip(reason=reason))]
    return [
        pytest.param(case, id=f"{path.stem}:{case['name']}")
        for path in sorted(CASES_DIR.glob("*.json"))
        for case in json.loads(path.read_text(encoding="utf-8"))
    ]


CASES = _load_cases()


def test_the_rules_cases_are_there():
    if not CASES_DIR.is_dir():
        pytest.skip(f"the shared rules cases are not checked out at {CASES_DIR}")
    assert len(CASES) >= 44


@pytest.mark.parametrize("case", CASES)
def test_rules_case(case):
    record, expect = case["record"], case["expect"]
    got = replay_report(GameRecord.from_json(record))

    assert [turn["points"] for turn in got["turns"]] == expect["points"]
    if expect["error"] is None:
        assert got["error"] is None
    else:
        assert got["error"] is not None, "expected an illegal move"
        assert got["error"]["turn"] == expect["error"]["turn"]
        if cell := expect["error"].get("mentions"):
            assert cell in got["error"]["message"]
    for key in FIELDS:
        assert got[key] == expect[key], key

    if "best_points" in expect:
        best = best_turn(replay(GameRecord.from_json(record)).position)
        assert best.points == expect["best_points"]
        if best.turn is not None:
            after = replay_report(
                GameRecord.from_json({**record, "moves": [*record["moves"], str(best.turn)]})
            )
            assert after["error"] is None
            mover = expect["to_move"] - 1
            assert after["turns"][-1]["points"][mover] == expect["best_points"]


def _engine(command: str, record: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    proc = subprocess.run(
        [sys.executable, "-m", "games.engine", command, "-"],
        input=json.dumps(record),
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_command_line_on_a_rules_case():
    path = CASES_DIR / "best.json"
    if not path.exists():
        pytest.skip(f"the shared rules cases are not checked out at {CASES_DIR}")
    case = json.loads(path.read_text(encoding="utf-8"))[0]
    record, expect = case["record"], case["expect"]

    got = _engine("replay", record)
    assert got == replay_report(GameRecord.from_json(record))
    assert [turn["points"] for turn in got["turns"]] == expect["points"]
    for key in FIELDS:
        assert got[key] == expect[key], key
    assert got["error"] is None

    best = _engine("best", record)
    assert set(best) == {"move", "points"}
    assert best["points"] == expect["best_points"]
    after = _engine("replay", {**record, "moves": [*record["moves"], best["move"]]})
    assert after["error"] is None
    assert after["turns"][-1]["points"][expect["to_move"] - 1] == expect["best_points"]

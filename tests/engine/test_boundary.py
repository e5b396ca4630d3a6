"""The engine is pure standard-library Python: it imports without Django and knows nothing of
the site (RULES.md, "The engine's command line"; STYLE.md, "Module boundaries")."""

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
ENGINE_DIR = REPO_ROOT / "games" / "engine"
ENGINE_FILES = sorted(ENGINE_DIR.glob("*.py"))
DJANGO_IMPORT = re.compile(
    r"^\s*(from|import)\s+django\b|(import_module|__import__)\(\s*[\"']django", re.MULTILINE
)

GAME_WITHOUT_DJANGO = """
import sys
import games.engine as engine
from games.engine.record import GameRecord, replay_report
from games.engine.search import best_turn

pos = engine.Position(players=3, variant="classic")
for _ in range(4):
    pos.play(best_turn(pos).turn)
report = replay_report(GameRecord.from_json({"moves": ["SE6 RF6 HG6"]}))
assert report["scores"] == [1, 0], report
loaded = sorted(name for name in sys.modules if name.split(".")[0] in ("django", "siesta_site"))
assert not loaded, loaded
print("ok", pos.ply, pos.scores)
"""


def test_engine_runs_a_game_without_loading_django():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    proc = subprocess.run(
        [sys.executable, "-c", GAME_WITHOUT_DJANGO],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok 4 ")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def test_the_engine_files_are_found():
    assert {path.name for path in ENGINE_FILES} >= {
        "__init__.py",
        "__main__.py",
        "notation.py",
        "errors.py",
        "variants.py",
        "position.py",
        "search.py",
        "scoring.py",
        "geometry.py",
        "record.py",
    }


@pytest.mark.parametrize("path", ENGINE_FILES, ids=[path.name for path in ENGINE_FILES])
def test_engine_module_imports_only_the_standard_library_and_itself(path):
    for module in imported_modules(path):
        top = module.split(".")[0]
        assert top != "django", f"{path.name} imports {module}"
        assert top in sys.stdlib_module_names or module.startswith("games.engine"), (
            f"{path.name} imports {module}, which is neither the standard library nor the engine"
        )
    assert not DJANGO_IMPORT.search(path.read_text(encoding="utf-8")), path.name


NAMESPACE = {
    "Position",
    "PlayedTurn",
    "Termination",
    "Turn",
    "Placement",
    "Piece",
    "Cell",
    "cell_name",
    "parse_cell",
    "GameOutcome",
    "SeatResult",
    "EngineError",
    "IllegalMoveError",
    "NotationError",
    "GameOverError",
    "SetupError",
}
"""What ``games.engine`` itself exports (issue 28): the position, the turn and its parts, the
cells' names, the outcome and the refusals, as ``chess`` does for python-chess. Search, study,
records, the codec and the SVG board are imported from their modules."""


def test_the_engine_package_exports_only_what_playing_a_game_needs():
    import types

    import games.engine

    assert set(games.engine.__all__) == NAMESPACE
    public = {
        name
        for name, value in vars(games.engine).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public == NAMESPACE


def test_a_name_left_to_its_module_is_not_in_the_package():
    import games.engine
    from games.engine.search import best_turn

    assert not hasattr(games.engine, "best_turn")
    assert best_turn.__module__ == "games.engine.search"

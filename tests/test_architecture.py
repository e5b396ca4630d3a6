"""The direction of dependencies (docs/architecture.md) holds: the import contracts of
pyproject.toml (``[tool.importlinter]``) are kept.

``lint-imports`` reads every import, including those inside functions, so a circle cannot hide in
a function-level import. The contracts: the engine imports nothing of Django or the apps; the apps
are layered (social over tournaments and learn, over ratings, over games); ratings and tournaments
use games only through its services, selectors, signals, models, errors, state, game_settings
and engine; the shared core (core/) imports no app and not the project package siesta_site, and
the apps never import siesta_site; the project's own plumbing imports no app; no product package
imports the benchmarks (bench/); no cycles between the modules of an app (nor inside the engine).
"""

from __future__ import annotations

import pkgutil
import shutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

import games

REPO_ROOT = Path(__file__).resolve().parents[1]
PUBLIC_SURFACE = {
    "services",
    "selectors",
    "signals",
    "models",
    "errors",
    "state",
    "game_settings",
    "engine",
}
"""What ratings and tournaments may import of games (the ``games-public-surface`` contract)."""


def lint_imports(*args: str, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess[str]:
    command = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert command, "lint-imports is not installed: pip install -e '.[dev]'"
    return subprocess.run(
        [command, "--no-cache", "--no-logo", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        check=False,
    )


def contracts() -> dict[str, dict]:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {c["id"]: c for c in config["tool"]["importlinter"]["contracts"]}


def test_the_import_contracts_are_kept():
    result = lint_imports()
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{len(contracts())} kept, 0 broken" in result.stdout, result.stdout


def test_every_module_of_games_is_either_public_or_forbidden_to_ratings_and_tournaments():
    """A new module of games is internal until said otherwise: list it in the contract."""
    forbidden = set(contracts()["games-public-surface"]["forbidden_modules"])
    children = {info.name for info in pkgutil.iter_modules(games.__path__)}
    unlisted = sorted(
        name for name in children - PUBLIC_SURFACE if f"games.{name}" not in forbidden
    )
    assert not unlisted, f"add games.{unlisted[0]} to games-public-surface's forbidden_modules"


def test_a_cycle_hidden_in_a_function_breaks_the_acyclic_contract(tmp_path):
    """What the apps-acyclic contract catches, shown on a package of two modules."""
    package = tmp_path / "circle"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "services.py").write_text("from circle import tasks\n")
    (package / "tasks.py").write_text(
        textwrap.dedent(
            """
            def run():
                from circle import services  # the circle, hidden in a function
            """
        )
    )
    (tmp_path / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [tool.importlinter]
            root_packages = ["circle"]

            [[tool.importlinter.contracts]]
            id = "acyclic"
            name = "acyclic"
            type = "acyclic_siblings"
            ancestors = ["circle"]
            """
        )
    )
    result = lint_imports(cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "BROKEN" in result.stdout


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("games.services", "games.tasks"),
        ("games.engine.position", "games.engine.search"),
    ],
)
def test_the_two_old_circles_are_gone(importer, imported):
    """Issue 12: services imported tasks and tasks services; position imported search and
    search position. Each now goes one way only (the tasks and search import the others)."""
    import grimp

    graph = grimp.build_graph("games")
    assert not graph.chain_exists(importer=importer, imported=imported)
    assert graph.chain_exists(importer=imported, imported=importer)


SERVER_PACKAGES = ("twisted", "autobahn", "daphne", "channels_redis")
"""The server's and the channel layer's packages: configured through their supported settings and
extension points, never patched (issue 28). Only the channel layer subclasses channels_redis."""


def test_no_module_of_the_site_reaches_into_the_servers_internals():
    import ast

    apps = (
        "siesta_site",
        "core",
        "games",
        "ratings",
        "tournaments",
        "learn",
        "social",
        "accounts",
        "pages",
    )
    allowed = {"core/channel_layer.py": {"channels_redis"}}
    found = []
    for path in sorted(p for app in apps for p in (REPO_ROOT / app).rglob("*.py")):
        relative = path.relative_to(REPO_ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top in SERVER_PACKAGES and top not in allowed.get(relative, set()):
                    found.append(f"{relative}: {name}")
    assert not found

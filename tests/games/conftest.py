"""Fixtures shared by the games tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.conf import settings


@pytest.fixture(scope="module")
def js_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of static/js that Node reads as ES modules (a package.json of type "module")."""
    tree = tmp_path_factory.mktemp("js") / "js"
    shutil.copytree(Path(settings.BASE_DIR) / "static" / "js", tree)
    (tree / "package.json").write_text('{"type": "module"}')
    return tree


@pytest.fixture
def pool(settings):
    """Searches in the engine pool (real worker processes), stopped after the test."""
    from games import engine_budget

    settings.SIESTA_ENGINE_POOL = True
    settings.SIESTA_ENGINE_WAIT = 60  # the first search spawns the worker; the machine is shared
    yield
    engine_budget.shutdown_pool()

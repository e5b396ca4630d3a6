"""Production static files: the page scripts are ES modules, and after ``collectstatic`` every
module a script imports is named by its hashed file, the one the templates' ``{% static %}`` names
too, so that a module loads once and is never served stale."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

IMPORT = re.compile(
    r"""(?:import|export)\s[^'";]*?\sfrom\s*["']([^"']+)["']|import\s*["']([^"']+)["']"""
)


@pytest.fixture(scope="module")
def collected(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("static")
    storages = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "siesta_site.staticfiles.StaticFilesStorage"},
    }
    with override_settings(STATIC_ROOT=root, STORAGES=storages):
        call_command("collectstatic", "--noinput", verbosity=0)
    manifest = json.loads((root / "staticfiles.json").read_text(encoding="utf-8"))["paths"]
    return root, manifest


def test_every_module_import_names_a_hashed_file(collected):
    root, manifest = collected
    hashed_names = set(manifest.values())
    modules = [name for name in manifest if name.startswith("js/") and name.endswith(".js")]
    assert "js/game.js" in modules
    assert "js/lib/board.js" in modules
    imports_seen = 0
    for name in modules:
        hashed = root / manifest[name]
        text = hashed.read_text(encoding="utf-8")
        for match in IMPORT.finditer(text):
            target = match.group(1) or match.group(2)
            imports_seen += 1
            assert target.startswith("."), f"{name} imports {target!r}: not a relative module"
            assert _normalise(manifest[name], target) in hashed_names, (
                f"{name} imports {target!r}, which is not a hashed file"
            )
    assert imports_seen > 20


def _normalise(importer: str, target: str) -> str:
    """The static path ``target`` names, relative to the importing file ``importer``."""
    parts = importer.split("/")[:-1]
    for piece in target.split("/"):
        if piece == "..":
            parts.pop()
        elif piece != ".":
            parts.append(piece)
    return "/".join(parts)

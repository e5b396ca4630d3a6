"""Running the page scripts' ES modules in Node (tests skip without it; `js_tree` in conftest.py
is the copy of static/js they import)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="needs Node.js to run the page scripts")


def run_module(script: str) -> object:
    """Run `script` as an ES module; what it writes to stdout, parsed from JSON."""
    assert NODE is not None
    done = subprocess.run(
        [NODE, "--input-type=module", "-"],
        input=script,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def run_page_script(imports: dict[Path, str], harness: str, body: str) -> dict:
    """Run ``body`` after importing ``names`` from each module path and running ``harness``; the
    body sets ``result``, which comes back parsed from JSON."""
    lines = [
        f"import {{ {names} }} from {json.dumps(path.as_uri())};\n"
        for path, names in imports.items()
    ]
    script = (
        "".join(lines)
        + harness
        + "let result;\n"
        + body
        + "\nprocess.stdout.write(JSON.stringify(result));\n"
    )
    result = run_module(script)
    assert isinstance(result, dict)
    return result


def page_script_runner(tree: Path, modules: dict[str, str], harness: str) -> Callable[[str], dict]:
    """``run(body)`` for the modules (paths under ``tree``: the names each gives) and harness."""
    imports = {tree / path: names for path, names in modules.items()}
    return lambda body: run_page_script(imports, harness, body)

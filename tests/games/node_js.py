"""Running the page scripts' ES modules in Node (tests skip without it; `js_tree` in conftest.py
is the copy of static/js they import)."""

from __future__ import annotations

import json
import shutil
import subprocess

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

"""Benchmarks of the site, kept out of the product: not installed with it (``pyproject.toml``
installs only the apps) and imported by none of its packages (the ``bench-apart`` import contract).

Each runs from a checkout, from the repository's root, against the site's settings and database:
``python -m bench.loadtest`` (``make loadtest``), ``python -m bench.bench_move``,
``python -m bench.botmatch`` (or ``python -m bench.bots_bench``), ``python -m bench.pairing_bench``,
``python bench/engine_budget.py``, ``python bench/engine_fair.py``, ``python -m bench.crash`` (a
web process killed mid-game); ``bench.asgi`` is the site with the load benchmark's echo socket
(``bench.echo``), which ``make up SIESTA_ECHO_WS=1`` serves (docs/performance.md).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from django.core.management.base import BaseCommand


def run_command(command: type[BaseCommand], module: str, argv: Sequence[str] | None = None) -> None:
    """Run a benchmark written as a Django command (its options, ``--help`` and errors) outside
    any app, as ``python -m <module>``: Django is set up with the site's settings, then
    ``command`` parses ``argv`` (the command line's by default)."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "siesta_site.settings")
    django.setup()
    args = list(sys.argv[1:] if argv is None else argv)
    command().run_from_argv([f"python -m {module}", "", *args])

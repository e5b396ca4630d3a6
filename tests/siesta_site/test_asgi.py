"""The ASGI module as Daphne loads it: what it made while starting is frozen out of the
collector's full passes (docs/performance.md: a full pass under load had stalled every socket
of a web process for 100-200 ms) and young collections run less often. Twisted, Daphne and
autobahn run as they ship: nothing of theirs is replaced."""

from __future__ import annotations

import subprocess
import sys

from django.conf import settings


def test_loading_the_application_freezes_what_starting_made():
    script = (
        "import gc\n"
        "before = gc.get_freeze_count()\n"
        "import siesta_site.asgi\n"
        "from twisted.internet import tcp\n"
        "print(before, gc.get_freeze_count(), len(gc.get_objects()), gc.get_threshold()[0],\n"
        "      int(tcp.Connection.write.__module__.startswith('twisted.')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=settings.BASE_DIR,
        env={"DJANGO_SETTINGS_MODULE": "siesta_site.settings", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    before, frozen, left, young_threshold, stock_write = map(int, out.split())
    assert before == 0
    # Django, Channels and the site's modules: tens of thousands of objects, and almost nothing
    # left for the collector to walk.
    assert frozen > 50_000
    assert left < frozen / 10
    assert young_threshold == 10_000
    assert stock_write == 1  # Twisted's own write, not a replacement

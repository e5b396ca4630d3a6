"""The ASGI module as Daphne loads it: what it made while starting is frozen out of the
collector's full passes (docs/performance.md: a full pass under load had stalled every socket
of a web process for 100-200 ms), young collections run less often, Daphne's sockets send at once
and closed WebSockets leave no reference cycles."""

from __future__ import annotations

import subprocess
import sys

from django.conf import settings


def test_loading_the_application_freezes_what_starting_made():
    script = (
        "import gc\n"
        "before = gc.get_freeze_count()\n"
        "import siesta_site.asgi\n"
        "from siesta_site import closed_sockets, eager_writes\n"
        "print(before, gc.get_freeze_count(), len(gc.get_objects()), gc.get_threshold()[0],\n"
        "      int(eager_writes.installed()), int(closed_sockets.installed()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=settings.BASE_DIR,
        env={"DJANGO_SETTINGS_MODULE": "siesta_site.settings", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    before, frozen, left, young_threshold, eager, closed = map(int, out.split())
    assert before == 0
    # Django, Channels and the site's modules: tens of thousands of objects, and almost nothing
    # left for the collector to walk.
    assert frozen > 50_000
    assert left < frozen / 10
    assert young_threshold == 10_000
    assert eager == 1  # Daphne's sockets send at once (eager_writes.py)
    assert closed == 1  # a closed WebSocket leaves no cycles (closed_sockets.py)

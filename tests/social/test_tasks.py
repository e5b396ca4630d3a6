"""The matcher's periodic task is known to the beat as soon as Django is set up: under `make run`
the in-process beat looks the schedule's tasks up when the first request starts it."""

from __future__ import annotations

import subprocess
import sys

from django.conf import settings


def test_the_in_process_beat_finds_the_matcher_in_a_fresh_process():
    code = (
        "import django; django.setup();"
        "from games.tasks import InProcessBeat;"
        "print(sorted(name for name, *_ in InProcessBeat()._entries()))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
        env={"DJANGO_SETTINGS_MODULE": "siesta_site.settings", "PATH": "/usr/bin:/bin"},
        timeout=120,
        check=True,
    )
    assert "match-seeks" in result.stdout
    assert "not registered" not in result.stderr

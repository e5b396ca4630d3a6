"""Engine work runs below the serving processes: a Celery worker consuming the bot or analysis
queue lowers its priority as it sets up (siesta_site/celery.py), the periodic worker does not.
Each case runs in a child process, whose priority can only go down."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SCRIPT = """
import os, sys, types
import django
django.setup()
from celery import signals
from siesta_site.celery import app
app.amqp.queues.select(sys.argv[1].split(","))
worker = types.SimpleNamespace(app=app)
signals.celeryd_after_setup.send(sender="test@host", instance=worker, conf=app.conf)
print(os.nice(0))
"""


def nice_of_worker(queues: str, **env: str) -> int:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, queues],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "siesta_site.settings", **env},
        timeout=120,
    )
    return int(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("queues", "lowered"), [("bots", 10), ("analyses", 10), ("periodic,celery", 0)]
)
def test_engine_workers_are_niced_and_the_periodic_one_is_not(queues: str, lowered: int) -> None:
    assert nice_of_worker(queues, SIESTA_WORKER_NICE="10") == os.nice(0) + lowered


def test_a_nice_of_zero_leaves_the_worker_as_the_web_processes() -> None:
    assert nice_of_worker("bots", SIESTA_WORKER_NICE="0") == os.nice(0)

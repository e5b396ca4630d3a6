"""The load benchmark's accounting (games/loadtest.py): a process that starts during the run, as
a PostgreSQL backend does when a pool grows under load, counts all its CPU; one that ran before
counts only what it spent since the start."""

from __future__ import annotations

import subprocess
import sys
import time

import psutil

from games import loadtest

BURN = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\n"


def _burner() -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", BURN + "time.sleep(30)"])


def _wait_burnt(proc: subprocess.Popen[bytes]) -> psutil.Process:
    process = psutil.Process(proc.pid)
    while sum(process.cpu_times()[:2]) < 0.3:
        time.sleep(0.05)
    return process


def test_a_process_started_during_the_run_counts_all_its_cpu():
    old = _burner()
    try:
        before = {"postgres": [_wait_burnt(old)]}
        start = loadtest.cpu_seconds(before["postgres"])
        new = _burner()
        try:
            after = {"postgres": [psutil.Process(old.pid), _wait_burnt(new)]}
            report = loadtest.usage(before, start, 1.0, after)
            # The old one spent (almost) nothing since the start; the new one its whole burn.
            assert 0.3 <= report["postgres"]["cpu_s"] < 0.5
            assert loadtest.usage(before, start, 1.0)["postgres"]["cpu_s"] < 0.1
        finally:
            new.kill()
    finally:
        old.kill()

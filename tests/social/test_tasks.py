"""The matcher's periodic task is known to the beat as soon as Django is set up: under `make run`
the in-process beat looks the schedule's tasks up when the first request starts it."""

from __future__ import annotations

from tests.siesta_site.helpers import in_a_fresh_process


def test_the_in_process_beat_finds_the_matcher_in_a_fresh_process():
    result = in_a_fresh_process(
        "from core.inprocess import InProcessBeat;"
        "print(sorted(name for name, *_ in InProcessBeat()._entries()))"
    )
    assert "match-seeks" in result.stdout
    assert "not registered" not in result.stderr

"""Fixtures for the service tests: watchers of a game's group, listeners for the end of games."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from channels.layers import get_channel_layer

from games.selectors import FinishedGame
from games.signals import game_finished
from tests.games.services.helpers import Watcher


@pytest.fixture
def watch(settings) -> Iterator[Callable[[int], Watcher]]:
    """``watch(game_id)`` subscribes a channel to the game's group, as a watcher's socket does.

    The layer is an in-memory one of this test's own, also when REDIS_URL is set, so that other
    runs sharing the Redis server (with games of the same ids) never reach it."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    layer = get_channel_layer()
    watchers: list[Watcher] = []

    def _watch(game_id: int) -> Watcher:
        watcher = Watcher.subscribe(layer, game_id)
        watchers.append(watcher)
        return watcher

    yield _watch
    for watcher in watchers:
        watcher.close()


@pytest.fixture
def finished_outcomes() -> Iterator[list[FinishedGame]]:
    """The outcomes ``game_finished`` announces while the test runs, in order."""
    outcomes: list[FinishedGame] = []

    def receiver(sender: Any, outcome: FinishedGame, **kwargs: Any) -> None:
        outcomes.append(outcome)

    game_finished.connect(receiver, weak=False)
    yield outcomes
    game_finished.disconnect(receiver)

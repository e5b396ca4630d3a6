"""Tournament tests leave game analyses out: each would replay its game with the engine's search
(seconds for a long game) and tournaments never read them."""

import pytest


@pytest.fixture(autouse=True)
def _no_analyses(monkeypatch):
    monkeypatch.setattr("games.services.enqueue_analysis", lambda game_id: None)

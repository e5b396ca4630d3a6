"""A ``state`` frame's text is encoded once per process for every socket watching the game."""

from __future__ import annotations

import json

from games.consumers import _state_text


def test_the_same_state_is_encoded_once_for_every_watcher():
    state = {"id": 1, "ply": 3, "seats": [{"username": "añа", "score": 2}], "board": ["." * 12]}
    text = _state_text(state, 4)
    assert _state_text(state, 4) is text  # the next watcher gets the same text
    assert json.loads(text) == {"type": "state", "game": state, "version": 4}


def test_another_state_or_version_is_encoded_afresh():
    state = {"id": 1, "ply": 3}
    text = _state_text(state, 4)
    equal_but_new = dict(state)
    assert json.loads(_state_text(state, 5))["version"] == 5
    assert _state_text(equal_but_new, 4) is not text
    assert json.loads(_state_text(equal_but_new, 4)) == json.loads(text)

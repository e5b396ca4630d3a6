"""The engine's refusals in the player's language, in the site's words ("player", not "seat")."""

from __future__ import annotations

import pytest
from django.utils import translation

from games.engine import EngineError, IllegalMoveError, Position, Turn
from games.engine.errors import CODES
from games.engine_messages import engine_error_message

LANGUAGES = ["en", "es", "de", "it", "fr"]

# One error of every code, with the params the engine gives it.
SAMPLES = {
    "bad_cell": {"text": "5F"},
    "off_board": {"cell": "M1"},
    "bad_piece": {"letter": "X"},
    "bad_placement": {"text": "S"},
    "move_not_text": {},
    "empty_move": {},
    "too_many_placements": {"count": 4},
    "occupied": {"cell": "A1"},
    "not_adjacent": {"cell": "F6"},
    "no_suns_left": {"cell": "B1"},
    "sun_next_to_shadow": {"cell": "B1"},
    "no_shadows_left": {"cell": "B1"},
    "shadow_next_to_sun": {"cell": "B1"},
    "no_roofs_left": {"cell": "B1", "seat": 2},
    "shadow_not_in_siesta": {"cell": "B1"},
    "after_end": {"cell": "C1", "placement": "RC1", "ending": "last_sun"},
    "turn_too_short": {"count": 2},
    "no_point": {"move": "SB1 SC1 SD1", "seat": 1},
    "game_over": {},
}


def test_samples_cover_every_code():
    assert set(SAMPLES) == set(CODES)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("code", sorted(CODES))
def test_every_code_has_a_message_in_every_language(code, language):
    error = EngineError("the engine's text", code=code, params=SAMPLES[code])
    with translation.override(language):
        message = engine_error_message(error)
    assert message != "the engine's text"
    for value in SAMPLES[code].values():
        if value not in ("last_sun",):
            assert str(value) in message, (code, language, message)
    if language != "en":
        with translation.override("en"):
            assert message != engine_error_message(error), (code, language)


def test_the_site_says_player_where_the_engine_says_seat():
    position = Position(players=2, board=["S"], roofs=[0, 15], check_start=False)
    with pytest.raises(IllegalMoveError) as raised:
        position.play("RB1")
    assert "seat 1" in str(raised.value)
    with translation.override("en"):
        assert engine_error_message(raised.value) == "Player 1 has no roofs left for B1"


def test_a_real_refusal_in_spanish_names_the_cell():
    with pytest.raises(IllegalMoveError) as raised:
        Position(players=2, board=["S"]).play("HB1")
    with translation.override("es"):
        assert engine_error_message(raised.value) == "Una sombra en B1 quedaría junto a un sol"


def test_an_error_without_a_code_keeps_the_engine_text():
    with pytest.raises(EngineError) as raised:
        Turn.parse("SA1 SB1 SC1 SD1 SE1")
    raised.value.code = ""
    assert engine_error_message(raised.value) == str(raised.value)

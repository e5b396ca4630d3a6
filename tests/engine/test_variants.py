"""Siestas in one line, and the Double Siesta rule of each variant."""

import pytest

from games.engine import EngineError
from games.engine.variants import (
    EMPTY,
    ROOF0,
    SHADOW,
    SUN,
    ClassicRules,
    Siesta,
    StandardRules,
    line_siestas,
    rules_for,
)

CODES = {".": EMPTY, "S": SUN, "#": SHADOW, "1": ROOF0, "2": ROOF0 + 1, "3": ROOF0 + 2}


def line(text: str) -> tuple[int, ...]:
    return tuple(CODES[char] for char in text.ljust(12, "."))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("S1#", [Siesta(2, 2, 0b1)]),
        ("#1S", [Siesta(0, 0, 0b1)]),
        ("..SS11###.", [Siesta(6, 8, 0b1)]),
        ("S12#", [Siesta(3, 3, 0b11)]),
        ("S1#2S", [Siesta(2, 2, 0b1), Siesta(2, 2, 0b10)]),
        ("S1##.#1S", [Siesta(2, 3, 0b1), Siesta(5, 5, 0b1)]),
        ("...........S", []),
        ("S.1#", []),
        ("S1.#", []),
        ("#1#", []),
        ("S1S", []),
        ("11##", []),
        ("S1", []),
        ("1#" + "." * 9 + "S", []),
        ("..........S1", []),
        ("S" + "1" * 10 + "#", [Siesta(11, 11, 0b1)]),
    ],
)
def test_line_siestas(text, expected):
    assert line_siestas(line(text)) == expected


@pytest.mark.parametrize(
    ("text", "standard", "classic"),
    [
        ("S1#", (1, 0, 0), (1, 0, 0)),
        ("S1###1S", (8, 0, 0), (8, 0, 0)),
        ("S1#2S", (1, 1, 0), (1, 1, 0)),
        ("S12#1S", (4, 1, 0), (2, 1, 0)),
        ("S12#12S", (4, 4, 0), (2, 2, 0)),
        ("S3#23S", (0, 1, 4), (0, 1, 2)),
    ],
)
def test_line_points_per_variant(text, standard, classic):
    assert rules_for("standard").score_line(line(text)).points[:3] == standard
    assert rules_for("classic").score_line(line(text)).points[:3] == classic


def test_double_bonus_seats():
    standard, classic = StandardRules(), ClassicRules()
    assert standard.double_bonus_seats(0b01, 0b01) == 0b01
    assert standard.double_bonus_seats(0b11, 0b01) == 0b01
    assert standard.double_bonus_seats(0b11, 0b11) == 0b11
    assert standard.double_bonus_seats(0b01, 0b10) == 0
    assert classic.double_bonus_seats(0b01, 0b01) == 0b01
    assert classic.double_bonus_seats(0b11, 0b01) == 0
    assert classic.double_bonus_seats(0b01, 0b10) == 0


def test_only_standard_has_the_crossing_bonus():
    assert rules_for("standard").crossing_bonus
    assert not rules_for("classic").crossing_bonus


def test_score_line_is_memoised_and_shared():
    rules = rules_for("standard")
    assert rules.score_line(line("S1#")) is rules.score_line(line("S1#"))
    # Equal scores are one object: a position skips unchanged lines with ``is``.
    assert rules.score_line(line("SS")) is rules.score_line(line("11"))


@pytest.mark.parametrize("name", ["x", "Standard", "", None])
def test_unknown_variant_is_an_error(name):
    with pytest.raises(EngineError, match="unknown variant"):
        rules_for(name)

"""The lobby's game creation form and the words for turn times."""

from __future__ import annotations

import pytest
from django.utils import translation

from games.forms import SEAT_CHOICES, GameCreateForm
from games.models import turn_time_label
from games.services import BotSpec


@pytest.fixture(autouse=True)
def _english():
    """The messages are compared in English, whatever another test left active."""
    with translation.override("en"):
        yield


def form(**overrides: str) -> GameCreateForm:
    data = {
        "players": "4",
        "mode": "ffa",
        "variant": "standard",
        "rated": "casual",
        "turn_seconds": "86400",
        "seat_2": "hard",
        "seat_3": "person",
        "seat_4": "easy",
    }
    data.update(overrides)
    return GameCreateForm(data)


def test_service_arguments():
    bound = form()
    assert bound.is_valid(), bound.errors
    assert bound.service_arguments() == {
        "players": 4,
        "mode": "ffa",
        "variant": "standard",
        "rated": False,
        "turn_seconds": 86400,
        "bots": [BotSpec(seat=2, level="hard"), BotSpec(seat=4, level="easy")],
    }


def test_the_expert_bot_is_offered():
    bound = form(seat_2="expert")
    assert bound.is_valid(), bound.errors
    assert bound.service_arguments()["bots"][0] == BotSpec(seat=2, level="expert")
    assert ("expert", "Bot (expert)") in [
        (v, str(label)) for v, label in bound.fields["seat_2"].choices
    ]


def test_teams_need_four_players():
    bound = form(players="2", mode="teams")
    assert not bound.is_valid()
    assert bound.errors["mode"] == ["Team games need 4 players."]
    assert form(mode="teams").is_valid()


def test_unknown_choices_are_refused():
    bound = form(seat_2="grandmaster", turn_seconds="5", variant="chess")
    assert not bound.is_valid()
    assert set(bound.errors) == {"seat_2", "turn_seconds", "variant"}


def test_turn_time_labels():
    assert turn_time_label(30) == "30 seconds"
    assert turn_time_label(86400) == "1 day"
    assert turn_time_label(3 * 86400) == "3 days"
    assert turn_time_label(180) == "3 minutes"
    assert turn_time_label(45) == "45 seconds"


def words(label: str) -> str:
    """The label as read: each opponent's name is held together by no-break spaces."""
    return label.replace("\u00a0", " ")


def test_the_start_button_names_the_default_opponent():
    assert GameCreateForm().start_label() == "Start game against Bot\u00a0(medium)"


def test_the_start_button_names_every_opponent_of_the_posted_form_in_seat_order():
    assert words(form().start_label()) == "Start game against Bot (hard), a person, Bot (easy)"
    assert words(form(seat_3="hard", seat_4="hard").start_label()) == (
        "Start game against 3 × Bot (hard)"
    )
    # Only the seats the number of players has.
    assert words(form(players="2").start_label()) == "Start game against Bot (hard)"


def test_the_start_button_names_every_bot_level_the_seats_offer():
    """Each bot of the seat choices under its own name: never "a person" for a bot."""
    assert words(form(players="2", seat_2="expert").start_label()) == (
        "Start game against Bot (expert)"
    )
    names = GameCreateForm.start_strings()["names"]
    assert {level for level, _name in SEAT_CHOICES} == set(names)
    assert names["expert"] == "Bot (expert)"


def test_the_start_button_words_follow_the_language():
    with translation.override("de"):
        assert words(GameCreateForm().start_label()) == "Spiel gegen Bot (mittel) starten"
        assert GameCreateForm.start_strings()["names"]["person"] == "einen Menschen"

"""GameSettings: the one place that decides what a game may be played with (players, mode,
variant, turn time), read by games, seeks, challenges and tournaments."""

from __future__ import annotations

import pytest

from core.errors import InvalidInput
from games.game_settings import TEAM_PLAYERS, GameSettings, least_players


def test_the_defaults_are_a_two_player_standard_game():
    chosen = GameSettings(2)
    assert chosen.check() is chosen
    assert (chosen.mode, chosen.variant, chosen.turn_seconds) == ("ffa", "standard", 120)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_teams_are_seated_only_at_four(players):
    assert GameSettings(players, "teams").teams_seated is (players == TEAM_PLAYERS)
    assert GameSettings(players, "ffa").teams_seated


@pytest.mark.parametrize(
    ("chosen", "message"),
    [
        (GameSettings(5, "nonsense"), "A game has 2, 3 or 4 players."),  # players first
        (GameSettings(2, "nonsense"), "Unknown mode nonsense."),
        (GameSettings(3, "teams", "nonsense"), "Team games need 4 players."),
        (GameSettings(4, "teams", "nonsense"), "Unknown variant nonsense."),
        (GameSettings(2, turn_seconds=9), "The turn time must be between 10 seconds and 7 days."),
        (GameSettings(2, turn_seconds=7 * 24 * 3600 + 1), "The turn time must be between"),
    ],
)
def test_check_names_the_first_problem(chosen, message):
    with pytest.raises(InvalidInput) as refused:
        chosen.check()
    assert refused.value.message.startswith(message)


def test_the_fewest_players_of_a_mode():
    assert least_players("teams") == TEAM_PLAYERS == 4
    assert least_players("ffa") == 2

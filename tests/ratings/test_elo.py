"""The formula against numbers computed by hand (E = 1 / (1 + 10^((R_B − R_A) / 400)))."""

import pytest

from ratings.elo import (
    Entrant,
    Result,
    expected_score,
    ffa_changes,
    game_changes,
    is_provisional,
    k_factor,
    performance,
    team_changes,
)

# 10^(50/400) = 1.333521, 10^(100/400) = 1.778279, 10^(200/400) = 3.162278
E_PLUS_50 = 0.571463  # E of a player 50 points above the other
E_PLUS_100 = 0.640065
E_PLUS_200 = 0.759747


def by_seat(changes):
    return {c.seat: c for c in changes}


def test_expected_score():
    assert expected_score(1500, 1500) == 0.5
    assert expected_score(1550, 1500) == pytest.approx(E_PLUS_50, abs=1e-6)
    assert expected_score(1600, 1500) == pytest.approx(E_PLUS_100, abs=1e-6)
    assert expected_score(1400, 1600) == pytest.approx(1 - E_PLUS_200, abs=1e-6)


def test_k_switches_at_twenty_counted_games_and_provisional_with_it():
    assert [k_factor(g) for g in (0, 1, 19, 20, 21, 500)] == [40, 40, 40, 20, 20, 20]
    assert is_provisional(0)
    assert is_provisional(19)
    assert not is_provisional(20)


def test_two_players_equal_ratings():
    win = by_seat(
        ffa_changes(
            [Entrant(seat=1, rating=1500, games=0, score=30), Entrant(2, 1500, 0, score=20)]
        )
    )
    assert (win[1].delta, win[1].after, win[1].result) == (20.0, 1520.0, Result.WIN)
    assert (win[2].delta, win[2].after, win[2].result) == (-20.0, 1480.0, Result.LOSS)
    assert (win[1].k, win[2].k) == (40, 40)


def test_two_players_draw_equal_ratings_changes_nothing():
    draw = by_seat(ffa_changes([Entrant(1, 1500, 0, score=25), Entrant(2, 1500, 0, score=25)]))
    assert (draw[1].delta, draw[1].result) == (0.0, Result.DRAW)
    assert (draw[2].delta, draw[2].result) == (0.0, Result.DRAW)


def test_two_players_upset_with_each_players_own_k():
    # 1400 (3 games, K 40) beats 1600 (25 games, K 20): E(1400) = 1 / (1 + 10^0.5) = 0.240253.
    changes = by_seat(ffa_changes([Entrant(1, 1600, 25, score=10), Entrant(2, 1400, 3, score=11)]))
    assert changes[2].delta == pytest.approx(40 * (1 - 0.240253), abs=1e-4)  # +30.3899
    assert changes[2].delta == pytest.approx(30.3899, abs=1e-4)
    assert changes[1].delta == pytest.approx(-15.1949, abs=1e-4)  # 20 × (0 − 0.759747)
    assert (changes[1].k, changes[2].k) == (20, 40)


def test_draw_moves_ratings_towards_each_other():
    changes = by_seat(ffa_changes([Entrant(1, 1600, 30, score=9), Entrant(2, 1400, 30, score=9)]))
    assert changes[1].delta == pytest.approx(20 * (0.5 - E_PLUS_200), abs=1e-4)  # −5.1949
    assert changes[2].delta == pytest.approx(5.1949, abs=1e-4)
    assert changes[1].result == changes[2].result == Result.DRAW


def test_three_players_equal_ratings():
    # change = 40 / 2 × Σ (S − ½)
    changes = by_seat(
        ffa_changes(
            [Entrant(1, 1500, 0, score=30), Entrant(2, 1500, 0, score=20), Entrant(3, 1500, 0, 10)]
        )
    )
    assert [changes[s].delta for s in (1, 2, 3)] == [20.0, 0.0, -20.0]
    assert [changes[s].result for s in (1, 2, 3)] == [Result.WIN, Result.LOSS, Result.LOSS]


def test_three_players_different_ratings():
    # A 1600 (K 20) 30 points, B 1500 (K 40) 40 points, C 1400 (K 40) 20 points.
    a, b, c = Entrant(1, 1600, 30, score=30), Entrant(2, 1500, 0, score=40), Entrant(3, 1400, 5, 20)
    changes = by_seat(ffa_changes([c, a, b]))  # any order in, seat order out
    # A: 20/2 × ((0 − 0.640065) + (1 − 0.759747)) = 10 × −0.399812
    assert changes[1].delta == pytest.approx(-3.99812, abs=1e-4)
    # B: 40/2 × ((1 − 0.359935) + (1 − 0.640065)) = 20 × 1.0
    assert changes[2].delta == pytest.approx(20.0, abs=1e-9)
    # C: 40/2 × ((0 − 0.240253) + (0 − 0.359935)) = 20 × −0.600188
    assert changes[3].delta == pytest.approx(-12.00376, abs=1e-4)
    assert [ch.seat for ch in ffa_changes([c, a, b])] == [1, 2, 3]
    assert [changes[s].result for s in (1, 2, 3)] == [Result.LOSS, Result.WIN, Result.LOSS]


def test_four_players_with_a_tie_and_a_resignation():
    # D has the most points but resigned: D loses every duel. A and B tie for first.
    entrants = [
        Entrant(1, 1500, 0, score=20),
        Entrant(2, 1500, 0, score=20),
        Entrant(3, 1500, 0, score=10),
        Entrant(4, 1500, 0, score=25, out=True),
    ]
    changes = by_seat(ffa_changes(entrants))
    # A: 40/3 × ((½ − ½) + (1 − ½) + (1 − ½)) = 40/3
    assert changes[1].delta == pytest.approx(13.3333, abs=1e-4)
    assert changes[2].delta == pytest.approx(13.3333, abs=1e-4)
    # C: 40/3 × (−½ − ½ + ½) = −20/3
    assert changes[3].delta == pytest.approx(-6.6667, abs=1e-4)
    # D: 40/3 × (−½ × 3) = −20
    assert changes[4].delta == pytest.approx(-20.0, abs=1e-9)
    assert sum(c.delta for c in changes.values()) == pytest.approx(0, abs=1e-9)
    assert [changes[s].result for s in (1, 2, 3, 4)] == [
        Result.DRAW,
        Result.DRAW,
        Result.LOSS,
        Result.LOSS,
    ]


def test_two_players_out_compare_by_score():
    entrants = [
        Entrant(1, 1500, 0, score=5),
        Entrant(2, 1500, 0, score=10, out=True),
        Entrant(3, 1500, 0, score=30, out=True),
    ]
    changes = by_seat(ffa_changes(entrants))
    assert [changes[s].delta for s in (1, 2, 3)] == [20.0, -20.0, 0.0]


def test_teams_winner_by_sum_with_team_means():
    # Team 1: 1600 (K 20) and 1400 (K 40), mean 1500; team 2: 1550 and 1550, mean 1550.
    # E(team 1) = 1 / (1 + 10^(50/400)) = 0.428537. Team 1 wins on sums 50 : 45.
    entrants = [
        Entrant(1, 1600, 20, score=30, team=1),
        Entrant(2, 1550, 10, score=20, team=2),
        Entrant(3, 1400, 0, score=20, team=1),
        Entrant(4, 1550, 50, score=25, team=2),
    ]
    changes = by_seat(team_changes(entrants, team_scores={1: 50, 2: 45}))
    assert changes[1].delta == pytest.approx(11.42926, abs=1e-4)  # 20 × (1 − 0.428537)
    assert changes[3].delta == pytest.approx(22.85852, abs=1e-4)  # 40 × (1 − 0.428537)
    assert changes[2].delta == pytest.approx(-22.85852, abs=1e-4)  # 40 × (0 − 0.571463)
    assert changes[4].delta == pytest.approx(-11.42926, abs=1e-4)  # 20 × (0 − 0.571463)
    assert {changes[s].result for s in (1, 3)} == {Result.WIN}
    assert {changes[s].result for s in (2, 4)} == {Result.LOSS}


def test_teams_draw_on_equal_sums():
    entrants = [
        Entrant(1, 1600, 20, score=30, team=1),
        Entrant(2, 1550, 10, score=20, team=2),
        Entrant(3, 1400, 0, score=20, team=1),
        Entrant(4, 1550, 50, score=30, team=2),
    ]
    changes = by_seat(team_changes(entrants, team_scores={1: 50, 2: 50}))
    assert changes[1].delta == pytest.approx(1.42926, abs=1e-4)  # 20 × (½ − 0.428537)
    assert changes[4].delta == pytest.approx(-1.42926, abs=1e-4)  # 20 × (½ − 0.571463)
    assert {c.result for c in changes.values()} == {Result.DRAW}


def test_team_with_a_member_out_loses_whatever_the_sums():
    entrants = [
        Entrant(1, 1500, 0, score=40, team=1),
        Entrant(2, 1500, 0, score=1, team=2),
        Entrant(3, 1500, 0, score=40, team=1),
        Entrant(4, 1500, 0, score=1, team=2),
    ]
    changes = by_seat(team_changes(entrants, team_scores={1: 80, 2: 2}, teams_out={1}))
    assert [changes[s].delta for s in (1, 2, 3, 4)] == [-20.0, 20.0, -20.0, 20.0]
    # Both teams with a member out: the sums decide.
    both = by_seat(team_changes(entrants, team_scores={1: 80, 2: 2}, teams_out={1, 2}))
    assert [both[s].delta for s in (1, 2, 3, 4)] == [20.0, -20.0, 20.0, -20.0]


def test_team_mean_uses_only_counting_players():
    # Seat 3 (team 1) does not count (hint or bot): team 1's rating is seat 1's alone, 1600.
    entrants = [
        Entrant(1, 1600, 30, score=10, team=1),
        Entrant(2, 1500, 30, score=10, team=2),
        Entrant(4, 1500, 30, score=10, team=2),
    ]
    changes = by_seat(team_changes(entrants, team_scores={1: 30, 2: 20}))
    assert changes[1].delta == pytest.approx(20 * (1 - E_PLUS_100), abs=1e-4)  # +7.1987
    assert changes[2].delta == pytest.approx(-7.1987, abs=1e-4)


def test_a_team_game_needs_a_counting_player_on_each_side():
    with pytest.raises(ValueError, match="each team"):
        team_changes([Entrant(1, 1500, 0, team=1), Entrant(2, 1500, 0, team=1)], team_scores={})


def test_a_game_needs_two_counting_players():
    with pytest.raises(ValueError, match="two"):
        ffa_changes([Entrant(1, 1500, 0)])


def test_game_changes_dispatches_on_mode():
    entrants = [Entrant(1, 1500, 0, score=3, team=1), Entrant(2, 1500, 0, score=2, team=2)]
    assert [c.delta for c in game_changes("ffa", entrants)] == [20.0, -20.0]
    assert [c.delta for c in game_changes("teams", entrants, team_scores={1: 2, 2: 3})] == [
        -20.0,
        20.0,
    ]
    with pytest.raises(ValueError, match="Unknown mode"):
        game_changes("chess", entrants)


def test_doctests():
    import doctest

    import ratings.elo

    assert doctest.testmod(ratings.elo).failed == 0


def test_the_formula_does_not_need_django():
    import subprocess
    import sys

    code = "import sys, ratings.elo; assert 'django' not in sys.modules, 'django was imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


# -- bot performance -----------------------------------------------------------------------------


def test_performance_is_the_rating_whose_expected_score_is_the_score_made():
    # 7 of 10 against 1500: 1500 + 400 × log10(7 / 3) = 1647.19.
    assert performance([(1500.0, 10, 7.0)]) == pytest.approx(1647.19, abs=0.01)
    results = [(1400.0, 3, 2.5), (1650.0, 5, 2.0), (1900.0, 2, 0.5)]
    found = performance(results)
    expected = sum(n * expected_score(found, rating) for rating, n, _ in results)
    assert expected == pytest.approx(5.0, abs=1e-9)


def test_performance_of_an_even_score_against_one_rating_is_that_rating():
    assert performance([(1720.0, 4, 2.0)]) == pytest.approx(1720.0, abs=1e-9)


def test_a_perfect_or_empty_score_stops_800_beyond_the_people_met():
    assert performance([(1400.0, 2, 2.0), (1600.0, 1, 1.0)]) == 2400.0
    assert performance([(1400.0, 2, 0.0), (1600.0, 1, 0.0)]) == 600.0


def test_performance_needs_a_result():
    with pytest.raises(ValueError, match="at least one result"):
        performance([])
    with pytest.raises(ValueError, match="at least one result"):
        performance([(1500.0, 0, 0.0)])

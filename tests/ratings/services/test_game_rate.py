"""Rating real games, finished through the game services (the receiver of ``game_finished``)."""

import pytest

from games import services as game_services
from games.models import Game
from games.selectors import game_outcome
from games.signals import game_finished
from ratings import services
from ratings.models import RatedGame, Rating, RatingChange, Reason
from ratings.receivers import rate_finished_game
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.ratings.play import play_round, play_to_end, play_turn, user_at

pytestmark = pytest.mark.django_db


def rows_of(game: Game) -> dict[int, RatingChange]:
    return {row.seat: row for row in RatingChange.objects.filter(game=game)}


def rating_of(user, pool: str = "ffa") -> Rating | None:
    return Rating.objects.filter(user=user, pool=pool).first()


def finished(game: Game) -> Game:
    return Game.objects.get(pk=game.pk)


def duel_points(game: Game, seat: int, others: list[int]) -> float:
    """Σ S over the duels of ``seat`` against ``others``, straight from the final scores."""
    scores = {s.seat: s.score for s in game.seats.all()}
    return sum(
        1.0 if scores[seat] > scores[o] else 0.5 if scores[seat] == scores[o] else 0.0
        for o in others
    )


def test_resignation_rates_both_players():
    game = make_game()
    play_round(game)
    loser, winner = user_at(game, 2), user_at(game, 1)
    game_services.game_resign(game_id=game.pk, user=loser)

    rows = rows_of(game)
    assert (rows[1].before, rows[1].after, rows[1].delta) == (1500.0, 1520.0, 20.0)
    assert (rows[2].before, rows[2].after, rows[2].delta) == (1500.0, 1480.0, -20.0)
    assert (rows[1].result, rows[2].result) == ("win", "loss")
    assert all(r.counted and r.reason == Reason.RATED and r.k == 40 for r in rows.values())
    assert rows[2].out
    assert rows[1].at == finished(game).finished_at
    win, loss = rating_of(winner), rating_of(loser)
    assert (win.rating, win.peak, win.games, win.wins, win.losses) == (1520.0, 1520.0, 1, 1, 0)
    assert (loss.rating, loss.peak, loss.games, loss.wins, loss.losses) == (1480.0, 1500.0, 1, 0, 1)
    assert loss.provisional
    marker = RatedGame.objects.get(game=game)
    assert (marker.counted, marker.reason, marker.pool) == (True, Reason.RATED, "ffa")


def test_second_game_starts_from_the_first_games_ratings():
    a, b = UserFactory(), UserFactory()
    for resigner in (b, b):
        game = make_game(users=[a, b])
        play_round(game)
        game_services.game_resign(game_id=game.pk, user=resigner)
    rows = rows_of(game)
    # 1520 vs 1480: E(a) = 1 / (1 + 10^(−40/400)) = 0.557312; a gains 40 × 0.442688.
    assert rows[1].before == 1520.0
    assert rows[1].delta == pytest.approx(17.7075, abs=1e-4)
    assert rows[2].delta == pytest.approx(-17.7075, abs=1e-4)
    assert rating_of(a).rating == pytest.approx(1537.7075, abs=1e-4)
    assert (rating_of(a).games, rating_of(a).wins) == (2, 2)


def test_full_two_player_game_is_decided_by_score():
    game = finished(play_to_end(make_game()))
    scores = {s.seat: s.score for s in game.seats.all()}
    s1 = duel_points(game, 1, [2])
    rows = rows_of(game)
    assert rows[1].delta == pytest.approx(40 * (s1 - 0.5))
    assert rows[2].delta == pytest.approx(40 * (0.5 - s1))
    assert (rows[1].score, rows[2].score) == (scores[1], scores[2])
    assert not rows[1].out


def test_full_three_player_game():
    game = finished(play_to_end(make_game(players=3)))
    rows = rows_of(game)
    for seat in (1, 2, 3):
        others = [o for o in (1, 2, 3) if o != seat]
        # All at 1500 with K 40: change = 40 / 2 × Σ (S − ½)
        expected = 20 * (duel_points(game, seat, others) - 1)
        assert rows[seat].delta == pytest.approx(expected)
        assert rows[seat].counted
    assert sum(r.delta for r in rows.values()) == pytest.approx(0)


def test_four_player_game_with_a_hinted_player():
    game = finished(play_to_end(make_game(players=4), hint_seats=frozenset({3})))
    rows = rows_of(game)
    assert game.seats.get(seat=3).hinted
    hinted = rows[3]
    assert (hinted.counted, hinted.reason, hinted.delta, hinted.before, hinted.after) == (
        False,
        Reason.HINT,
        0.0,
        1500.0,
        1500.0,
    )
    assert hinted.result == ""
    assert rating_of(user_at(game, 3)) is None  # unchanged, and no rating row made for them
    for seat in [1, 2, 4]:
        # Rated against every other person, the hinter included: K / (n - 1) with n = 4.
        others = [o for o in [1, 2, 3, 4] if o != seat]
        expected = 40 / 3 * (duel_points(game, seat, others) - 1.5)
        assert rows[seat].delta == pytest.approx(expected)
        assert rows[seat].reason == Reason.RATED


def test_full_team_game():
    game = finished(play_to_end(make_game(players=4, mode="teams")))
    team_of = {s.seat: s.team for s in game.seats.all()}
    sums = {t: sum(s.score for s in game.seats.all() if s.team == t) for t in (1, 2)}
    rows = rows_of(game)
    for seat, row in rows.items():
        own, other = team_of[seat], 3 - team_of[seat]
        s = 1.0 if sums[own] > sums[other] else 0.5 if sums[own] == sums[other] else 0.0
        assert row.delta == pytest.approx(40 * (s - 0.5))  # equal team means: E = ½
        assert row.pool == "teams"
        assert row.team == own
        rating = rating_of(row.user, "teams")
        assert (rating.wins, rating.draws, rating.losses) == (
            int(s == 1.0),
            int(s == 0.5),
            int(s == 0.0),
        )
        assert rating_of(row.user, "ffa") is None


def test_team_with_a_resigned_member_loses():
    game = make_game(players=4, mode="teams")
    play_round(game)
    quitter = user_at(game, 2)
    game_services.game_resign(game_id=game.pk, user=quitter)
    game = finished(play_to_end(game))  # a bot plays seat 2 to the end
    losing_team = game.seats.get(seat=2).team
    rows = rows_of(game)
    for row in rows.values():
        assert row.delta == (-20.0 if row.team == losing_team else 20.0)
        assert row.counted
    assert rows[2].out


def test_team_of_hinters_still_counts_for_the_other_team():
    game = make_game(players=4, mode="teams")
    team_of = {s.seat: s.team for s in game.seats.all()}
    hint_seats = frozenset(seat for seat, team in team_of.items() if team == 1)
    game = finished(play_to_end(game, hint_seats=hint_seats))
    sums = {t: sum(s.score for s in game.seats.all() if s.team == t) for t in (1, 2)}
    s2 = 1.0 if sums[2] > sums[1] else 0.5 if sums[2] == sums[1] else 0.0
    rows = rows_of(game)
    for seat, row in rows.items():
        if seat in hint_seats:
            assert (row.counted, row.reason, row.delta) == (False, Reason.HINT, 0.0)
        else:
            assert (row.counted, row.reason) == (True, Reason.RATED)
            assert row.delta == pytest.approx(40 * (s2 - 0.5))  # equal team means
    assert RatedGame.objects.get(game=game).reason == Reason.RATED
    assert not Rating.objects.filter(user__in=[user_at(game, s) for s in hint_seats]).exists()


@pytest.mark.parametrize(
    ("people", "reason"),
    [
        ([(1, 1, False), (3, 1, False)], Reason.TOO_FEW),  # people on one team only
        ([(1, 1, True), (2, 2, False)], Reason.RATED),
        ([(1, 1, True), (2, 2, True)], Reason.HINT),
        ([(1, 1, False)], Reason.TOO_FEW),
    ],
)
def test_team_assessment(people, reason):
    assessment = services.assess(
        mode="teams",
        rated=True,
        every_player_moved=True,
        people=[services.Person(seat=s, team=t, hinted=h) for s, t, h in people],
    )
    assert assessment.reason == reason


def test_casual_game_records_history_only():
    game = make_game(rated=False)
    play_round(game)
    game_services.game_resign(game_id=game.pk, user=user_at(game, 1))
    rows = rows_of(game)
    assert [(r.counted, r.reason, r.delta) for r in rows.values()] == [
        (False, Reason.CASUAL, 0.0),
        (False, Reason.CASUAL, 0.0),
    ]
    assert not Rating.objects.exists()


def test_game_against_a_bot_has_too_few_rated_players():
    game = make_game(bots=[(2, "easy")])
    person = user_at(game, 1)
    play_round(game)
    game_services.game_resign(game_id=game.pk, user=person)
    rows = rows_of(game)
    assert list(rows) == [1]  # bots have no history and no rating
    assert (rows[1].counted, rows[1].reason) == (False, Reason.TOO_FEW)
    assert not Rating.objects.exists()


def test_bots_do_not_count_but_two_people_do():
    game = make_game(players=3, bots=[(3, "medium")])
    play_round(game)
    game_services.game_resign(game_id=game.pk, user=user_at(game, 1))
    game_services.game_resign(game_id=game.pk, user=user_at(game, 2))  # no person left: over
    rows = rows_of(game)
    assert sorted(rows) == [1, 2]
    # Both are out: they compare by score.
    s1 = duel_points(finished(game), 1, [2])
    assert rows[1].delta == pytest.approx(40 * (s1 - 0.5))
    assert all(r.counted for r in rows.values())


def test_hint_then_resign_does_not_void_the_opponents_win():
    game = make_game()
    play_turn(game.pk, hint=True)
    play_turn(game.pk)
    hinter, opponent = user_at(game, 1), user_at(game, 2)
    game_services.game_resign(game_id=game.pk, user=hinter)
    rows = rows_of(game)
    assert (rows[1].reason, rows[2].reason) == (Reason.HINT, Reason.RATED)
    assert (rows[1].counted, rows[1].delta) == (False, 0.0)
    assert (rows[2].counted, rows[2].delta, rows[2].result) == (True, 20.0, "win")
    assert rating_of(opponent).rating == 1520.0
    assert rating_of(hinter) is None


def test_hinter_is_rated_against_at_their_own_rating():
    strong, weak = UserFactory(), UserFactory()
    Rating.objects.create(user=strong, pool="ffa", rating=1900.0, peak=1900.0, games=30)
    game = make_game(users=[strong, weak])
    play_turn(game.pk, hint=True)  # the strong player asks for a hint, then resigns
    play_turn(game.pk)
    game_services.game_resign(game_id=game.pk, user=strong)
    weak_row = rows_of(game)[2]
    expected_score = 1 / (1 + 10 ** ((1900 - 1500) / 400))
    assert weak_row.delta == pytest.approx(40 * (1 - expected_score))
    assert Rating.objects.get(user=strong, pool="ffa").rating == 1900.0


def test_both_hinted_changes_nobody():
    game = make_game()
    play_turn(game.pk, hint=True)
    play_turn(game.pk, hint=True)
    game_services.game_resign(game_id=game.pk, user=user_at(game, 1))
    rows = rows_of(game)
    assert [(r.counted, r.reason) for r in rows.values()] == [
        (False, Reason.HINT),
        (False, Reason.HINT),
    ]
    assert not Rating.objects.exists()


@pytest.mark.parametrize("moves_before_resigning", [0, 1])
def test_game_aborted_before_everyone_moved_does_not_count(moves_before_resigning):
    game = make_game()
    for _ in range(moves_before_resigning):
        play_turn(game.pk)
    game_services.game_resign(game_id=game.pk, user=user_at(game, 2))
    rows = rows_of(game)
    assert [(r.counted, r.reason) for r in rows.values()] == [
        (False, Reason.ABORTED),
        (False, Reason.ABORTED),
    ]
    assert not Rating.objects.exists()


def test_uncounted_rows_show_the_current_rating():
    a, b = UserFactory(), UserFactory()
    game = make_game(users=[a, b])
    play_round(game)
    game_services.game_resign(game_id=game.pk, user=b)
    casual = make_game(users=[a, b], rated=False)
    play_round(casual)
    game_services.game_resign(game_id=casual.pk, user=a)
    rows = rows_of(casual)
    assert (rows[1].before, rows[1].after) == (1520.0, 1520.0)
    assert (rows[2].before, rows[2].after) == (1480.0, 1480.0)


def test_a_game_is_never_rated_twice():
    game = make_game()
    play_round(game)
    game_services.game_resign(game_id=game.pk, user=user_at(game, 2))
    outcome = game_outcome(finished(game))

    rate_finished_game(sender=Game, outcome=outcome)
    game_finished.send(sender=Game, outcome=outcome)
    assert services.game_rate(outcome=outcome) is None

    assert RatedGame.objects.count() == 1
    assert RatingChange.objects.filter(game=game).count() == 2
    assert rating_of(user_at(game, 1)).rating == 1520.0
    assert rating_of(user_at(game, 1)).games == 1


def test_k_drops_to_twenty_after_twenty_counted_games():
    a, b = UserFactory(), UserFactory()
    for number in range(21):
        game = make_game(users=[a, b])
        play_round(game)
        game_services.game_resign(game_id=game.pk, user=b if number % 3 else a)
        rating = rating_of(a)
        assert rating.games == number + 1
        assert rating.provisional == (number + 1 < 20)
    rows = list(RatingChange.objects.filter(user=a).order_by("at", "game_id"))
    assert [r.k for r in rows] == [40] * 20 + [20]
    last = rows[-1]
    opponent_before = RatingChange.objects.get(user=b, game_id=last.game_id).before
    # a won the 21st game (20 is not a multiple of 3): K 20 × (1 − E).
    expected = 20 * (1 - 1 / (1 + 10 ** ((opponent_before - last.before) / 400)))
    assert last.delta == pytest.approx(expected)
    assert rating_of(a).rating + rating_of(b).rating == pytest.approx(3000)

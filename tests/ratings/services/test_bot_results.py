"""A bot's results against the people of a finished game, stored by ``game_rate`` in the
finishing transaction: what each bot level's performance is computed from. They change nobody's
rating (RULES.md, "Hints, ratings")."""

import pytest

from games import services as game_services
from games.engine.outcome import compare
from games.models import Game
from ratings import services
from ratings.models import BotResult, Rating
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.ratings.factories import RatingFactory
from tests.ratings.play import play_round

pytestmark = pytest.mark.django_db


def results(game: Game) -> list[tuple]:
    return [
        (r.level, r.pool, r.bot_seat, r.against, r.opponent_rating, r.score)
        for r in BotResult.objects.filter(rated_game__game=game).order_by("bot_seat", "against")
    ]


def test_a_casual_game_against_a_bot_gives_the_bot_its_result_at_the_persons_rating():
    person = UserFactory()
    RatingFactory(user=person, pool="ffa", rating=1612.5)
    game = make_game(users=[person], bots=[(2, "expert")], rated=False)
    play_round(game)
    game_services.game_resign(game_id=game.pk, user=person)

    assert results(game) == [("expert", "ffa", 2, 1, 1612.5, 1.0)]
    row = BotResult.objects.get()
    assert row.at == Game.objects.get(pk=game.pk).finished_at
    # Nobody's rating moved: the person's stays, and a bot has none.
    assert Rating.objects.get(user=person).rating == 1612.5
    assert Rating.objects.count() == 1


def test_in_free_for_all_a_bot_has_one_result_per_person_and_none_against_bots():
    ana, bo = UserFactory(), UserFactory()
    RatingFactory(user=ana, pool="ffa", rating=1550.0, games=30)
    game = make_game(players=4, users=[ana, bo], bots=[(3, "hard"), (4, "easy")])
    play_round(game)
    game_services.game_resign(game_id=game.pk, user=ana)
    game_services.game_resign(game_id=game.pk, user=bo)  # no person left: the game ends

    # Both people resigned: each bot, still in, beat both of them, at their ratings going in.
    assert results(game) == [
        ("hard", "ffa", 3, 1, 1550.0, 1.0),
        ("hard", "ffa", 3, 2, 1500.0, 1.0),
        ("easy", "ffa", 4, 1, 1550.0, 1.0),
        ("easy", "ffa", 4, 2, 1500.0, 1.0),
    ]


def test_in_teams_a_bot_meets_the_other_teams_people_at_their_mean_rating():
    ana, bo = UserFactory(), UserFactory()
    RatingFactory(user=ana, pool="teams", rating=1700.0)
    RatingFactory(user=bo, pool="teams", rating=1400.0)
    game = make_game(players=4, mode="teams", users=[ana, bo], bots=[(3, "medium"), (4, "expert")])
    play_round(game)
    game_services.game_resign(game_id=game.pk, user=ana)
    game_services.game_resign(game_id=game.pk, user=bo)

    seats = {s.seat: s for s in Game.objects.get(pk=game.pk).seats.all()}
    rating = {1: 1700.0, 2: 1400.0}
    sums = {t: sum(s.score for s in seats.values() if s.team == t) for t in (1, 2)}
    out = {seats[1].team, seats[2].team}
    expected = []
    for seat, level in ((3, "medium"), (4, "expert")):
        team = seats[seat].team
        other = 2 if team == 1 else 1
        people = [rating[p] for p in (1, 2) if seats[p].team == other]
        if people:
            score = compare(team in out, sums[team], other in out, sums[other])
            expected.append((level, "teams", seat, other, sum(people) / len(people), score))
    assert expected  # the people are on one team or on both: some bot meets one of them
    assert results(game) == expected


def test_an_aborted_game_gives_no_result():
    person = UserFactory()
    game = make_game(users=[person], bots=[(2, "expert")])
    game_services.game_resign(game_id=game.pk, user=person)  # before anyone moved
    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED
    assert results(game) == []


def test_the_rebuild_writes_the_same_results_again():
    person = UserFactory()
    games = []
    for level in ("easy", "expert"):
        game = make_game(users=[person], bots=[(2, level)])
        play_round(game)
        game_services.game_resign(game_id=game.pk, user=person)
        games.append(game)
    before = [results(g) for g in games]
    BotResult.objects.all().delete()
    assert services.bot_results_rebuild() == 2
    assert [results(g) for g in games] == before
    assert services.bot_results_rebuild() == 2  # again: the same rows, not twice
    assert BotResult.objects.count() == 2

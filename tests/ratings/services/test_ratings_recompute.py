"""The replay of every rated game from 1500 (service and ``recompute_ratings`` command)."""

import importlib
from io import StringIO

import pytest
from django.apps import apps as django_apps
from django.core.management import call_command

from games import services as game_services
from ratings.models import RatedGame, Rating, RatingChange
from ratings.services import ratings_recompute
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.ratings.play import play_round, play_turn

pytestmark = pytest.mark.django_db


def quick_game(users, *, resigner, rated=True, hint=False):
    """A game where everyone moves once (the first player after a hint when ``hint``), then
    ``resigner`` resigns."""
    game = make_game(players=len(users), users=users, rated=rated)
    play_turn(game.pk, hint=hint)
    for _ in range(game.players - 1):
        play_turn(game.pk)
    game_services.game_resign(game_id=game.pk, user=resigner)
    return game


@pytest.fixture
def history():
    """A history with varied ratings: 2- and 3-player games, a casual and a hinted game."""
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    for resigner in (b, a, b, a, a, b):
        quick_game([a, b], resigner=resigner)
    quick_game([b, c], resigner=c)
    quick_game([a, c], resigner=a, rated=False)
    quick_game([c, a], resigner=a, hint=True)
    game = make_game(players=3, users=[a, b, c])
    play_round(game)
    game_services.game_resign(game_id=game.pk, user=a)
    game_services.game_resign(game_id=game.pk, user=b)  # 3 players: over when one is left
    return a, b, c


def command(*args: str) -> str:
    out = StringIO()
    call_command("recompute_ratings", *args, stdout=out)
    return out.getvalue()


def test_replay_reproduces_stored_ratings(history):
    report = ratings_recompute()
    assert report.differences == []
    assert (report.games, report.counted_games) == (10, 9)
    assert "Replayed 10 games (9 counted): 0 differences; stored ratings match." in command()
    assert len({round(r.rating, 6) for r in Rating.objects.all()}) == 3  # really varied


def test_replay_detects_and_fixes_a_tampered_rating(history):
    a, _b, _c = history
    rating = Rating.objects.get(user=a, pool="ffa")
    true_rating, true_wins = rating.rating, rating.wins
    Rating.objects.filter(pk=rating.pk).update(rating=true_rating + 1, wins=true_wins + 1)

    output = command()
    assert f"{a.username} (ffa, current rating): rating is {true_rating + 1!r}" in output
    assert f"replay gives {true_rating!r}" in output
    assert f"wins is {true_wins + 1}, replay gives {true_wins}" in output
    assert "2 differences; run with --fix to repair." in output
    assert Rating.objects.get(pk=rating.pk).rating == true_rating + 1  # reported, not changed

    assert "2 differences, fixed." in command("--fix")
    rating.refresh_from_db()
    assert (rating.rating, rating.wins) == (true_rating, true_wins)
    assert "0 differences" in command()


def test_replay_detects_a_tampered_history_row(history):
    a, _b, _c = history
    row = RatingChange.objects.filter(user=a, counted=True).order_by("at", "game_id")[2]
    RatingChange.objects.filter(pk=row.pk).update(after=row.after + 5)
    output = command()
    assert f"{a.username} (ffa, game {row.game_id}): after is {row.after + 5!r}" in output
    command("--fix")
    assert RatingChange.objects.get(pk=row.pk).after == row.after
    assert ratings_recompute().differences == []


def test_replay_recreates_a_missing_rating(history):
    _a, _b, c = history
    expected = Rating.objects.get(user=c, pool="ffa")
    expected_values = (expected.rating, expected.peak, expected.games, expected.wins)
    expected.delete()
    report = ratings_recompute(fix=True)
    assert {d.field for d in report.differences} == {
        "rating",
        "peak",
        "games",
        "wins",
        "draws",
        "losses",
    }
    fixed = Rating.objects.get(user=c, pool="ffa")
    assert (fixed.rating, fixed.peak, fixed.games, fixed.wins) == expected_values


def test_a_game_replayed_in_another_order_shows_up(history):
    """Ratings depend on the order of games: moving a game's finish time is a difference."""
    a, _b, _c = history
    first = RatingChange.objects.filter(user=a, counted=True).order_by("at", "game_id").first()
    last = RatingChange.objects.filter(user=a, counted=True).order_by("at", "game_id").last()
    RatingChange.objects.filter(game_id=first.game_id).update(at=last.at)
    RatedGame.objects.filter(pk=first.rated_game_id).update(at=last.at)
    assert ratings_recompute().differences != []


def test_replay_applies_the_hint_rule_to_games_stored_under_the_old_one(history):
    """Before the hint rule was fixed, a hinter's opponent got ``too_few_rated_players``; the
    replay (run by a data migration) rates them against the hinter and moves later games on."""
    hinted = RatedGame.objects.get(changes__reason="hint")
    truth = {
        "ratings": {(r.user_id, r.pool): r.rating for r in Rating.objects.all()},
        "rows": {r.pk: (r.after, r.counted, r.reason) for r in RatingChange.objects.all()},
    }
    RatedGame.objects.filter(pk=hinted.pk).update(counted=False, reason="too_few_rated_players")
    opponent = hinted.changes.exclude(reason="hint").get()
    RatingChange.objects.filter(pk=opponent.pk).update(
        counted=False,
        reason="too_few_rated_players",
        after=opponent.before,
        delta=0.0,
        k=None,
        result="",
    )
    report = ratings_recompute()
    fields = {d.field for d in report.differences if d.game_id == hinted.game_id}
    assert {"counted", "reason", "after", "delta", "k", "result"} <= fields

    # What migration ratings/0002 runs once on an existing site.
    migration = importlib.import_module("ratings.migrations.0002_replay_under_the_hint_rule")
    migration.replay(django_apps, None)
    assert ratings_recompute().differences == []
    hinted.refresh_from_db()
    assert (hinted.counted, hinted.reason) == (True, "rated")
    assert {r.pk: (r.after, r.counted, r.reason) for r in RatingChange.objects.all()} == truth[
        "rows"
    ]
    assert {(r.user_id, r.pool): r.rating for r in Rating.objects.all()} == truth["ratings"]


def test_empty_database():
    assert "Replayed 0 games (0 counted): 0 differences" in command()

"""Factories for ratings rows, for page and API tests that need many players on a board.
Games themselves are rated by playing them (``tests.ratings.play``)."""

import factory
from django.utils import timezone

from ratings.models import BotResult, RatedGame, Rating, Reason
from tests.factories import UserFactory
from tests.games.factories import make_game


class RatingFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Rating

    user = factory.SubFactory(UserFactory)
    pool = "ffa"
    rating = factory.Sequence(lambda n: 1700.0 - n)
    peak = factory.LazyAttribute(lambda r: max(r.rating, 1500.0))
    games = 25
    wins = 10
    draws = 5
    losses = 10


def bot_game(level: str, duels: list[tuple[float, float]], pool: str = "ffa") -> RatedGame:
    """A finished game (as ratings stored it) in which a bot of ``level`` had these results:
    (the person's rating, the bot's score)."""
    game = make_game(start=False)
    rated_game = RatedGame.objects.create(
        game=game, pool=pool, at=timezone.now(), counted=False, reason=Reason.CASUAL
    )
    for against, (rating, score) in enumerate(duels, start=1):
        BotResult.objects.create(
            rated_game=rated_game,
            pool=pool,
            level=level,
            bot_seat=len(duels) + 1,
            against=against,
            opponent_rating=rating,
            score=score,
            at=rated_game.at,
        )
    return rated_game

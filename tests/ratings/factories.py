"""Factories for ratings rows, for page and API tests that need many players on a board.
Games themselves are rated by playing them (``tests.ratings.play``)."""

import factory

from ratings.models import Rating
from tests.factories import UserFactory


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

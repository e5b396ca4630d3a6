"""Why a game did not count, said plainly: the leaderboard says that a player whose rated games
all had a hint is not listed, the profile puts the games left out beside those counted, and the
end banner's words name who asked for a hint."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from games.views import client_strings
from ratings.models import Rating
from tests.factories import UserFactory
from tests.ratings.play import hinted_game
from tests.ratings.test_views import page

pytestmark = pytest.mark.django_db

NOT_LISTED = (
    "A game in which a player asked for a hint does not count for them, so a player whose rated "
    "games all had a hint is not listed."
)


def test_a_player_who_always_hinted_is_not_listed_and_the_page_says_why(client):
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    hinted_game([ana, bo], bo, hinters={ana})
    hinted_game([ana, bo], bo, hinters={ana})
    html = page(client, reverse("leaderboard"))
    assert 'href="/users/bo/"' in html
    assert 'href="/users/ana/"' not in html
    assert NOT_LISTED in html
    assert not Rating.objects.filter(user=ana, games__gt=0).exists()
    profile = page(client, reverse("profile", args=["ana"]))
    assert "Hints in 2 of 2 rated games (100%). " in profile
    assert (
        "A game with a hint does not count for the player’s rating: 2 games left out, 0 counted."
        in profile
    )


def test_the_profile_counts_add_up_to_the_rated_games(client):
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    for _ in range(4):
        hinted_game([ana, bo], bo)
    hinted_game([ana, bo], bo, hinters={ana})
    hinted_game([ana, bo], ana, hinters={ana})
    profile = page(client, reverse("profile", args=["ana"]))
    assert "Hints in 2 of 6 rated games (33%). " in profile
    assert "2 games left out, 4 counted." in profile
    counted = profile.split("Counted games</dt><dd>", 1)[1].split("</dd>", 1)[0]
    assert counted == "4"
    # A player without a hint gets no such sentence.
    assert "left out" not in page(client, reverse("profile", args=["bo"]))


@pytest.mark.parametrize("language", ["en", "es", "de", "it", "fr"])
def test_the_end_banners_hint_words_are_translated(language):
    with translation.override(language):
        words = client_strings()["hint_not_counted"]
    assert "%(names)s" in words
    if language != "en":
        assert "hint" not in words

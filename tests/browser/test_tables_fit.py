"""The site's wide tables on a 375×800 phone and at 1366×900, in English and German: the
tournament standings, the leaderboard and the profile's rating history fit the screen (no
sideways scroll of the page); a table that must still scroll says so in words."""

from __future__ import annotations

import pytest

from games import services as game_services
from games.models import Game
from tests.browser.conftest import DESKTOP, PHONE, off_the_loop
from tests.browser.helpers import running_swiss
from tests.factories import UserFactory
from tests.ratings.play import resigned_game
from tournaments.models import Pairing

NAMES = ["alice", "a-rather-long-username", "bartholomew", "cy"]


def _people_with_history(player):
    """Four people with rated games against each other (a rating history, a leaderboard) and a
    Swiss tournament whose first round is over (standings with Buchholz and seats)."""
    others = [UserFactory(username=name) for name in NAMES[1:]]
    people = [player, *others]
    for index, one in enumerate(people):
        for other in people[index + 1 :]:
            resigned_game([one, other], other)
    tournament = running_swiss(people, 3)
    for pairing in Pairing.objects.filter(tournament=tournament, round__number=1):
        game = pairing.game
        if game is not None and game.status == Game.Status.ACTIVE:
            loser = game.seats.order_by("seat").last().user
            game_services.game_resign(game_id=game.pk, user=loser)
    return tournament


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize(("width", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_the_wide_tables_fit_the_screen(pages, player, screenshot, language, width, viewport):
    tournament = off_the_loop(_people_with_history, player)
    page = pages.open(player, viewport=viewport, language=language)
    for name, url, table in [
        ("standings", f"/tournaments/{tournament.pk}/", "table.tournament-standings"),
        ("leaderboard", "/leaderboard/", "table.leaderboard"),
        ("rating-history", f"/users/{player.username}/", "table.history"),
    ]:
        page.goto(url)
        page.wait_for_load_state("load")
        page.wait_for_selector(table)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        sizes = page.evaluate(
            f"""() => {{
              const table = document.querySelector('{table}');
              return [table.scrollWidth, table.parentElement.clientWidth];
            }}"""
        )
        assert overflow <= 1, f"{url} is {overflow}px wider than the {width} screen"
        # Nothing to scroll sideways inside the table's box either: on phones the rows fold.
        assert sizes[0] <= sizes[1] + 1, f"the {name} table is {sizes[0]}px in {sizes[1]}px"
        page.locator(table).scroll_into_view_if_needed()
        screenshot(page, f"table-{name}-{width}-{language}")

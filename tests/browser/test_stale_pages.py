"""Pages that never go stale, in a real browser: a player opens his round-1 game a moment after it
was forfeited; the page he gets is the one from just before (his turn, the clock at 0:00) and the
socket loses the frame that would have told him. The page checks its version itself (after the
deadline), shows that the game is over, and the next round's banner leads him to round 2's game.
A player withdrawn for missed games is told why on the tournament page and rejoins there.
Screenshots at 1366×900 and 375×800 go to ``screenshots/stale-*.png``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games import services as games
from games.models import Game, Seat
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, DESKTOP, PHONE, Pages, off_the_loop
from tests.browser.helpers import game_of_round, running_swiss
from tests.factories import UserFactory
from tests.games.services.helpers import play_best_turn
from tournaments import services
from tournaments.models import Pairing, Tournament, TournamentPlayer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
WAIT_MS = 20_000  # the forfeit's task, round 2's pairing and its push, on two shared cores


def _seat_user(game_id: int, seat: int) -> Any:
    return Seat.objects.select_related("user").get(game_id=game_id, seat=seat).user


def _deadline_passed(game_id: int) -> None:
    """The first turn's time ran out a moment ago (the sweep has not been by yet)."""
    Game.objects.filter(pk=game_id).update(deadline=timezone.now() - timedelta(seconds=1))


def _forfeit(game_id: int) -> None:
    """The timeout sweep decides: the player to move forfeits (round 2 is paired after it)."""
    games.game_turn_timeouts_expire(now=timezone.now())


def _lose_state_frames_until_a_version_check(context: Any, game_id: int) -> list[int]:
    """The game socket loses its ``state`` frames (a proxy's hiccup, a sleeping tab) until the page
    asks with its version; gives the versions lost."""
    lost: list[int] = []
    checking = [False]

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def from_page(message: Any) -> None:
            if isinstance(message, str) and '"version"' in message:
                checking[0] = True
            server.send(message)

        def from_server(message: Any) -> None:
            frame = json.loads(message) if isinstance(message, str) else {}
            if frame.get("type") == "state" and not checking[0]:
                lost.append(frame["version"])
                return
            ws.send(message)

        ws.on_message(from_page)
        server.on_message(from_server)

    context.route_web_socket(f"**/ws/games/{game_id}/", route)
    return lost


@pytest.fixture
def stale_pages(browser: Any, live_server_url: str) -> Iterator[Pages]:
    """Pages of a Chromium that lets a page served by the test (``route.fulfill``: no address of
    its own, so "public" to Chromium) open sockets to the local server."""
    launched = browser.browser_type.launch(
        executable_path=CHROMIUM,
        args=[*CHROMIUM_ARGS, "--disable-features=LocalNetworkAccessChecks"],
        headless=True,
    )
    opened = Pages(launched, live_server_url)
    yield opened
    opened.close()
    launched.close()
    assert not opened.errors, "JavaScript errors:\n" + "\n".join(opened.errors)


def test_a_game_page_opened_just_after_its_forfeit_shows_the_end_and_leads_to_round_2(
    stale_pages, screenshot
):
    pages = stale_pages
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    tournament = off_the_loop(running_swiss, [ana, bo], 3)
    first = off_the_loop(game_of_round, tournament.pk, 1)
    absent = off_the_loop(_seat_user, first, 1)
    other = bo if absent == ana else ana
    page = pages.open(absent)
    lost = _lose_state_frames_until_a_version_check(page.context, first)

    # The page he gets was rendered just before the forfeit: his turn, its clock at 0:00.
    off_the_loop(_deadline_passed, first)
    stale = page.context.request.get(f"/games/{first}/").text()
    off_the_loop(_forfeit, first)
    assert off_the_loop(lambda: Game.objects.get(pk=first).status) == Game.Status.FINISHED
    page.route(
        f"**/games/{first}/",
        lambda route: route.fulfill(body=stale, content_type="text/html; charset=utf-8"),
        times=1,
    )
    page.goto(f"/games/{first}/")
    expect(page.locator("#game-page")).to_be_visible()
    expect(page.locator("#clock")).to_have_text("0:00")
    screenshot(page, "stale-game-page-desktop")

    # Its own check after the deadline brings the state the socket lost: the game is over, and
    # the page of the finished game leads to round 2.
    expect(page.locator("#replay-page")).to_be_visible(timeout=WAIT_MS)
    assert lost, "the socket's state frames were not lost: the test proves nothing"
    expect(page.locator("#game-page")).to_have_count(0)
    expect(page.locator("#back-to-tournament")).to_be_visible()
    expect(page.locator("#next-game")).to_contain_text(
        f"Round 2: your game against {other.username}", timeout=WAIT_MS
    )
    screenshot(page, "stale-finished-game-next-round-desktop")
    second = off_the_loop(game_of_round, tournament.pk, 2)
    assert second is not None
    assert second != first
    page.wait_for_url(f"**/games/{second}/", timeout=WAIT_MS)
    expect(page.locator("#game-page")).to_be_visible()


def _games_of_round(tournament_id: int, number: int) -> list[int]:
    pairings = Pairing.objects.filter(tournament_id=tournament_id, round__number=number)
    return sorted(set(pairings.exclude(game=None).values_list("game_id", flat=True)))


def _withdrawn_for_missed_games(users: list[Any]) -> tuple[Tournament, Any]:
    """A Swiss of four rounds and four players where one missed round 1's and round 2's games
    (the others play theirs: resigned)."""
    tournament = running_swiss(users, 4)
    absent = _seat_user(_games_of_round(tournament.pk, 1)[0], 1)
    for number in (1, 2):
        ids = _games_of_round(tournament.pk, number)
        [mine] = [g for g in ids if Seat.objects.filter(game_id=g, user=absent).exists()]
        for other in ids:
            if other != mine:
                games.game_resign(game_id=other, user=_seat_user(other, 1))
                services.tournament_game_ended(game_id=other)
        if Seat.objects.get(game_id=mine, user=absent).seat == 2:
            play_best_turn(Game.objects.get(pk=mine))  # the other shows up; he does not
        _deadline_passed(mine)
        _forfeit(mine)
        services.tournament_game_ended(game_id=mine)
    assert TournamentPlayer.objects.get(tournament=tournament, user=absent).withdrawn
    return tournament, absent


@pytest.mark.parametrize(("width", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_a_player_withdrawn_for_missed_games_is_told_why_and_rejoins(
    pages, screenshot, width, viewport
):
    users = [UserFactory(username=name) for name in ("ana", "bo", "cy", "di")]
    tournament, absent = off_the_loop(_withdrawn_for_missed_games, users)
    page = pages.open(absent, viewport=viewport)
    page.goto(f"/tournaments/{tournament.pk}/")
    note = page.locator("#withdrawn-note")
    expect(note).to_contain_text("You were withdrawn: you missed two games in a row")
    expect(page.get_by_text("You withdrew from this tournament.")).to_have_count(0)
    note.scroll_into_view_if_needed()
    screenshot(page, f"stale-withdrawn-note-{width}")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the page is {overflow}px wider than the {width} screen"
    page.locator("#rejoin-button").click()
    expect(page.locator(".messages")).to_contain_text("You joined the tournament.")
    expect(page.locator("#withdrawn-note")).to_have_count(0)
    screenshot(page, f"stale-rejoined-{width}")
    assert not off_the_loop(
        lambda: TournamentPlayer.objects.get(tournament=tournament, user=absent).withdrawn
    )

"""The home page: its selectors (what waits for you, live games, next tournaments, leaders), the
number of queries whatever the data, and the page for visitors and players."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games import services
from games.engine.search import best_turn
from games.models import Game
from games.selectors import game_get, games_listed, games_waiting_for, position_of
from learn.models import DailyPuzzle
from pages import selectors
from ratings.models import Rating
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.learn.test_puzzles import _small_puzzle
from tests.tournaments.factories import make_tournament
from tournaments import services as tournament_services
from tournaments.models import Visibility
from tournaments.selectors import tournaments_upcoming

pytestmark = pytest.mark.django_db


def rated(user, rating: float, *, pool: str = "ffa", games: int = 20):
    Rating.objects.create(user=user, pool=pool, rating=rating, peak=rating, games=games)
    return user


def play_turn(game: Game) -> Game:
    """The player to move plays the engine's best turn."""
    game = game_get(game.pk)
    user = game.seat_to_move().user
    move = best_turn(position_of(game)).turn
    services.game_move_make(game_id=game.pk, user=user, move=str(move), ply=game.ply)
    return game_get(game.pk)


# -- what waits for a player ---------------------------------------------------------------


def test_waiting_are_the_games_where_it_is_your_turn_and_your_open_games():
    alice = UserFactory(username="alice")
    your_turn = make_game(users=[alice, UserFactory()])  # seat 1 moves first
    their_turn = play_turn(make_game(users=[alice, UserFactory()]))
    open_game = services.game_create(user=alice, players=2)
    someone_elses = make_game()
    finished = make_game(users=[alice, UserFactory()])
    services.game_resign(game_id=finished.pk, user=alice)

    waiting = games_waiting_for(alice.pk, limit=10)

    assert [g.pk for g in waiting] == [your_turn.pk, open_game.pk]
    assert their_turn.pk not in {g.pk for g in waiting}
    assert someone_elses.pk not in {g.pk for g in waiting}


def test_a_seat_out_of_its_game_waits_for_nobody():
    alice, bob, carol = UserFactory(), UserFactory(), UserFactory()
    game = make_game(players=3, users=[alice, bob, carol])
    services.game_resign(game_id=game.pk, user=alice)  # a bot now plays seat 1
    assert games_waiting_for(alice.pk, limit=10) == []


def test_waiting_puts_the_nearest_deadline_first_and_is_bounded():
    alice = UserFactory()
    slow = make_game(users=[alice, UserFactory()], turn_seconds=86400)
    quick = make_game(users=[alice, UserFactory()], turn_seconds=60)
    assert [g.pk for g in games_waiting_for(alice.pk, limit=10)] == [quick.pk, slow.pk]
    assert [g.pk for g in games_waiting_for(alice.pk, limit=1)] == [quick.pk]


# -- ratings beside names --------------------------------------------------------------------


def test_listed_games_carry_each_persons_rating_and_none_for_bots():
    alice = rated(UserFactory(), 1612.6)
    newcomer = UserFactory()
    game = make_game(players=3, users=[alice, newcomer], bots=[(3, "easy")])
    (row,) = games_listed([game])
    assert [(s.seat.seat, s.rating) for s in row.seats] == [(1, 1613), (2, 1500), (3, None)]
    assert row.turn_time == "2 minutes"


def test_listed_games_read_the_ratings_of_their_own_pool():
    alice = rated(rated(UserFactory(), 1700), 1400, pool="teams")
    others = [UserFactory() for _ in range(3)]
    teams = make_game(players=4, mode="teams", users=[alice, *others])
    ffa = make_game(users=[alice, UserFactory()])
    rows = {row.game.pk: row for row in games_listed([teams, ffa])}
    assert rows[teams.pk].seats[0].rating == 1400
    assert rows[ffa.pk].seats[0].rating == 1700


def test_listed_games_read_ratings_in_one_query_per_pool(django_assert_num_queries):
    games = [make_game(players=3) for _ in range(4)]
    loaded = list(Game.objects.filter(pk__in=[g.pk for g in games]).prefetch_related("seats"))
    with django_assert_num_queries(1):
        rows = games_listed(loaded)
    assert all(seat.rating == 1500 for row in rows for seat in row.seats)


# -- next tournaments ------------------------------------------------------------------------


def test_upcoming_tournaments_soonest_first_public_only_with_counts_and_joined():
    alice = UserFactory()
    make_tournament(players=2, name="Later", starts_in=timedelta(hours=5))
    sooner = make_tournament(players=[alice], name="Sooner", starts_in=timedelta(hours=1))
    make_tournament(name="Secret", visibility=Visibility.INVITE, starts_in=timedelta(hours=2))
    make_tournament(players=2, name="Full", max_players=2, starts_in=timedelta(hours=3))

    rows = tournaments_upcoming(viewer=alice, limit=5)

    assert [r.tournament.name for r in rows] == ["Sooner", "Full", "Later"]
    by_name = {r.tournament.name: r for r in rows}
    assert (by_name["Sooner"].count, by_name["Sooner"].joined) == (1, True)
    assert (by_name["Later"].count, by_name["Later"].joined) == (2, False)
    assert by_name["Full"].full
    assert not by_name["Later"].full
    assert [r.tournament.pk for r in tournaments_upcoming(viewer=alice, limit=1)] == [sooner.pk]


def test_upcoming_tournaments_for_a_visitor_joined_nothing():
    from django.contrib.auth.models import AnonymousUser

    make_tournament(players=2)
    (row,) = tournaments_upcoming(viewer=AnonymousUser(), limit=3)
    assert (row.count, row.joined) == (2, False)


# -- the home page's selector and its query count --------------------------------------------


def _busy_site(scale: int, alice) -> None:
    """``scale`` of everything the home page lists."""
    for _ in range(scale):
        game = make_game(players=3, users=[rated(UserFactory(), 1550), UserFactory()])
        play_turn(game)
        make_game(users=[alice, UserFactory()])
        make_tournament(players=scale)
        rated(UserFactory(), 1500 + 10 * scale)
    services.game_create(user=alice, players=2)


@pytest.mark.parametrize("signed_in", [True, False])
def test_the_home_page_costs_the_same_queries_however_busy_the_site(client, signed_in):
    from django.contrib.auth.models import AnonymousUser

    alice = UserFactory(username="alice")
    if signed_in:
        client.force_login(alice)
    _small_puzzle()
    client.get("/")  # the first request of the day chooses the daily puzzle
    counts = []
    for scale in (1, 6):
        _busy_site(scale, alice)
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/").status_code == 200
        counts.append(len(queries))
        viewer = alice if signed_in else AnonymousUser()
        with CaptureQueriesContext(connection) as selector_queries:
            home = selectors.home_page(viewer=viewer)
        # live games and their seats, the ratings, the tournaments, the leaders (+ the waiting
        # games and their seats for a player)
        assert len(selector_queries) == (7 if signed_in else 5)
        under_way = Game.objects.filter(status=Game.Status.ACTIVE).count()
        assert len(home.live) == min(selectors.LIVE_GAMES, under_way)
    assert counts[0] == counts[1]
    # The selector's 5 or 7, the daily puzzle, and what every page's header costs (session, user,
    # notifications, the tournament banner).
    assert counts[1] <= 15, counts


def test_home_page_lists_what_is_happening_for_a_player(client):
    alice = rated(UserFactory(username="alice"), 1642)
    bob = rated(UserFactory(username="bob"), 1580, games=30)
    watched = play_turn(make_game(users=[UserFactory(username="carmen"), UserFactory()]))
    mine = make_game(users=[alice, bob])
    cup = make_tournament(players=1, name="Evening cup")
    puzzle = _small_puzzle()
    client.force_login(alice)

    home = selectors.home_page(viewer=alice)
    assert [row.game.pk for row in home.waiting] == [mine.pk]
    assert home.featured is not None
    assert home.featured.game.pk == watched.pk  # the newest is mine, but nothing is on its board
    assert [leader.user.username for leader in home.leaders] == ["alice", "bob"]

    page = client.get("/").content.decode()
    assert f'href="{reverse("game", args=[mine.pk])}"' in page
    assert "Your turn" in page
    assert f'aria-label="Watch game {watched.pk}"' in page
    assert f'action="{reverse("tournament_join", args=[cup.pk])}"' in page
    assert 'aria-label="Join Evening cup"' in page
    assert "(1642)" in page
    assert "(1580)" in page
    assert f'href="{reverse("puzzle", args=[puzzle.pk])}"' in page
    assert DailyPuzzle.objects.get(date=timezone.localdate()).puzzle == puzzle


def test_home_page_for_a_visitor_offers_to_log_in_to_join(client):
    cup = make_tournament(players=1, name="Evening cup")
    page = client.get("/").content.decode()
    assert "Waiting for you" not in page
    assert f"{reverse('login')}?next={reverse('tournament', args=[cup.pk])}" in page
    assert "No game is being played right now." in page


def test_joining_from_the_home_page_comes_back_to_it(client):
    alice = UserFactory()
    cup = make_tournament(name="Evening cup")
    client.force_login(alice)
    response = client.post(reverse("tournament_join", args=[cup.pk]), {"next": "/"}, follow=True)
    assert response.redirect_chain[-1][0] == "/"
    assert "You joined the tournament." in response.content.decode()
    assert 'aria-label="Leave Evening cup"' in response.content.decode()
    assert cup.players.filter(user=alice).exists()


def test_the_home_page_refuses_posts(client):
    assert client.post("/").status_code == 405


def test_joining_a_full_tournament_from_home_says_so(client):
    cup = make_tournament(players=1, max_players=2)
    late = UserFactory()
    tournament_services.tournament_join(tournament_id=cup.pk, user=UserFactory())
    client.force_login(late)
    response = client.post(reverse("tournament_join", args=[cup.pk]), {"next": "/"}, follow=True)
    assert "This tournament is full." in response.content.decode()

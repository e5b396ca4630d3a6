"""Turn clocks wait for the site (games.clock): a gap in the heartbeat is an outage, every running
turn gets it back, and no turn is decided late during one or within the grace after it. Time is
injected: the heartbeat is written at the instants a test gives (the gap a stopped database or
Redis leaves), and the deadlines are real rows."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.test import TestCase
from django.utils import timezone

from games import clock, services
from games.models import ClockOutage, Game, SiteClock
from ratings.models import RatedGame
from tests.games.factories import make_game
from tests.games.services.helpers import best_move, play_best_turn, seat_user

pytestmark = pytest.mark.django_db

SECOND = timedelta(seconds=1)
GAP = 4
GRACE = 15


@pytest.fixture(autouse=True)
def _heartbeat(settings):
    settings.SIESTA_HEARTBEAT = True
    settings.SIESTA_HEARTBEAT_SECONDS = 1.0
    settings.SIESTA_OUTAGE_GAP_SECONDS = GAP
    settings.SIESTA_OUTAGE_GRACE_SECONDS = GRACE


def beat_every_second(start: datetime, end: datetime) -> None:
    """The heartbeat of a healthy site from ``start`` to ``end``."""
    at = start
    while at <= end:
        services.site_heartbeat(now=at)
        at += SECOND


def outage(before: datetime, seconds: float) -> datetime:
    """The site beats up to ``before``, then nothing for ``seconds`` (a stopped database or
    Redis, a restart), then beats again: the first beat after. Returns its time."""
    beat_every_second(before - 3 * SECOND, before)
    after = before + timedelta(seconds=seconds)
    services.site_heartbeat(now=after)
    return after


def test_a_healthy_heartbeat_changes_no_clock():
    game = make_game(turn_seconds=30)
    now = timezone.now()
    beat_every_second(now, now + 10 * SECOND)
    assert Game.objects.get(pk=game.pk).deadline == game.deadline
    assert not ClockOutage.objects.exists()
    assert not clock.holds(now + 10 * SECOND)


def test_an_outage_extends_every_running_turn_by_its_length_in_one_update(
    django_assert_max_num_queries,
):
    games = [make_game(turn_seconds=30) for _ in range(3)]
    waiting_bot = make_game(bots=[(2, "medium")])
    play_best_turn(waiting_bot)  # a bot is to move: no deadline to extend
    now = timezone.now()
    beat_every_second(now - 3 * SECOND, now)
    with django_assert_max_num_queries(8):  # read, lock, list, update, record, save, savepoints
        extended_ids = clock.record_beat(now + 20 * SECOND)
    assert extended_ids is not None
    assert sorted(extended_ids.game_ids) == sorted(g.pk for g in games)
    [recorded] = ClockOutage.objects.all()
    assert (recorded.started_at, recorded.ended_at, recorded.games) == (now, now + 20 * SECOND, 3)
    for game in games:
        extended = Game.objects.get(pk=game.pk)
        assert extended.deadline == game.deadline + 20 * SECOND
        assert extended.version == game.version + 1
    assert Game.objects.get(pk=waiting_bot.pk).deadline is None


def test_the_first_beat_after_the_gap_returns_the_games_it_extended_and_only_it_does():
    game = make_game(turn_seconds=30)
    now = timezone.now()
    beat_every_second(now - 3 * SECOND, now)
    assert services.site_heartbeat(now=now + 56 * SECOND) == [game.pk]
    # every other process beats a moment later: nothing more is given back
    assert services.site_heartbeat(now=now + 56.2 * SECOND) == []
    assert services.site_heartbeat(now=now + 57 * SECOND) == []
    assert Game.objects.get(pk=game.pk).deadline == game.deadline + 56 * SECOND
    assert ClockOutage.objects.count() == 1


def test_a_beat_is_timed_once_the_database_answers(monkeypatch):
    """A beat that starts during an outage waits for a connection (the pool's wait can last the
    whole outage): it is timed after that wait, so it records the outage whole, not a piece of
    it ending when the wait began (found by tests/test_stack_outage.py, PostgreSQL cut)."""
    game = make_game(turn_seconds=30)
    now = timezone.now()
    beat_every_second(now - 3 * SECOND, now)
    wall = [now + SECOND]  # the next beat starts a second later, the database gone

    class Pool:
        @staticmethod
        def ensure_connection() -> None:
            wall[0] += 20 * SECOND  # a connection at last, 20 s later

    monkeypatch.setattr(services, "connection", Pool)
    monkeypatch.setattr(services, "_now", lambda: wall[0])
    assert services.site_heartbeat() == [game.pk]
    [recorded] = ClockOutage.objects.all()
    assert (recorded.started_at, recorded.ended_at) == (now, now + 21 * SECOND)
    assert Game.objects.get(pk=game.pk).deadline == game.deadline + 21 * SECOND


def test_a_turn_already_late_before_the_outage_is_not_extended():
    game = make_game(turn_seconds=30)
    assert game.deadline is not None
    late_by = game.deadline + 2 * SECOND
    after = outage(late_by, 20)
    assert Game.objects.get(pk=game.pk).deadline == game.deadline
    # decided once the grace has passed: the time ran out while the site could take the move
    past_grace = after + (GRACE + 1) * SECOND
    beat_every_second(after, past_grace)
    assert services.game_turn_timeouts_expire(now=past_grace) == [game.pk]


def test_no_timeout_is_decided_during_an_outage():
    game = make_game(turn_seconds=30)
    assert game.deadline is not None
    beat_every_second(game.deadline - 10 * SECOND, game.deadline - 5 * SECOND)
    # the database answers again but nothing has beaten since: the site is still out
    during = game.deadline + 10 * SECOND
    assert clock.holds(during)
    assert services.game_turn_timeouts_expire(now=during) == []
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE


def test_no_timeout_within_the_grace_after_an_outage_then_the_clock_runs_again():
    game = make_game(turn_seconds=30)
    assert game.deadline is not None
    after = outage(game.deadline - 5 * SECOND, 20)  # 5 s of the turn were left when it began
    extended = game.deadline + 20 * SECOND
    assert Game.objects.get(pk=game.pk).deadline == extended
    assert extended < after + GRACE * SECOND
    beat_every_second(after, after + GRACE * SECOND)
    assert services.game_turn_timeouts_expire(now=extended + SECOND) == []  # within the grace
    past_grace = after + (GRACE + 1) * SECOND
    beat_every_second(after + GRACE * SECOND, past_grace)
    assert services.game_turn_timeouts_expire(now=past_grace) == [game.pk]
    assert Game.objects.get(pk=game.pk).end_reason == "timeout"


def test_the_move_right_after_a_restart_is_accepted():
    """The finding: a 30 s turn, the site stopped for 56 s, the player moves just after: today a
    409 "The time for this turn ran out"; now the move is played."""
    game = make_game(turn_seconds=30)
    now = timezone.now()
    # the turn began 40 s ago (its time ran out 10 s ago), the site stopped 38 s ago
    Game.objects.filter(pk=game.pk).update(deadline=now - 10 * SECOND)
    SiteClock.objects.create(pk=clock.CLOCK_ID, beat_at=now - 38 * SECOND)
    move = best_move(game)
    # the move comes in before any process has beaten again: the site still holds the clocks
    result = services.game_move_make(
        game_id=game.pk, user=seat_user(game, 1), move=move, ply=game.ply
    )
    assert result.ply == 1
    game.refresh_from_db()
    assert (game.status, game.to_move) == (Game.Status.ACTIVE, 2)


def test_after_recovery_the_move_is_refused_only_against_time_the_site_could_take_it():
    game = make_game(turn_seconds=30)
    now = timezone.now()
    Game.objects.filter(pk=game.pk).update(deadline=now - 40 * SECOND)  # ran out before
    SiteClock.objects.create(pk=clock.CLOCK_ID, beat_at=now - 38 * SECOND)
    beat_every_second(now - 20 * SECOND, now)  # the outage ended 20 s ago (past the grace)
    with pytest.raises(services.TurnTimedOut):
        services.game_move_make(
            game_id=game.pk, user=seat_user(game, 1), move=best_move(game), ply=game.ply
        )
    assert Game.objects.get(pk=game.pk).end_reason == "timeout"


def test_a_hint_waits_for_the_site_as_a_move_does():
    game = make_game(turn_seconds=30)
    now = timezone.now()
    Game.objects.filter(pk=game.pk).update(deadline=now - 10 * SECOND)
    SiteClock.objects.create(pk=clock.CLOCK_ID, beat_at=now - 30 * SECOND)
    hint = services.game_hint(game_id=game.pk, user=seat_user(game, 1))
    assert hint["move"]
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE


def test_with_the_heartbeat_off_a_stale_beat_holds_nothing(settings):
    game = make_game(turn_seconds=30)
    SiteClock.objects.create(pk=clock.CLOCK_ID, beat_at=timezone.now() - timedelta(hours=1))
    settings.SIESTA_HEARTBEAT = False
    assert game.deadline is not None
    assert services.game_turn_timeouts_expire(now=game.deadline + SECOND) == [game.pk]


def test_without_any_beat_yet_the_clocks_run():
    game = make_game(turn_seconds=30)
    assert game.deadline is not None
    assert not SiteClock.objects.exists()
    assert services.game_turn_timeouts_expire(now=game.deadline + SECOND) == [game.pk]


def test_watchers_get_the_new_deadline(watch):
    game = make_game(turn_seconds=30)
    watcher = watch(game.pk)
    now = timezone.now()
    beat_every_second(now - 2 * SECOND, now)
    with TestCase.captureOnCommitCallbacks(execute=True):
        services.site_heartbeat(now=now + 20 * SECOND)
    assert watcher.versions() == [game.version + 1]
    deadline = Game.objects.filter(pk=game.pk).values_list("deadline", flat=True).get()
    assert deadline == game.deadline + 20 * SECOND


def test_a_swiss_round_through_an_outage_has_no_timeout_and_is_rated_once(settings):
    """Six players, 30 s turns, round 1 running; the site stops for 20 s and then restarts
    (56 s): no game ends on time, every game finishes by play, the round is scored and the next
    paired, and each game is rated once."""
    from tests.tournaments.factories import make_tournament
    from tests.tournaments.helpers import committed, round_games, start
    from tournaments.models import Pairing

    settings.SIESTA_TOURNAMENT_GRACE_SECONDS = 0
    tournament = start(make_tournament(players=6, rounds=2, turn_seconds=30))
    games = round_games(tournament)
    assert len(games) == 3
    for game in games:  # a turn each, then the site goes down with 20 s of every turn left
        committed(play_best_turn, game=game)
    first = Game.objects.get(pk=games[0].pk).deadline
    assert first is not None
    start_at = first - 20 * SECOND
    Game.objects.filter(pk__in=[g.pk for g in games]).update(deadline=first)
    after = outage(start_at, 20 + 56)
    # the sweep runs as soon as the site is back, and every few seconds of the grace and after
    beat_every_second(after, after + 18 * SECOND)
    for seconds in (0, 5, 10, 16, 18):
        committed(services.game_turn_timeouts_expire, now=after + seconds * SECOND)
    for game in games:  # each turn has the 20 s it had left when the site stopped
        assert Game.objects.get(pk=game.pk).deadline == after + 20 * SECOND
    assert not Game.objects.filter(end_reason__in=["timeout", "forfeit"]).exists()
    for game in games:  # everyone plays on to a resignation
        committed(play_best_turn, game=game)
        game.refresh_from_db()
        loser = seat_user(game, game.to_move)
        committed(services.game_resign, game_id=game.pk, user=loser)
    assert set(Game.objects.filter(pk__in=[g.pk for g in games]).values_list("end_reason")) == {
        ("resigned",)
    }
    tournament.refresh_from_db()
    assert tournament.current_round == 2
    assert not Pairing.objects.filter(round__number=1, forfeit=True).exists()
    rated = list(RatedGame.objects.filter(game_id__in=[g.pk for g in games]).values("game_id"))
    assert sorted(r["game_id"] for r in rated) == sorted(g.pk for g in games)

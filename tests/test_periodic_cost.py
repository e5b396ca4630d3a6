"""Each periodic task finds its work by an index or a due time, never by reading every row: its
query count stays the same, and (on PostgreSQL) the rows its queries read stay flat, as the
running games go from 10 to 10,000. The same few items are due at both sizes (a turn whose time
ran out, a bot turn whose task was lost, a tournament under way)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import tasks as game_tasks
from games.clock import CLOCK_ID
from games.models import Game, Seat, SiteClock
from learn import tasks as learn_tasks
from social import tasks as social_tasks
from tests.games.factories import make_game
from tests.games.services.helpers import play_best_turn
from tests.tournaments.factories import make_tournament
from tests.tournaments.helpers import start
from tournaments import tasks as tournament_tasks
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

PERIODIC: dict[str, Callable[[], Any]] = {
    "expire_turns": game_tasks.expire_turns,
    "requeue_bot_turns": game_tasks.requeue_bot_turns,
    "requeue_analyses": game_tasks.requeue_analyses,
    "expire_open_games": game_tasks.expire_open_games,
    "tournaments.sweep": tournament_tasks.sweep,
    "match_seeks": social_tasks.match_seeks,
    "puzzles_from_analysed_games": learn_tasks.puzzles_from_analysed_games,
    "puzzle_pool_top_up": learn_tasks.puzzle_pool_top_up,
}

SLACK_ROWS = 100
"""Rows a task may read more at 10,000 running games than at 10 (planner noise, none per game)."""


@pytest.fixture(autouse=True)
def _site(settings):
    settings.SIESTA_HEARTBEAT = True
    settings.SIESTA_PUZZLE_POOL_MAX_LOAD = 1e9  # the cores count as idle: the gate is not tested
    settings.SIESTA_PUZZLE_POOL = 0  # a full pool: nothing to play


def add_running_games(count: int) -> None:
    """``count`` two-seat games in progress, a person to move with an hour left (rows only)."""
    now = timezone.now()
    games = Game.objects.bulk_create(
        Game(
            players=2,
            status=Game.Status.ACTIVE,
            started_at=now,
            to_move=1,
            ply=4,
            deadline=now + timedelta(hours=1),
        )
        for _ in range(count)
    )
    Seat.objects.bulk_create(Seat(game=g, seat=n) for g in games for n in (1, 2))
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE games_game; ANALYZE games_seat")


def make_due_work() -> None:
    """What every size has due: a timed-out turn, a stalled bot turn, a running tournament."""
    late = make_game()
    Game.objects.filter(pk=late.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    bot = make_game(bots=[(2, "easy")])
    play_best_turn(bot)  # its task's on-commit hook never runs here: the bot turn stalls
    Game.objects.filter(pk=bot.pk).update(bot_since=timezone.now() - timedelta(minutes=1))
    Tournament.objects.filter(status=Tournament.Status.RUNNING).update(
        status=Tournament.Status.FINISHED
    )
    start(make_tournament(players=2))
    SiteClock.objects.update_or_create(pk=CLOCK_ID, defaults={"beat_at": timezone.now()})


def rows_read(sql: str) -> int:
    """Rows the statement's scans read on PostgreSQL (returned and filtered out)."""
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}")
        (plan,) = cursor.fetchone()
    plan = json.loads(plan) if isinstance(plan, str) else plan

    def walk(node: dict[str, Any]) -> int:
        own = 0
        if "Scan" in node["Node Type"]:
            loops = node.get("Actual Loops", 1)
            own = (node.get("Actual Rows", 0) + node.get("Rows Removed by Filter", 0)) * loops
        return own + sum(walk(child) for child in node.get("Plans", []))

    return walk(plan[0]["Plan"])


def measure() -> dict[str, tuple[int, int]]:
    """Each periodic task run once: (queries, rows read on PostgreSQL, else 0)."""
    costs = {}
    for name, task in PERIODIC.items():
        with CaptureQueriesContext(connection) as captured:
            task()
        selects = [
            q["sql"] for q in captured.captured_queries if q["sql"].lstrip().startswith("SELECT")
        ]
        rows = sum(map(rows_read, selects)) if connection.vendor == "postgresql" else 0
        costs[name] = (len(captured.captured_queries), rows)
    return costs


def test_periodic_tasks_cost_the_same_at_10_and_10000_running_games():
    tournament_tasks.sweep()  # the schedules' tournaments of the coming days, created once
    add_running_games(10)
    make_due_work()
    small = measure()
    add_running_games(9_990)
    make_due_work()
    large = measure()
    for name in PERIODIC:
        (small_queries, small_rows), (large_queries, large_rows) = small[name], large[name]
        assert large_queries == small_queries, (name, small, large)
        assert large_rows <= small_rows + SLACK_ROWS, (name, small, large)
    print(json.dumps({"10": small, "10000": large}))

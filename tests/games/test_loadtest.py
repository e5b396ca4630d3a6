"""The load benchmark's accounting (bench/loadtest.py): a process that starts during the run, as
a PostgreSQL backend does when a pool grows under load, counts all its CPU; one that ran before
counts only what it spent since the start."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import time

import psutil
import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from bench import loadtest

BURN = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\n"


def _burner() -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", BURN + "time.sleep(30)"])


def _wait_burnt(proc: subprocess.Popen[bytes]) -> psutil.Process:
    process = psutil.Process(proc.pid)
    while sum(process.cpu_times()[:2]) < 0.3:
        time.sleep(0.05)
    return process


def test_a_process_started_during_the_run_counts_all_its_cpu():
    old = _burner()
    try:
        before = {"postgres": [_wait_burnt(old)]}
        start = loadtest.cpu_seconds(before["postgres"])
        new = _burner()
        try:
            after = {"postgres": [psutil.Process(old.pid), _wait_burnt(new)]}
            report = loadtest.usage(before, start, 1.0, after)
            # The old one spent (almost) nothing since the start; the new one its whole burn.
            assert 0.3 <= report["postgres"]["cpu_s"] < 0.5
            assert loadtest.usage(before, start, 1.0)["postgres"]["cpu_s"] < 0.1
        finally:
            new.kill()
    finally:
        old.kill()


def test_server_cpu_per_move_counts_the_web_processes_and_the_database_only():
    usage = {
        role: {"cpu_s": cpu, "cpu_pct": 0.0, "rss_mb": 0.0}
        for role, cpu in [
            ("web:8201", 1.0),
            ("web:8202", 0.5),
            ("postgres", 0.5),
            ("nginx", 9.0),
            ("redis (whole server)", 9.0),
            ("celery:bots", 9.0),
            ("load client", 9.0),
        ]
    }
    assert loadtest.server_cpu_ms_per_move(usage, 400) == 5.0


def test_the_load_client_reports_its_own_cpu(tmp_path):
    """The client shares the machine's cores with the stack: its CPU over a phase is reported
    under a role of its own (and left out of the server's CPU per move, above)."""
    from bench.loadtest import _measured

    async def busy() -> loadtest.Result:
        end = time.process_time() + 0.2
        while time.process_time() < end:
            pass
        return loadtest.Result("busy")

    _result, usage = _measured(tmp_path, "no database", busy())
    # The busy loop's 0.2 s, plus the measuring itself (0.21 s once on a slow machine), and not
    # the CPU of other processes.
    assert 0.2 <= usage["load client"]["cpu_s"] < 1.0


@pytest.mark.django_db
def test_the_benchmarks_tables_are_analyzed_after_it_fills_them():
    """On statistics from before a bulk insert, the planner may scan every user on each move."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's planner statistics")
    user_model = get_user_model()
    user_model.objects.bulk_create([user_model(username=f"bulk{i}") for i in range(500)])
    loadtest.analyze_tables()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT reltuples FROM pg_class WHERE relname = %s", [user_model._meta.db_table]
        )
        assert cursor.fetchone()[0] >= 500


def test_a_flat_out_phase_has_games_enough_for_a_fast_machine():
    """A slot that runs out of scripted games ends its phase early: at one game flat-out, 40 moves
    a second were assumed, and on a machine serving ~300 the phase measured 3 s of its 15."""
    per_slot = loadtest.tables_per_slot(games=1, think=0, duration=15)
    assert per_slot * 12 >= 15 * 400  # the shortest scripted games have 12 turns


def test_a_steady_run_ends_the_slots_first_games_at_spread_out_turns():
    import random

    rng = random.Random(5)
    table = loadtest.Table(1, ("a", "b"), ["SA1"] * 20)
    turns = [loadtest.first_game_turns(table, rng) for _ in range(400)]
    assert min(turns) == 1
    assert max(turns) == 20
    assert len(set(turns)) == 20  # every length: games end all through a game's time


def test_moves_sent_during_the_warm_up_cost_cpu_but_are_not_measured():
    result = loadtest.Result("site")
    result.started = time.perf_counter() + 60  # a warm-up that has not ended yet
    result.record(time.perf_counter() - 0.01)
    assert (result.played, result.moves) == (1, 0)
    result.started = time.perf_counter() - 1
    result.record(time.perf_counter() - 0.01)
    assert (result.played, result.moves) == (2, 1)
    assert 0.01 <= result.latencies[0] < 1


def test_the_client_collects_no_garbage_while_it_measures():
    """A full collection in the client stalled every socket's reads for ~100 ms, which the moves
    in flight counted as the server's time."""
    import gc

    try:
        with loadtest.collector_paused():
            assert not gc.isenabled()
            assert gc.get_freeze_count() > 0  # what existed before is out of later collections
        assert gc.isenabled()
    finally:
        gc.unfreeze()


# -- staggered starts, the overall deadline, the capacity search ---------------------------------


def test_staggered_games_start_evenly_over_the_window():
    offsets = loadtest.stagger_offsets(4, 60.0)
    assert offsets == [0.0, 15.0, 30.0, 45.0]
    assert loadtest.stagger_offsets(3, 0.0) == [0.0, 0.0, 0.0]  # no stagger: all at once
    assert loadtest.stagger_offsets(0, 60.0) == []


async def test_staggered_slots_start_their_first_game_at_their_offset(monkeypatch):
    """Slot i's first game opens at about ``stagger * i / slots`` seconds, and moves count only
    after the window."""
    opened: list[float] = []

    async def play(base, table, think, deadline, result, rng, turns=None):
        opened.append(time.monotonic())

    monkeypatch.setattr(loadtest, "_play_game", play)
    slots = [[loadtest.Table(i, ("a", "b"), ["SA1"])] for i in range(3)]
    began, began_perf = time.monotonic(), time.perf_counter()
    result = await loadtest.run_games("http://127.0.0.1:1", slots, 0.0, 0.05, stagger=0.6)
    delays = sorted(t - began for t in opened)
    assert delays == pytest.approx([0.0, 0.2, 0.4], abs=0.1)
    assert result.started - began_perf == pytest.approx(0.6, abs=0.05)  # after the window


async def _silent_server(handler):
    import websockets

    return await websockets.serve(handler, "127.0.0.1", 0)


async def test_a_silent_socket_cannot_hang_the_client():
    """A server that accepts the players' sockets and never answers: the game is cut off at the
    overall deadline and counts as an error, well before the client's 10 s state timeout."""

    async def silent(socket):
        await asyncio.sleep(3600)

    server = await _silent_server(silent)
    port = server.sockets[0].getsockname()[1]
    result = loadtest.Result("site")
    table = loadtest.Table(7, ("a", "b"), ["SA1", "SB2"])
    began = time.monotonic()
    try:
        await loadtest._play_game(
            f"ws://127.0.0.1:{port}",
            table,
            0.0,
            began + 0.1,
            result,
            random.Random(1),
            hard_deadline=began + 0.5,
        )
    finally:
        server.close()
    assert time.monotonic() - began < 5
    assert result.errors == ["game 7: still open at the deadline, 0 move(s) in flight"]


async def test_a_move_whose_state_never_comes_counts_as_lost_at_the_deadline():
    """The server sends each player the opening state (seat 1 to move) and then nothing: seat 1's
    move is in flight when the game is cut off."""
    opening = {
        "type": "state",
        "game": {"ply": 0, "to_move": 1, "turns": []},
    }

    async def dead_after_opening(socket):
        await socket.recv()  # the auth
        await socket.send(json.dumps(opening))
        await asyncio.sleep(3600)

    server = await _silent_server(dead_after_opening)
    port = server.sockets[0].getsockname()[1]
    result = loadtest.Result("site")
    table = loadtest.Table(8, ("a", "b"), ["SA1", "SB2"])
    began = time.monotonic()
    try:
        await loadtest._play_game(
            f"ws://127.0.0.1:{port}",
            table,
            0.0,
            began + 5,
            result,
            random.Random(1),
            hard_deadline=began + 0.5,
        )
    finally:
        server.close()
    assert time.monotonic() - began < 5
    assert (result.lost, result.moves) == (1, 0)
    assert result.errors == ["game 8: still open at the deadline, 1 move(s) in flight"]


def test_a_capacity_step_passes_only_with_nothing_lost_and_p99_within_the_limit():
    held = {"moves": 500, "lost": 0, "errors": 0, "p99_ms": 150.0}
    assert loadtest.step_passes(held, 150.0)
    assert not loadtest.step_passes({**held, "p99_ms": 150.1}, 150.0)
    assert not loadtest.step_passes({**held, "lost": 1}, 150.0)
    assert not loadtest.step_passes({**held, "errors": 1}, 150.0)
    assert not loadtest.step_passes({**held, "moves": 0, "p99_ms": None}, 150.0)


def _search(threshold: int, **kwargs: int) -> tuple[list[int], tuple[int, int]]:
    """The steps a capacity search takes on a site that holds up to ``threshold`` games."""
    settings = {"start": 250, "step": 250, "resolution": 50, "maximum": 2000} | kwargs
    outcomes: dict[int, bool] = {}
    tried = []
    while (games := loadtest.next_capacity_step(outcomes, **settings)) is not None:
        assert games not in outcomes
        tried.append(games)
        outcomes[games] = games <= threshold
    return tried, loadtest.capacity_bounds(outcomes)


def test_the_capacity_search_goes_up_by_steps_then_halves_the_gap():
    tried, (low, high) = _search(560)
    assert tried == [250, 500, 750, 625, 562, 531]
    assert (low, high) == (531, 562)  # 560 lies between, to the resolution


def test_the_capacity_search_finds_a_capacity_below_its_first_step():
    tried, (low, high) = _search(40)
    assert tried[0] == 250
    assert low <= 40 < high
    assert high - low <= 50


def test_the_capacity_search_stops_at_its_maximum():
    tried, (low, _high) = _search(10_000, maximum=1000)
    assert tried == [250, 500, 750, 1000]
    assert low == 1000


def test_a_pass_above_a_failure_does_not_raise_the_capacity():
    """Noise: a step above one that failed held; the capacity is what held below the failure."""
    assert loadtest.capacity_bounds({250: True, 500: False, 600: True}) == (250, 500)


def test_each_step_reuses_the_scripted_moves_in_turn():
    pool = [["SA1"], ["SB2"], ["SC3"]]
    assert loadtest.script_pool(5, pool) == [["SA1"], ["SB2"], ["SC3"], ["SA1"], ["SB2"]]


async def test_a_move_is_late_counting_from_when_it_was_sent(monkeypatch):
    """At 5 s per turn the opponent waits for a move from its last state, not from the move: a
    move is lost only ``STATE_TIMEOUT`` after it was sent (here 0.4 s; it is sent after 0.25 s
    of thought and its state comes 0.3 s later)."""
    monkeypatch.setattr(loadtest, "STATE_TIMEOUT", 0.4)
    players: list = []
    both = asyncio.Event()

    def state(ply: int) -> str:
        turns = [{"seat": 1}] if ply else []
        return json.dumps(
            {"type": "state", "game": {"ply": ply, "to_move": 1 + ply % 2, "turns": turns}}
        )

    async def server(socket):
        await socket.recv()  # the auth
        players.append(socket)
        if len(players) == 2:
            both.set()
        await both.wait()
        await socket.send(state(0))
        async for frame in socket:
            if json.loads(frame)["type"] == "move":
                await asyncio.sleep(0.3)
                for player in players:
                    await player.send(state(1))

    listening = await _silent_server(server)
    port = listening.sockets[0].getsockname()[1]
    result = loadtest.Result("site")
    began = time.monotonic()
    try:
        await loadtest._play_game(
            f"ws://127.0.0.1:{port}",
            loadtest.Table(9, ("a", "b"), ["SA1"]),
            0.25,
            began + 10,
            result,
            random.Random(1),
        )
    finally:
        listening.close()
    assert (result.lost, result.moves, result.errors) == (0, 1, [])
    assert 0.3 <= result.latencies[0] < 0.4

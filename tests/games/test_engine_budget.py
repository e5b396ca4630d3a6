"""The engine budget's buckets (charged measured CPU seconds, refused when spent, refilled with
time, shared through the cache) and the engine pool (a search in another process, stopped at
its CPU cap)."""

from __future__ import annotations

import time
import uuid
from concurrent.futures import TimeoutError as FutureTimeout

import pytest
from django.conf import settings as django_settings

from games import engine_budget
from games.engine import worker as engine_worker
from games.engine.record import GameRecord
from games.engine_budget import Budget, EngineBudgetSpent, EngineUnavailable
from learn import board
from tests.learn.helpers import recorded

ALICE = "user:1"


def test_a_charge_is_owed_and_refills_evenly_over_the_window(engine_budget):
    budget = engine_budget.budget  # 2 CPU seconds per 60 s
    budget.charge(ALICE, 0.5)
    assert budget.owed(ALICE) == pytest.approx(0.5)
    assert budget.wait(ALICE) is None
    engine_budget.now += 15  # a quarter of the window gives back a quarter of the budget
    assert budget.owed(ALICE) == pytest.approx(0.0)
    budget.charge(ALICE, 1.0)
    engine_budget.now += 6
    assert budget.owed(ALICE) == pytest.approx(0.8)


def test_a_spent_budget_refuses_until_some_has_refilled(engine_budget):
    budget = engine_budget.budget
    budget.charge(ALICE, 2.5)  # the last search overdrew it by 0.5 s

    with pytest.raises(EngineBudgetSpent) as refused:
        budget.check(ALICE)

    # 0.5 s owed beyond the budget refill in 15 s.
    assert refused.value.retry_after == 16
    assert refused.value.extra == {"code": "engine_budget", "retry_after": 16}
    assert "16 seconds" in refused.value.message
    engine_budget.now += 14
    with pytest.raises(EngineBudgetSpent):
        budget.check(ALICE)
    engine_budget.now += 2
    budget.check(ALICE)
    # Another caller was never held back.
    budget.check("user:2")


def test_the_buckets_are_shared_through_the_cache(engine_budget):
    """Another process (another Budget reading the same cache) sees the same debt."""
    engine_budget.budget.charge(ALICE, 2.0)
    elsewhere = Budget(clock=lambda: engine_budget.now)
    with pytest.raises(EngineBudgetSpent):
        elsewhere.check(ALICE)


@pytest.mark.requires_redis
def test_the_buckets_are_shared_through_redis(engine_budget, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": django_settings.REDIS_URL,
            "KEY_PREFIX": f"test-{uuid.uuid4().hex}",
        }
    }
    ident = f"user:{uuid.uuid4().hex}"
    engine_budget.budget.charge(ident, 2.0)
    with pytest.raises(EngineBudgetSpent):
        Budget(clock=lambda: engine_budget.now).check(ident)


def test_no_budget_means_no_refusal(engine_budget, settings):
    settings.SIESTA_ENGINE_BUDGET = 0
    engine_budget.budget.charge(ALICE, 100.0)
    engine_budget.budget.check(ALICE)


def test_an_inline_search_is_charged_its_measured_cpu(engine_budget):
    record = GameRecord.from_json(recorded(turns=12))
    began, cpu = time.perf_counter(), time.thread_time()
    answer = engine_budget_search(record)
    cpu, wall = time.thread_time() - cpu, time.perf_counter() - began
    assert answer["move"]
    assert 0 < engine_budget.budget.owed(ALICE) <= min(cpu, wall) + 1e-3


def engine_budget_search(record: GameRecord) -> dict:
    return engine_budget.search(ALICE, board.best_for, record, 5)


def test_a_pool_search_answers_and_is_charged_the_workers_cpu(engine_budget, pool):
    record = GameRecord.from_json(recorded(turns=12))
    expected = board.best_for(record, 5)
    before = time.thread_time()

    answer = engine_budget_search(record)

    assert answer == expected
    owed = engine_budget.budget.owed(ALICE)
    assert owed > 0
    # The search ran in the worker: this thread only waited.
    assert time.thread_time() - before < 0.05 + owed


def test_a_pool_search_passes_an_input_error_back_with_its_cell(engine_budget, pool):
    bad = GameRecord.from_json({"moves": ["SF5 RF6 HF7", "SA1 RA2 HA3"]})
    with pytest.raises(board.BoardInputError) as refused:
        engine_budget_search(bad)
    assert refused.value.cell == "A1"


def test_a_search_over_its_cpu_cap_is_stopped_and_charged_the_cap(engine_budget, pool, settings):
    record = GameRecord.from_json(recorded(turns=12))
    engine_budget_search(record)  # the worker is up
    settings.SIESTA_ENGINE_CAP = 0.001
    owed = engine_budget.budget.owed(ALICE)

    with pytest.raises(EngineUnavailable) as stopped:
        engine_budget_search(record)

    assert stopped.value.extra == {"code": "engine_limit"}
    assert engine_budget.budget.owed(ALICE) == pytest.approx(owed + 0.001)
    # The worker survives its stopped search.
    settings.SIESTA_ENGINE_CAP = 5.0
    assert engine_budget_search(record)["move"]


def test_with_the_cache_down_engine_work_goes_on_uncounted(engine_budget, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens there
        }
    }
    engine_budget.budget.charge(ALICE, 100.0)
    engine_budget.budget.check(ALICE)
    assert engine_budget_search(GameRecord.from_json(recorded()))["move"]


def test_a_paused_search_waits_then_answers_without_counting_the_pause(pool):
    record = GameRecord.from_json(recorded(turns=12))
    expected = board.best_for(record, 5)
    engine_budget_search(record)  # the pool is up
    flags = engine_budget.QUEUE.flags
    flags[0] = 1
    try:
        future = engine_budget._executor().submit(
            engine_worker.run_pickled, 5.0, engine_budget._payload(board.best_for, (record, 5)), 0
        )
        with pytest.raises(FutureTimeout):
            future.result(timeout=1.0)  # paused
    finally:
        flags[0] = 0

    answer, used = future.result(timeout=60)

    assert answer == expected
    assert used < 0.9  # the second it waited paused is not CPU

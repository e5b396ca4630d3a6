"""The engine pool's fair queue (addresses in turn, an address's callers in turn, a cap per
address), the address's shared budget, and what a search sends to its worker (pickled in the
calling thread, without the rules' memo that every thread of the process shares)."""

from __future__ import annotations

import pickle
import random
import threading

import pytest

from games import engine_budget
from games.engine.record import GameRecord, replay
from games.engine.search import best_turn
from games.engine.variants import rules_for
from games.engine_budget import (
    Caller,
    EngineBudgetSpent,
    EngineQueueFull,
    FairQueue,
    network_ident,
)
from tests.learn.helpers import recorded

FLOOD = "198.51.100.7"
OTHER = "203.0.113.9"


def granted(tickets) -> list[int]:
    return [i for i, ticket in enumerate(tickets) if ticket.granted.is_set()]


# -- the queue ----------------------------------------------------------------------------------


def test_a_free_worker_goes_to_the_first_search_at_once():
    queue = FairQueue()
    ticket = queue.enter(Caller("user:1", FLOOD), slots=1, cap=0)
    assert ticket.granted.is_set()
    assert queue.counts() == (1, 0)
    queue.leave(ticket, slots=1)
    assert queue.counts() == (0, 0)


def test_another_address_goes_before_a_flooding_address_s_waiting_searches():
    queue = FairQueue()
    # Ten accounts from one address, three searches each: one runs, 29 wait.
    flood = [
        queue.enter(Caller(f"user:{n}", FLOOD), slots=1, cap=0) for _ in range(3) for n in range(10)
    ]
    assert granted(flood) == [0]
    victim = queue.enter(Caller("user:99", OTHER), slots=1, cap=0)
    assert not victim.granted.is_set()

    queue.leave(flood[0], slots=1)  # the running search ends: the other address is next

    assert victim.granted.is_set()
    assert granted(flood) == [0]


def test_addresses_take_turns_and_an_address_s_callers_take_turns():
    queue = FairQueue()
    order: list[str] = []
    first = queue.enter(Caller("user:0", FLOOD), slots=1, cap=0)
    tickets = {
        "a1": queue.enter(Caller("user:1", FLOOD), slots=1, cap=0),
        "a1 again": queue.enter(Caller("user:1", FLOOD), slots=1, cap=0),
        "a2": queue.enter(Caller("user:2", FLOOD), slots=1, cap=0),
        "b1": queue.enter(Caller("user:3", OTHER), slots=1, cap=0),
        "b1 again": queue.enter(Caller("user:3", OTHER), slots=1, cap=0),
    }
    running = first
    for _ in tickets:
        queue.leave(running, slots=1)
        name, running = next(
            (n, t) for n, t in tickets.items() if t.granted.is_set() and n not in order
        )
        order.append(name)
    queue.leave(running, slots=1)

    # B had waited least (its first search goes before A's second); then A and B alternate,
    # and within A its two callers alternate before user 1's second search.
    assert order == ["b1", "a1", "b1 again", "a2", "a1 again"]
    assert queue.counts() == (0, 0)


def test_an_address_s_turns_come_as_often_as_its_searches_are_cheap():
    queue = FairQueue()
    heavy = [queue.enter(Caller("user:1", FLOOD), slots=1, cap=0) for _ in range(3)]
    light = [queue.enter(Caller("user:2", OTHER), slots=1, cap=0) for _ in range(3)]

    queue.leave(heavy[0], slots=1, cost=1.0)  # a second of CPU
    for n in range(2):
        assert light[n].granted.is_set()
        queue.leave(light[n], slots=1, cost=0.1)  # a tenth each: still behind the heavy one

    assert light[2].granted.is_set()
    assert granted(heavy) == [0]


def test_with_two_workers_one_is_kept_for_the_other_addresses():
    queue = FairQueue()
    flood = [queue.enter(Caller(f"user:{n}", FLOOD), slots=2, cap=0) for n in range(10)]
    assert granted(flood) == [0]  # the second worker stays free
    assert queue.counts() == (1, 9)

    victim = queue.enter(Caller("user:99", OTHER), slots=2, cap=0)

    assert victim.granted.is_set()  # at once, while the flood's search runs
    queue.leave(victim, slots=2)
    queue.leave(flood[0], slots=2)
    assert granted(flood) == [0, 1]
    assert queue.counts() == (1, 8)


def test_another_address_s_search_computes_while_the_flood_s_pauses():
    queue = FairQueue()
    queue.set_flags(bytearray(2))
    flood = [queue.enter(Caller(f"user:{n}", FLOOD), slots=2, cap=0) for n in range(3)]
    assert queue.paused() == set()  # alone, the flood's search computes

    victim = queue.enter(Caller("user:99", OTHER), slots=2, cap=0)

    assert victim.granted.is_set()
    assert queue.paused() == {flood[0].slot}  # one search computes at a time: the newcomer's
    queue.leave(victim, slots=2)
    assert queue.paused() == set()  # the flood's goes on


def test_two_flooding_addresses_take_turns_computing():
    queue = FairQueue()
    queue.set_flags(bytearray(2))
    a = [queue.enter(Caller("user:1", FLOOD), slots=2, cap=0) for _ in range(3)]
    b = [queue.enter(Caller("user:2", OTHER), slots=2, cap=0) for _ in range(3)]
    assert queue.paused() == {a[0].slot}  # b's first came at the same virtual time, newer

    queue.leave(b[0], slots=2)  # b's second is granted, a whole turn later than a's first

    assert b[1].granted.is_set()
    assert queue.paused() == {b[1].slot}


def test_with_one_worker_any_address_may_use_it():
    queue = FairQueue()
    first = queue.enter(Caller("user:1", FLOOD), slots=1, cap=0)
    second = queue.enter(Caller("user:2", FLOOD), slots=1, cap=0)
    queue.leave(first, slots=1)
    assert second.granted.is_set()


def test_an_address_has_at_most_its_cap_of_searches_waiting_or_running():
    queue = FairQueue()
    held = [queue.enter(Caller(f"user:{n}", FLOOD), slots=1, cap=3) for n in range(3)]
    with pytest.raises(EngineQueueFull) as refused:
        queue.enter(Caller("user:4", FLOOD), slots=1, cap=3)
    assert refused.value.extra == {"code": "engine_queue", "retry_after": 1}
    assert refused.value.retry_after == 1
    queue.enter(Caller("user:5", OTHER), slots=1, cap=3)  # another address is not refused

    queue.leave(held[0], slots=1)
    queue.enter(Caller("user:4", FLOOD), slots=1, cap=3)


def test_a_search_that_waited_too_long_leaves_the_queue():
    queue = FairQueue()
    running = queue.enter(Caller("user:1", FLOOD), slots=1, cap=2)
    waiting = queue.enter(Caller("user:2", FLOOD), slots=1, cap=2)
    assert queue.abandon(waiting)
    assert queue.counts() == (1, 0)
    assert not queue.abandon(running)  # granted: it runs, then leaves
    queue.leave(running, slots=1)
    assert queue.counts() == (0, 0)
    # The address's cap counts only what is left.
    queue.enter(Caller("user:3", FLOOD), slots=1, cap=2)
    queue.enter(Caller("user:4", FLOOD), slots=1, cap=2)


def test_many_threads_entering_and_leaving_keep_the_counts():
    queue = FairQueue()
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for _ in range(200):
                ticket = queue.enter(Caller(f"user:{n % 7}", f"10.0.0.{n % 3}"), slots=2, cap=0)
                if ticket.granted.wait(10) or not queue.abandon(ticket):
                    queue.leave(ticket, slots=2)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert queue.counts() == (0, 0)


# -- the address's budget -----------------------------------------------------------------------


def test_accounts_behind_one_address_share_its_budget(engine_budget, settings):
    settings.SIESTA_ENGINE_ADDRESS_BUDGET = 3.0  # each account has 2 s, the address 3 s
    budget = engine_budget.budget
    budget.charge(Caller("user:1", FLOOD), 1.5)
    budget.charge(Caller("user:2", FLOOD), 1.6)

    with pytest.raises(EngineBudgetSpent) as refused:
        budget.check(Caller("user:3", FLOOD))  # a fresh account, but the address is spent
    assert refused.value.extra["code"] == "engine_budget"
    # 0.1 s over: back once 0.1 s has refilled at 3 s per 60 s, i.e. in 2 s.
    assert refused.value.retry_after == 3
    assert "network" in refused.value.message
    budget.check(Caller("user:3", OTHER))  # the same kind of account elsewhere is not
    assert budget.owed(network_ident(FLOOD)) == pytest.approx(3.1)

    engine_budget.now += 3
    budget.check(Caller("user:3", FLOOD))


def test_without_a_budget_there_is_no_address_budget(engine_budget, settings):
    settings.SIESTA_ENGINE_BUDGET = 0
    engine_budget.budget.charge(Caller("user:1", FLOOD), 100.0)
    engine_budget.budget.check(Caller("user:2", FLOOD))


def test_a_signed_out_caller_s_ident_names_its_address():
    assert engine_budget.as_caller("address:192.0.2.1") == Caller("address:192.0.2.1", "192.0.2.1")
    assert engine_budget.as_caller("user:1") == Caller("user:1", "")


# -- what a search sends to its worker ----------------------------------------------------------


def test_a_position_is_pickled_without_the_rules_memo():
    position = replay(GameRecord.from_json(recorded(turns=12))).position
    rules = rules_for(position.variant)
    for n in range(5000):  # a memo of thousands of lines (up to 500,000 in a web process)
        rules.score_line(tuple(random.Random(n).choice((0, 1, 2, 3, 4)) for _ in range(12)))

    sent = pickle.dumps(position)
    assert len(sent) < 5000
    received = pickle.loads(sent)
    assert received.rules is rules  # this process's own rules object


def test_pickling_positions_while_other_threads_score_new_lines():
    stop = threading.Event()
    errors: list[BaseException] = []

    def scoring(seed: int) -> None:
        rng = random.Random(seed)
        rules = rules_for(variant)
        while not stop.is_set():
            rules.score_line(tuple(rng.choice((0, 1, 2, 3, 4, 5)) for _ in range(12)))

    position = replay(GameRecord.from_json(recorded(turns=12))).position
    variant = position.variant
    threads = [threading.Thread(target=scoring, args=(seed,)) for seed in range(3)]
    for thread in threads:
        thread.start()
    try:
        for _ in range(300):
            try:
                engine_budget._payload(best_turn, (position,))
            except RuntimeError as exc:
                errors.append(exc)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert errors == []

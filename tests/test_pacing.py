"""bot/adapter/pacing.py: who waits for the budget, in which order, and for how long a slot is
held (a window after the answer). Windows of an hour: a slot taken in a test never comes back
by itself, so what is asserted does not depend on the machine's speed."""

from __future__ import annotations

import asyncio
import contextlib

from bot.adapter.pacing import Pacer

HOUR = 3600.0


async def settled() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def one_request(pacer: Pacer, done: list[str], name: str) -> None:
    async with pacer.request():
        done.append(name)


async def one_pass(pacer: Pacer, done: list[str], name: str) -> None:
    async with pacer.turn():
        done.append(name)


async def test_a_request_over_the_budget_waits_while_the_slots_cool_down() -> None:
    pacer = Pacer(2, window=HOUR)
    done: list[str] = []
    await one_request(pacer, done, "a")
    await one_request(pacer, done, "b")  # both answered: their slots are held a window more
    third = asyncio.create_task(one_request(pacer, done, "c"))
    await settled()
    assert done == ["a", "b"] and pacer.waiting == 1 and pacer.behind >= 0
    third.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await third
    assert pacer.waiting == 0 and pacer.behind == 0  # a cancelled wait leaves the line
    assert pacer.sent == 2


async def test_requests_being_made_go_before_sync_passes_not_yet_begun() -> None:
    pacer = Pacer(1, window=0.0)  # a slot comes back as soon as its request is answered
    done: list[str] = []
    release = asyncio.Event()

    async def holder() -> None:
        async with pacer.request():
            await release.wait()

    held = asyncio.create_task(holder())
    await settled()
    waiting = [
        asyncio.create_task(one_pass(pacer, done, "pass")),
        asyncio.create_task(one_request(pacer, done, "request")),
    ]
    await settled()
    assert done == [] and pacer.waiting == 2
    release.set()
    await asyncio.gather(held, *waiting)
    assert done == ["request", "pass"]


async def test_a_pass_sends_its_first_request_on_the_slot_it_waited_for() -> None:
    pacer = Pacer(1, window=HOUR)
    done: list[str] = []
    async with pacer.turn():
        await one_request(pacer, done, "first")  # no second wait
        second = asyncio.create_task(one_request(pacer, done, "second"))
        await settled()
        assert done == ["first"] and pacer.waiting == 1  # the slot cools down: it waits
        second.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await second


async def test_a_pass_that_sends_nothing_hands_its_slot_on_at_once() -> None:
    pacer = Pacer(1, window=HOUR)
    done: list[str] = []
    await one_pass(pacer, done, "idle pass")
    await one_request(pacer, done, "request")  # would wait an hour if the slot were held
    assert done == ["idle pass", "request"] and pacer.sent == 1


async def test_a_task_started_in_a_pass_does_not_inherit_its_slot() -> None:
    """A task created inside a pass copies its context: once the pass is over, that task's
    request waits like any other."""
    pacer = Pacer(1, window=HOUR)
    done: list[str] = []
    go = asyncio.Event()

    async def later() -> None:
        await go.wait()
        await one_request(pacer, done, "later")

    async with pacer.turn():  # sends nothing: its slot goes back
        task = asyncio.create_task(later())
    await one_request(pacer, done, "another")  # takes the slot
    go.set()
    await settled()
    assert done == ["another"] and pacer.waiting == 1
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def test_a_request_under_a_lock_waits_for_its_slot_before_the_lock() -> None:
    """What a click's answer needs (a message's lock) is never held while waiting for the
    budget: the edit's slot is waited for first (``ahead``), and the edit then uses it."""
    pacer = Pacer(1, window=HOUR)
    done: list[str] = []
    lock = asyncio.Lock()
    await one_request(pacer, done, "spent")  # the only slot cools down for an hour

    async def edit() -> None:
        async with pacer.ahead(), lock:
            await one_request(pacer, done, "edit")

    waiting = asyncio.create_task(edit())
    await settled()
    assert pacer.waiting == 1 and not lock.locked(), "it waits for the budget, not holding it"
    waiting.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await waiting
    assert done == ["spent"]


async def test_ahead_inside_a_pass_uses_the_pass_slot_and_gives_back_an_unused_one() -> None:
    pacer = Pacer(1, window=HOUR)
    done: list[str] = []
    async with pacer.turn(), pacer.ahead():  # the pass's slot, not a second one
        await one_request(pacer, done, "edit")
    assert done == ["edit"] and pacer.waiting == 0
    other = Pacer(1, window=HOUR)
    async with other.ahead():  # taken, then not needed (a click showed it meanwhile)
        pass
    await one_request(other, done, "next")  # would wait an hour if the slot were kept
    assert done == ["edit", "next"]

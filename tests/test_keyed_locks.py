"""A lock per key is kept only while it is held or awaited (a message's, a channel's), and still
lets one holder in at a time."""

from __future__ import annotations

import asyncio

import pytest

from bot.core.keyed_locks import KeyedLocks


async def test_a_key_is_held_by_one_at_a_time_and_forgotten_when_free() -> None:
    locks: KeyedLocks[int] = KeyedLocks()
    inside: list[int] = []
    most = 0
    order: list[str] = []

    async def hold(key: int, name: str) -> None:
        nonlocal most
        async with locks.hold(key):
            inside.append(key)
            most = max(most, inside.count(key))
            order.append(name)
            await asyncio.sleep(0)  # the others queue meanwhile
            await asyncio.sleep(0)
            inside.remove(key)

    await asyncio.gather(*(hold(1, f"a{i}") for i in range(5)), hold(2, "b"))
    assert most == 1, "two holders of one key at once"
    assert order.count("b") == 1 and len(order) == 6
    assert len(locks) == 0, "no lock kept once nobody holds or awaits it"

    # Thousands of keys used once each: none kept.
    for key in range(2000):
        async with locks.hold(key):
            assert len(locks) == 1
    assert len(locks) == 0


async def test_a_failure_inside_frees_the_key() -> None:
    locks: KeyedLocks[str] = KeyedLocks()
    try:
        async with locks.hold("x"):
            raise ValueError("boom")
    except ValueError:
        pass
    assert len(locks) == 0
    async with locks.hold("x"):  # not left locked
        pass


async def test_a_waiter_cancelled_before_its_turn_is_forgotten() -> None:
    locks: KeyedLocks[str] = KeyedLocks()
    entered: list[str] = []

    async def wait() -> None:
        async with locks.hold("x"):
            entered.append("waiter")

    async with locks.hold("x"):
        waiter = asyncio.create_task(wait())
        await asyncio.sleep(0)  # it waits for the lock
        assert len(locks) == 1
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
    assert entered == [] and len(locks) == 0, "the cancelled waiter neither held nor kept it"
    async with locks.hold("x"):  # free
        pass

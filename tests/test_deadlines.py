"""A click's deadlines (bot.adapter.deadlines): one fires once due, a discarded one never,
and no timer runs while none waits."""

from __future__ import annotations

import asyncio

from bot.adapter.deadlines import deadlines


async def test_a_due_deadline_fires_and_a_discarded_one_does_not() -> None:
    watch = deadlines()
    assert deadlines() is watch, "one per loop"
    fired: list[str] = []
    both_swept = asyncio.Event()
    kept = watch.add(0.0, lambda: fired.append("kept"))
    dropped = watch.add(0.0, lambda: fired.append("dropped"))
    watch.add(0.0, both_swept.set)  # added last: swept with the two, after them
    watch.discard(dropped)
    await asyncio.wait_for(both_swept.wait(), timeout=30)
    assert fired == ["kept"]
    watch.discard(kept)  # already fired: nothing happens
    assert watch._sweeping is None, "no timer left running with nothing to watch"


async def test_a_deadline_not_yet_due_waits() -> None:
    watch = deadlines()
    fired: list[str] = []
    swept = asyncio.Event()
    later = watch.add(3600.0, lambda: fired.append("later"))
    watch.add(0.0, swept.set)
    await asyncio.wait_for(swept.wait(), timeout=30)
    assert fired == [], "an hour away: not fired by the sweep that fired the due one"
    assert watch._sweeping is not None, "still watched"
    watch.discard(later)

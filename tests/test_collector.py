"""The bot process's collector policy: young passes only from the collector itself, full passes
on the bot's schedule (bot/core/collector.py), at a quiet moment when there is one."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from typing import Any

from bot.app import GC_THRESHOLDS
from bot.core.collector import OldGenerationSweeps


class Schedule:
    """A sleep that only counts (no wall clock), a busy flag read from a script, a collect
    that records whether the bot was busy then; the sweeper stops after ``sweeps`` of them."""

    def __init__(self, busy: list[bool], sweeps: int) -> None:
        self.script, self.sweeps = busy, sweeps
        self.slept: list[float] = []
        self.collected_busy: list[bool] = []

    def busy(self) -> bool:
        return self.script.pop(0) if self.script else False

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        await asyncio.sleep(0)

    def collect(self) -> int:
        self.collected_busy.append(bool(self.script and self.script[0]))
        if len(self.collected_busy) == self.sweeps:
            raise asyncio.CancelledError
        return 0


def sweeper(schedule: Schedule, every: float = 300.0, poll: float = 1.0) -> OldGenerationSweeps:
    return OldGenerationSweeps(
        busy=schedule.busy,
        every=every,
        poll=poll,
        sleep=schedule.sleep,
        collect=schedule.collect,
    )


async def run(sweeps: OldGenerationSweeps) -> None:
    with contextlib.suppress(asyncio.CancelledError):
        await sweeps.run()


async def test_a_quiet_bot_is_swept_once_a_period() -> None:
    schedule = Schedule([], sweeps=3)
    sweeps = sweeper(schedule)
    await run(sweeps)
    assert schedule.slept == [300.0, 300.0, 300.0]
    assert (sweeps.sweeps, sweeps.unquiet) == (2, 0)  # the third raised in collect


async def test_a_due_sweep_waits_for_nothing_being_handled() -> None:
    # due: busy, busy, busy, then quiet (the check after the wait, then the one before collect)
    schedule = Schedule([True, True, True, False, False], sweeps=1)
    await run(sweeper(schedule))
    assert schedule.slept == [300.0, 1.0, 1.0, 1.0]
    assert schedule.collected_busy == [False]


async def test_a_bot_never_quiet_is_swept_a_period_late() -> None:
    schedule = Schedule([True] * 100, sweeps=2)
    sweeps = sweeper(schedule, every=10.0, poll=1.0)
    await run(sweeps)
    assert schedule.slept[:11] == [10.0] + [1.0] * 10  # due, then a period of polls
    assert schedule.slept[11] == 10.0
    assert (sweeps.sweeps, sweeps.unquiet) == (1, 2)


def test_the_bot_s_thresholds_never_start_a_full_pass() -> None:
    """Net growth enough for 100 gen-1 passes and more (the defaults would have run a full pass after 10
    of them): the collector runs young passes only. The young thresholds are scaled down (the
    bot's would need tens of millions of objects here); the third, which decides, is the bot's."""
    before = gc.get_threshold()
    passes: list[int] = []

    def seen(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            passes.append(info["generation"])

    gc.collect()  # every generation's count starts at 0
    young = (500, 2)
    gc.set_threshold(*young, GC_THRESHOLDS[2])
    gc.callbacks.append(seen)
    try:
        kept = [[] for _ in range(young[0] * young[1] * 300)]
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*before)
    assert len(kept) == young[0] * young[1] * 300
    assert passes.count(1) >= 100 and passes.count(0) > passes.count(1)
    assert 2 not in passes

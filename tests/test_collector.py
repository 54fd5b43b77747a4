"""The bot process's collector policy (bot/core/collector.py): young passes run by the bot once
due, when nothing is being handled (the collector's own threshold a backstop); full passes on the
bot's schedule, at a quiet moment when there is one."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from typing import Any

from bot.app import GC_THRESHOLDS
from bot.core.collector import YOUNG_DUE, OldGenerationSweeps, QuietYoungPasses


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


class Young:
    """The collector's counts set by the test, its passes recorded, the loop's call_soon kept
    to run by hand."""

    def __init__(self, counts: tuple[int, int, int], busy: bool = False) -> None:
        self.counts, self.is_busy = counts, busy
        self.soon: list[Any] = []
        self.collected: list[int] = []
        self.passes = QuietYoungPasses(
            busy=lambda: self.is_busy,
            call_soon=self.soon.append,
            due=100,
            middle_every=3,
            count=lambda: self.counts,
            collect=self.collect,
        )

    def collect(self, generation: int) -> int:
        self.collected.append(generation)
        self.counts = (0, self.counts[1] + 1 if generation == 0 else 0, self.counts[2])
        return 0

    def run_soon(self) -> None:
        soon = self.soon[:]
        self.soon.clear()  # the same list: the passes hold its append
        for callback in soon:
            callback()


def test_no_young_pass_before_one_is_due() -> None:
    young = Young((99, 0, 0))
    young.passes.quiet()
    young.run_soon()
    assert young.collected == [] and young.soon == []


def test_a_due_young_pass_runs_soon_after_the_last_interaction_ends_and_once() -> None:
    young = Young((100, 0, 0))
    young.passes.quiet()
    young.passes.quiet()  # two interactions ending in one turn: one pass asked for
    assert len(young.soon) == 1 and young.collected == []  # soon, not inside the ending one
    young.run_soon()
    assert young.collected == [0] and young.passes.passes == 1
    young.passes.quiet()  # its count is back to 0: nothing due
    assert young.soon == []


def test_a_click_arriving_before_the_pass_puts_it_off_to_the_next_quiet_moment() -> None:
    young = Young((150, 0, 0))
    young.passes.quiet()
    young.is_busy = True
    young.run_soon()
    assert young.collected == []
    young.is_busy = False
    young.passes.quiet()  # asked again: the first ask is spent
    young.run_soon()
    assert young.collected == [0]


def test_every_few_young_passes_take_the_middle_generation_too() -> None:
    young = Young((100, 0, 0))
    for _ in range(4):
        young.counts = (100, *young.counts[1:])
        young.passes.quiet()
        young.run_soon()
    assert young.collected == [0, 0, 0, 1]


def test_the_collector_s_own_young_threshold_is_only_a_backstop() -> None:
    assert GC_THRESHOLDS[0] > YOUNG_DUE

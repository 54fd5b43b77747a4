"""The cycle collector's passes, run by the bot at moments no interaction is being handled.

Young passes (``QuietYoungPasses``): a young pass walks every container made since the last one
and still alive (60,000-70,000 objects, 15-25 ms in bench/bot.py), and the collector starts one
when allocations outrun deallocations, which is when clicks arrive fastest: in an open-loop run
at 80 % of the saturated rate, every click over 50 ms was one in flight (~75 of them) during
such a pass. So the bot runs a young pass itself once one is due (``YOUNG_DUE``), when the last
interaction being handled ends; the collector's own first threshold (``GC_THRESHOLDS`` in
bot/app.py, four times higher) is only a backstop for a bot that is never quiet.

Full passes (``OldGenerationSweeps``): the collector never starts one itself: what survives the
young passes stays in the old generation unwalked. A full pass walks every live object not frozen at
start-up (the cached sessions, their kept panels: 60,000-130,000 objects and 20-50 ms in
bench/bot.py, more with more sessions cached), so it runs here, once a period, at the first
moment no interaction is being handled (within a period more: a bot never quiet is still
swept). Cyclic garbage that reached the old generation waits for it: the bot makes little (the
young passes of a bench run freed 0-1,150 objects in all), and a period bounds how long.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

FULL_EVERY = 300.0  # seconds between full passes
QUIET_POLL = 0.05  # once due: how often to look for a moment with nothing being handled
YOUNG_DUE = 50_000  # allocations net of deallocations since the last pass: a young pass is due
MIDDLE_EVERY = 20  # young passes between two passes of the middle generation too (as Python's)


class QuietYoungPasses:
    """A young pass once one is due, run when nothing is being handled (``quiet``, called as
    the last interaction being handled ends), not when the collector's count trips during a
    burst of clicks."""

    def __init__(
        self,
        busy: Callable[[], bool],
        call_soon: Callable[[Callable[[], None]], object],
        due: int | None = None,  # YOUNG_DUE, read when made (a bench may set it)
        middle_every: int = MIDDLE_EVERY,
        count: Callable[[], tuple[int, int, int]] = gc.get_count,
        collect: Callable[[int], int] = gc.collect,
    ) -> None:
        self.busy, self._call_soon = busy, call_soon
        self.due = YOUNG_DUE if due is None else due
        self.middle_every = middle_every
        self._count, self._collect = count, collect
        self._asked = False  # a pass is already asked for (one call_soon at a time)
        self.passes = 0

    def quiet(self) -> None:
        """The last interaction being handled ended: ask for a pass if one is due."""
        if not self._asked and self._count()[0] >= self.due:
            self._asked = True
            # Soon, not now: the ending interaction's own last steps (its metrics) go first.
            self._call_soon(self._pass)

    def _pass(self) -> None:
        self._asked = False
        counts = self._count()
        if self.busy() or counts[0] < self.due:
            return  # a click came in meanwhile: the next quiet moment
        self._collect(1 if counts[1] >= self.middle_every else 0)
        self.passes += 1


class OldGenerationSweeps:
    """A full collection every ``every`` seconds, at the first quiet moment after it is due."""

    def __init__(
        self,
        busy: Callable[[], bool],
        every: float | None = None,  # FULL_EVERY, read when made (a bench may set it)
        poll: float = QUIET_POLL,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        collect: Callable[[], int] = gc.collect,
    ) -> None:
        self.busy, self.poll = busy, poll
        self.every = FULL_EVERY if every is None else every
        self._sleep, self._collect = sleep, collect
        self.sweeps = 0
        self.unquiet = 0  # sweeps run while busy: no quiet moment within a period

    async def run(self) -> None:
        while True:
            await self._sleep(self.every)
            waited = 0.0
            while self.busy() and waited < self.every:
                await self._sleep(self.poll)
                waited += self.poll
            if self.busy():
                self.unquiet += 1
            freed = self._collect()
            self.sweeps += 1
            log.debug("full collection %d: %d unreachable objects freed", self.sweeps, freed)

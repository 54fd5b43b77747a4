"""The cycle collector's old generation, walked on the bot's schedule instead of the collector's.

The bot's process collects its young generations as it always did (``GC_THRESHOLDS`` in
bot/app.py) and never lets the collector start a full pass itself: what survives the young
passes stays in the old generation unwalked. A full pass walks every live object not frozen at
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

"""Many short deadlines that almost never fire: a click's "defer if the answer is late".

One timer a click (``loop.call_later``, then its cancel) was a timer handle made, pushed on
the loop's heap, compared in Python there, cancelled and popped again, for a deadline that
fires perhaps once in thousands of clicks. Here a deadline is a dict entry, and one timer
per loop, running only while deadlines wait, sweeps them every ``TICK``: one fires at most
``TICK`` late, well inside the slack it guards (replies.ACK_BUDGET against Discord's 3 s).
"""

from __future__ import annotations

import asyncio
import itertools
import weakref
from collections.abc import Callable

TICK = 0.05  # seconds between sweeps while deadlines wait


class Deadlines:
    """The deadlines of one event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._due: dict[int, tuple[float, Callable[[], None]]] = {}
        self._keys = itertools.count()
        self._sweeping: asyncio.TimerHandle | None = None

    def add(self, delay: float, fire: Callable[[], None]) -> int:
        """Call ``fire`` in ``delay`` seconds (up to TICK later) unless discarded first."""
        key = next(self._keys)
        self._due[key] = (self._loop.time() + delay, fire)
        if self._sweeping is None:
            self._sweeping = self._loop.call_later(TICK, self._sweep)
        return key

    def discard(self, key: int) -> None:
        self._due.pop(key, None)

    def _sweep(self) -> None:
        self._sweeping = None
        now = self._loop.time()
        late = [key for key, (when, _) in self._due.items() if when <= now]
        for key in late:
            _, fire = self._due.pop(key)
            fire()
        if self._due:
            self._sweeping = self._loop.call_later(TICK, self._sweep)


_LOOPS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Deadlines] = (
    weakref.WeakKeyDictionary()
)


def deadlines() -> Deadlines:
    """The running loop's deadlines."""
    loop = asyncio.get_running_loop()
    found = _LOOPS.get(loop)
    if found is None:
        found = _LOOPS[loop] = Deadlines(loop)
    return found

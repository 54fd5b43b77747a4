"""Tables whose deadline a restart moved, redrawn when it matters rather than all at once.

A start gives a game's timed step the time the bot was down (Alien Café's round clock,
``Game.refund_downtime``): its deadline moves later, while the table still shows the earlier
one. That one is never later than the truth, so nobody is misled into being late. A table is
edited at the start only when the time given back is worth telling: at least a tenth of the
time the table shows left, or its deadline has passed or is about to (within ``LEAD``).
Otherwise it shows the new deadline with its next edit (a move), or at the latest ``LEAD``
seconds before the deadline it shows: one edit, as the budget allows. A big server's restart
then edits none of its idle Alien Café tables.

Which deadline such a table shows is kept in the memo (``late:<id>``) while it is not redrawn,
written at a stop, so a later start counts from what the table shows.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
from collections.abc import Callable, Iterable

from bot.core.sessions import SessionService
from bot.core.tasks import cancel_and_wait

log = logging.getLogger(__name__)

LEAD = 60.0  # seconds before the deadline a table shows that it shows the true one
WORTH_TELLING = 0.1  # of the time the table shows left: a gift at least this large is told now
MAX_SLEEP = 5.0  # the loop looks again at least this often (the bot's clock may jump in tests)

RESTART_HELP = """
## If the bot restarts
While the bot is down, nobody can play: a restart gives the round the time it was down. The \
table shows the new deadline at once when that time is worth telling (a tenth of the time it \
showed left, or its deadline was near); otherwise with its next change, and at the latest a \
minute before the deadline it showed. The deadline shown is never later than the real one.
"""


class LateTables:
    """The tables showing a deadline earlier than the true one, and when each is redrawn."""

    def __init__(self, service: SessionService, redraw: Callable[[int], None]) -> None:
        self.service = service
        self.redraw = redraw  # asks for a sync of the session's table (paced like any other)
        self.shown: dict[int, float] = {}  # session → the deadline its table shows
        self._due: list[tuple[float, int]] = []  # (when to redraw, session), a heap
        self._recorded: set[int] = set()  # sessions with a memo entry (from the last stop)
        self._task: asyncio.Task[None] | None = None

    async def sort(
        self, moved: dict[int, tuple[float, float]], open_ids: Iterable[int], behind: set[int]
    ) -> set[int]:
        """At a start: of the sessions whose deadline it moved (``moved``: before, after),
        those whose table is edited now; the others wait (their table shows the deadline it
        showed). ``behind``: open sessions synced anyway (their table is redrawn)."""
        recorded = await self.service.late_tables()
        self._recorded = set(recorded)
        now, at_once = self.service.now(), set()
        synced = behind | (recorded.keys() - set(open_ids))  # an ended game's memo: forgotten
        for session_id, (before, after) in moved.items():
            if session_id in synced:
                continue
            shown = recorded.get(session_id, before)
            left = shown - now
            if left <= LEAD or after - shown >= WORTH_TELLING * left:
                at_once.add(session_id)
            else:
                self.shown[session_id] = shown
                heapq.heappush(self._due, (shown - LEAD, session_id))
        # Recorded at an earlier stop, not moved again this time: still late.
        for session_id, shown in recorded.items():
            if session_id not in moved and session_id not in synced:
                self.shown[session_id] = shown
                heapq.heappush(self._due, (shown - LEAD, session_id))
        return at_once

    def drawn(self, session_id: int) -> None:
        """The session's table was drawn from its state now: it shows the true deadline."""
        self.shown.pop(session_id, None)

    def run_due(self) -> float:
        """Ask for the redraw of every table whose time came; the seconds until the next."""
        now = self.service.now()
        while self._due and self._due[0][0] <= now:
            _, session_id = heapq.heappop(self._due)
            if session_id in self.shown:
                self.redraw(session_id)
        return min(MAX_SLEEP, self._due[0][0] - now) if self._due else MAX_SLEEP

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="cafebot-late-tables")

    async def stop(self) -> None:
        await cancel_and_wait(self._task)
        self._task = None

    async def record(self) -> None:
        """At a stop: which deadline each table still late shows (and forget the rest)."""
        entries: dict[int, float | None] = dict.fromkeys(self._recorded - self.shown.keys())
        entries |= self.shown
        if entries:
            await self.service.record_late_tables(entries)
        self._recorded = set(self.shown)

    async def _run(self) -> None:
        while True:
            try:
                wait = self.run_due()
            except Exception:
                log.exception("redrawing late tables failed")
                wait = MAX_SLEEP
            await asyncio.sleep(max(0.05, wait))

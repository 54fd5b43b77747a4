"""Deadlines, reminders and undo requests, kept as rows in the database so they survive restarts.

One task sleeps until the earliest timer (or until a session changes), fires what is due and goes
back to sleep. At start it fires what fell due while the bot was down; games that ask for it
(Alien Café's round clock) get the time the bot was down given back instead.

The scheduler decides nothing about how things are shown: a reminder and the notice of a
deadline played go to the session's outbox, in the same transaction as the timer's end, and the
front end posts them from there.

With several processes on one database, each runs this loop: a due timer is claimed by one of
them (``claim_due_timers``), and firing it is a versioned write, so it takes effect once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from bot.core.errors import DamagedSession, StorageFull, UserError
from bot.core.sessions import SessionService
from bot.core.store import SessionStatus, Store, TimerRow
from bot.core.tasks import cancel_and_wait
from games import REGISTRY

log = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 5.0  # how often "the bot is alive" is written, for downtime refunds
MAX_SLEEP = 5.0
# A shared database's heartbeat is at most this old while any process runs (one heartbeat per
# HEARTBEAT_SECONDS, written from a loop that wakes at least every MAX_SLEEP).
SHARED_ALIVE_WINDOW = HEARTBEAT_SECONDS + MAX_SLEEP + 1.0


class Scheduler:
    def __init__(
        self,
        store: Store,
        service: SessionService,
        clock: Callable[[], float],
    ) -> None:
        self.store = store
        self.service = service
        self.clock = clock
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._last_heartbeat = 0.0
        self._firing = asyncio.Lock()  # the loop and run_due() callers never fire twice
        # Sessions whose timers failed in this process: reported once; those whose firing
        # crashed (a bug, not a refusal) are left alone until the next start, not retried in
        # a loop, and never hold up the other sessions' timers.
        self._reported: set[int] = set()
        self._broken: set[int] = set()
        # Sessions whose deadline the start moved (the downtime given back): before, after.
        self.refunded: dict[int, tuple[float, float]] = {}
        # A move within a timed step leaves the timers as they were: no need to read them.
        service.subscribe(lambda change: self.wake() if change.timers else None)

    async def start(self) -> None:
        await self.refund_downtime()
        self._task = asyncio.create_task(self._run(), name="cafebot-timers")

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None
            # A clean stop: the bot is down from now, not from its last periodic heartbeat (up to
            # HEARTBEAT_SECONDS earlier), so the refund at the next start is exact.
            try:
                await self._heartbeat(force=True)
            except StorageFull:
                pass  # logged by the store; the refund then counts from the last heartbeat
            except Exception:
                log.warning("could not record the time of the stop", exc_info=True)

    def wake(self) -> None:
        self._wake.set()

    async def refund_downtime(self) -> None:
        now = self.clock()
        # Read and replaced at once: of processes starting together, one sees the downtime.
        last_alive = await self.store.swap_meta("last_alive", repr(now))
        self._last_heartbeat = now
        if last_alive is not None:
            down_since = float(last_alive)
            downtime = now - down_since
            if self.store.shared and downtime <= SHARED_ALIVE_WINDOW:
                # Another process was writing the heartbeat: the bot was not down.
                downtime = 0.0
            refunded = [
                sid
                for sid, game_id, _ in await self.store.session_heads(SessionStatus.ACTIVE)
                if game_id in REGISTRY and REGISTRY[game_id].refund_downtime
            ]
            if downtime > 0 and refunded:
                # The deadlines the shift moves, read first: their tables show them (one read).
                chosen = set(refunded)
                moved = {
                    t.session_id: (t.due_at, t.due_at + downtime)
                    for t in await self.store.timers()
                    if t.kind == "deadline" and t.session_id in chosen and t.due_at > down_since
                }
                await self.store.shift_timers(refunded, after=down_since, by=downtime)
                self.service.timers_changed()
                self.refunded = moved
                log.info("gave %.0f s of downtime back to %d session(s)", downtime, len(refunded))

    async def _heartbeat(self, force: bool = False) -> None:
        now = self.clock()
        if force or now - self._last_heartbeat >= HEARTBEAT_SECONDS:
            await self.store.set_meta("last_alive", repr(now))
            self._last_heartbeat = now

    async def run_due(self) -> float:
        """Fire every timer that is due; return the seconds until the next one (at most 5)."""
        async with self._firing:
            await self._heartbeat()
            now = self.clock()
            due, upcoming = await self.store.claim_due_timers(now)
            for timer in due:
                if timer.session_id not in self._broken:
                    await self._fire_or_report(timer)
            # Undo requests nobody objected to in time are granted (with several processes,
            # each may try: granting is a versioned write, so it takes effect once).
            await self.service.settle_due_undos()
            wakes = [] if upcoming is None else [upcoming]
            undo_due = await self.service.next_undo_due()
            if undo_due is not None:
                wakes.append(max(undo_due, now + 0.01))
            return min([MAX_SLEEP, *(d - now for d in wakes)])

    async def tick(self) -> float:
        """One turn of the loop: fire what is due; a failure is logged (a full disk: by the
        store, once) and tried again after MAX_SLEEP. Returns the seconds to sleep."""
        try:
            return await self.run_due()
        except StorageFull:
            return MAX_SLEEP  # nothing fired, nothing lost: the timers are still there
        except Exception:
            log.exception("timer loop failed; retrying")
            return MAX_SLEEP

    async def _run(self) -> None:
        while True:
            sleep = await self.tick()
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=max(0.01, sleep))

    async def _fire_or_report(self, timer: TimerRow) -> None:
        try:
            await self._fire(timer)
        except asyncio.CancelledError:
            raise
        except DamagedSession as exc:  # cannot be loaded: refused, its timer dropped
            self._report(timer, f"game #{timer.session_id} is damaged: {exc.message}")
            await self.store.delete_timer(timer.session_id, timer.kind, timer.key)
            self.service.timers_changed(timer.session_id)
        except UserError as exc:
            log.info("the %s of game #%s was refused: %s", timer.kind, timer.session_id, exc)
            await self.store.delete_timer(timer.session_id, timer.kind, timer.key)
            self.service.timers_changed(timer.session_id)
        except StorageFull:
            raise  # the disk's fault, not the game's: the loop tries every timer again later
        except Exception as exc:
            if _storage_fault(exc):
                raise  # the database's fault, not the game's: the loop retries every timer
            self._broken.add(timer.session_id)
            self._report(
                timer,
                f"the {timer.kind} of game #{timer.session_id} failed ({exc!r}); its timers "
                "wait for the next start",
                exc,
            )

    def _report(self, timer: TimerRow, text: str, exc: BaseException | None = None) -> None:
        if timer.session_id in self._reported:
            return
        self._reported.add(timer.session_id)
        # A bug's first traceback helps; a damaged row's says nothing more than its message.
        log.error("%s", text, exc_info=exc)

    async def _fire(self, timer: TimerRow) -> None:
        if timer.kind == "reminder":
            deadline = await self.service.deadline(timer.session_id)
            if deadline is not None and deadline.due_at <= self.clock():
                # Overdue (the bot was down): the move is played now, too late to remind.
                await self.store.delete_timer(timer.session_id, "reminder", timer.key)
                return
            try:
                await self.service.remind(
                    timer.session_id, timer.key, deadline.due_at if deadline else timer.due_at
                )
            except UserError:
                await self.store.delete_timer(timer.session_id, "reminder", timer.key)
            return
        result = await self.service.fire_deadline(timer.session_id, timer.key)
        if result is None:
            await self.store.delete_timer(timer.session_id, "deadline", timer.key)
            self.service.timers_changed(timer.session_id)


def _storage_fault(exc: BaseException) -> bool:
    """The database failed (full disk, connection lost…), not the session's game."""
    return isinstance(exc, OSError) or type(exc).__module__.split(".")[0] in (
        "sqlite3",
        "aiosqlite",
        "asyncpg",
    )

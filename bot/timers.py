"""Deadlines and reminders, kept as rows in SQLite so they survive restarts.

One task sleeps until the earliest timer (or until woken by a change), fires what is due and
goes back to sleep. At start it fires what fell due while the bot was down; games that ask for
it (Alien Café's round clock) get the time the bot was down given back instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from bot.errors import UserError
from bot.store import TimerRow
from games import REGISTRY

if TYPE_CHECKING:
    from bot.app import CafeBot

log = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 5.0  # how often "the bot is alive" is written, for downtime refunds
MAX_SLEEP = 5.0


class Scheduler:
    def __init__(self, bot: CafeBot) -> None:
        self.bot = bot
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._last_heartbeat = 0.0
        self._firing = asyncio.Lock()  # the loop and run_due() callers never fire twice

    async def start(self) -> None:
        await self.refund_downtime()
        self._task = asyncio.create_task(self._run(), name="cafebot-timers")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
            # A clean stop: the bot is down from now, not from its last periodic heartbeat (up to
            # HEARTBEAT_SECONDS earlier), so the refund at the next start is exact.
            try:
                await self._heartbeat(force=True)
            except Exception:
                log.warning("could not record the time of the stop", exc_info=True)

    def wake(self) -> None:
        self._wake.set()

    async def refund_downtime(self) -> None:
        store = self.bot.store
        last_alive = await store.get_meta("last_alive")
        now = self.bot.clock()
        if last_alive is not None:
            down_since = float(last_alive)
            downtime = now - down_since
            refunded = [
                row.id
                for row in await store.sessions_with_status("active")
                if row.game_id in REGISTRY and REGISTRY[row.game_id].refund_downtime
            ]
            if downtime > 0 and refunded:
                await store.shift_timers(refunded, after=down_since, by=downtime)
                log.info("gave %.0f s of downtime back to %d session(s)", downtime, len(refunded))
        await self._heartbeat(force=True)

    async def _heartbeat(self, force: bool = False) -> None:
        now = self.bot.clock()
        if force or now - self._last_heartbeat >= HEARTBEAT_SECONDS:
            await self.bot.store.set_meta("last_alive", repr(now))
            self._last_heartbeat = now

    async def run_due(self) -> float:
        """Fire every timer that is due; return the seconds until the next one (at most 5)."""
        async with self._firing:
            await self._heartbeat()
            timers = await self.bot.store.timers()
            now = self.bot.clock()
            for timer in [t for t in timers if t.due_at <= now]:
                await self._fire(timer)
            upcoming = [t.due_at for t in timers if t.due_at > now]
            return min([MAX_SLEEP, *(d - now for d in upcoming)])

    async def _run(self) -> None:
        while True:
            try:
                sleep = await self.run_due()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("timer loop failed; retrying")
                sleep = MAX_SLEEP
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=max(0.01, sleep))

    async def _fire(self, timer: TimerRow) -> None:
        bot = self.bot
        if timer.kind == "reminder":
            await bot.store.delete_timer(timer.session_id, "reminder", timer.key)
            try:
                s = await bot.service.load(timer.session_id)
            except UserError:
                return
            deadline = next((t for t in await bot.store.timers(s.id) if t.kind == "deadline"), None)
            if deadline is not None and deadline.due_at <= bot.clock():
                return  # overdue (the bot was down): the move is played now, too late to remind
            await bot.tables.remind(s, deadline.due_at if deadline else timer.due_at)
            return
        try:
            result = await bot.service.fire_deadline(timer.session_id, timer.key)
        except UserError:
            log.exception("deadline of session %s failed", timer.session_id)
            await bot.store.delete_timer(timer.session_id, "deadline", timer.key)
            return
        if result is None:
            await bot.store.delete_timer(timer.session_id, "deadline", timer.key)
            return
        s = result.session
        if result.auto_played and not s.game.announces_timeouts:
            # Neutral wording: the default differs by game (a move played for them, a level kept,
            # a tray locked as it is); each game's rules say which.
            await bot.tables.post_notice(
                s.row.channel_id,
                f"⏰ Time's up for {bot.tables.names_text(s, result.auto_played)} — I decided "
                f"for them as the rules say (`/game rules {s.game.id}`), and the game goes on.",
            )
        bot.tables.request_sync(s.id)

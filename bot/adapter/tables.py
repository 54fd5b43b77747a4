"""Keeps what players see in Discord in step with the stored sessions.

The session service tells :class:`TableSync` about every change, with the views it may have
touched. One worker per session then brings those up to date: the channel's table message, the
session's posts (from its outbox: each sent once, with a nonce, retried with backoff when
Discord or the network fails) and the players' DMs, drawing only what a digest says changed.

One writer at a time per message: the worker, or a click's own answer (the clicked message is
updated in the interaction's callback, which costs no channel rate limit), each holding the
message's lock and drawing the newest state, so an older render never lands after a newer one.

A game's posts (announcements, turn notices, time's-up) go to a thread opened on the table
message, so the channel itself keeps just the table; where the bot may not open threads they
go to the channel. Each part fails alone: a deleted channel does not stop the DMs.

With several bot processes, one at a time shows a session
(:class:`~bot.core.presentation.Presentation`): its worker, and a click's own answer, hold the
session's presentation while they draw; a process that finds another one presenting tries
again a moment later, and one that takes over forgets what it remembered of the messages.

Its parts, one module each, built on one another: ``sync_state`` (what the worker knows, the
one-writer rule), ``posts`` (the outbox), ``dm_panels`` (the DMs), ``click_answers`` (a click
answered on its own message); here, the workers' scheduling and the table message.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial

from bot.adapter.click_answers import ClickAnswers
from bot.adapter.dm_panels import DmPanels
from bot.adapter.messenger import Failure, failure_of
from bot.adapter.pacing import pass_paced, slot_ahead
from bot.adapter.sync_state import Pending, Where, awaited
from bot.core.errors import StorageFull, UserError
from bot.core.seats import is_robot
from bot.core.sessions import TABLE, Change, Session
from bot.core.store import SessionStatus
from bot.core.tasks import cancel_and_wait
from games.engine import PrivatePanel, TurnStyle

log = logging.getLogger(__name__)

RESYNC_AFTER_FAILURE = 5.0
PRESENTED_ELSEWHERE_RETRY = 0.05  # another process is showing the session: after it, again
SLOT_WAIT = 0.5  # seconds a sync waits for a slot before it goes anyway
CATCH_UP_AT_ONCE = 8  # at a start, sessions behind synced at once (see TableSync._catch_up)
# Seconds a stop spends checking what the messages of the sessions it showed show (part of the
# stop's budget; a session not checked is synced at the next start).
RECORD_SHOWN_WITHIN = 1.5
POST_TABLE_TRIES = 40  # a rematch's first table: while another process shows it, wait (2 s)

# In a step where everyone works at once on their own panel, nobody waits on the table: it shows
# who is still playing a few seconds late, and their progress later still (fewer edits of a busy
# channel; each player's own panel is live).
SIMULTANEOUS_TABLE_SLOWDOWN = 5
PROGRESS_ONLY_SLOWDOWN = 3  # the same players awaited as the table shows: only progress changed


class TableSync(ClickAnswers, DmPanels):
    """Brings each changed session's messages up to date, one worker per session."""

    async def catch_up(
        self,
        heads: list[tuple[int, SessionStatus, int]],
        moved: dict[int, tuple[float, float]] | None = None,
    ) -> int:
        """At a start: sync each open session (``heads``: id, status, version) unless its
        messages were found to show this very version in full before the stop (none is loaded
        then; ``moved``: sessions whose deadline the start moved, before and after: synced now
        if it is worth it, see LateTables). Unsent posts are found by the outbox's retries.
        Returns how many were asked to sync."""
        shown = await self.service.shown_versions() if self.records_shown else {}
        stale = {sid for sid, _, version in heads if shown.get(sid) != version}
        if self.records_shown:
            stale |= await self.late.sort(moved or {}, (sid for sid, _, _ in heads), stale)
        behind = [sid for sid, _, _ in heads if sid in stale]
        if behind:
            self._catching_up = asyncio.create_task(self._catch_up(behind), name="cafebot-catch-up")
        return len(behind)

    async def _catch_up(self, behind: list[int]) -> None:
        """Sync these sessions a few at a time: thousands of workers at once would each load
        their game together (memory) and hold up the clicks that arrive meanwhile."""
        for session_id in behind:
            while len(self._workers) >= CATCH_UP_AT_ONCE:
                await asyncio.wait(
                    list(self._workers.values()), return_when=asyncio.FIRST_COMPLETED
                )
            self.request_sync(session_id)

    async def record_shown(self, within: float) -> None:
        """At a stop, after the last syncs: a full pass over each session this process
        changed or showed (for ``within`` seconds at most; what a pass changes nothing of is
        already up to date), then one write of the versions found shown in full. A session
        left out is synced at the next start, as is any after a crash."""
        if not self.records_shown or not self._touched:
            return
        try:
            await self.service.reachable()
        except Exception:  # e.g. the database went away: the next start syncs every game
            log.warning("at the stop, the database did not answer: nothing recorded as shown")
            return
        loop = asyncio.get_running_loop()
        until = loop.time() + within
        for session_id in sorted(self._touched):
            if loop.time() >= until:
                break
            if session_id in self._shown_at:
                continue  # a full pass found it shown since its last change
            try:
                await self.sync(session_id, Pending(views=None, posts=True))
            except Exception:
                log.warning("session %s: could not check its messages", session_id, exc_info=True)
        try:
            await self.service.record_shown(
                {sid: self._shown_at.get(sid) for sid in self._touched | set(self._shown_at)}
            )
        except Exception:  # the next start then syncs them all, as after a crash
            log.warning("could not record what the messages show", exc_info=True)
        self._touched.clear()

    async def _work(self, session_id: int) -> None:
        try:
            while session_id in self._pending:
                async with self._slot(), pass_paced(self.pacer):
                    pending = self._pending.pop(session_id, None)
                    if pending is None:
                        break
                    try:
                        await self.sync(session_id, pending)
                    except StorageFull:  # logged by the store, once per episode
                        self._sync_later(session_id, RESYNC_AFTER_FAILURE, None)
                    except Exception:
                        log.exception("syncing session %s failed", session_id)
        finally:
            self._workers.pop(session_id, None)

    @contextlib.asynccontextmanager
    async def _slot(self) -> AsyncIterator[None]:
        """One of the sync slots, waited for a moment at most: a sync whose request hangs
        (Discord slow to answer) holds its slot, and must not hold up every other session."""
        if self._slots.locked():
            try:
                await asyncio.wait_for(self._slots.acquire(), SLOT_WAIT)
            except TimeoutError:
                yield  # over the limit, rather than late
                return
        else:
            await self._slots.acquire()  # free: taken at once (wait_for costs a task)
        try:
            yield
        finally:
            self._slots.release()

    async def idle(self, *, delayed: bool = True) -> None:
        """Wait until every pending sync is done, delayed edits included unless ``delayed`` is
        False (retries of failed posts are not waited for)."""
        while self._workers or (delayed and self._delayed) or self._still_catching_up():
            if self._catching_up is not None and self._still_catching_up():
                await asyncio.wait([self._catching_up], timeout=0.05)
            elif self._workers:
                await asyncio.gather(*list(self._workers.values()), return_exceptions=True)
            else:
                await asyncio.sleep(0.01)

    def _still_catching_up(self) -> bool:
        return self._catching_up is not None and not self._catching_up.done()

    async def flush(self) -> None:
        """At a stop: what waits goes now (posts held for later moves' posts or for their
        next try, syncs put off by the edit spacing), and every sync started ends. A post that
        fails again is left in the outbox, for the next start. Then what the messages show is
        recorded (see record_shown)."""
        self._flushing = True
        # What it did not reach is synced at the next start.
        await cancel_and_wait(self._catching_up)
        waiting, self._delayed = self._delayed, {}
        for session_id, (handle, later) in waiting.items():
            handle.cancel()
            self.on_change(later.change(session_id))
        await self.idle(delayed=False)
        await self.record_shown(RECORD_SHOWN_WITHIN)
        if self.records_shown:
            try:
                await self.late.record()
            except Exception:  # the next start counts from the deadline before its refund
                log.warning("could not record the tables' deadlines", exc_info=True)

    def start(self) -> None:
        """Start retrying failed posts when their time comes."""
        self._retries = asyncio.create_task(self._retry_posts(), name="cafebot-outbox")
        self.late.start()

    async def stop(self) -> None:
        await self.late.stop()
        await cancel_and_wait(self._catching_up)
        await cancel_and_wait(self._retries)
        self._retries = None
        for handle, _ in self._delayed.values():
            handle.cancel()
        self._delayed.clear()

    async def _retry_posts(self) -> None:
        while True:
            try:
                for session_id in await self.service.sessions_with_posts_due():
                    self.on_change(Change(session_id, frozenset(), posted=True))
                due = await self.service.next_post_due()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("looking for posts to retry failed")
                due = None
            wait = 5.0 if due is None else min(5.0, max(0.2, due - self.service.now()))
            await asyncio.sleep(wait)

    async def sync(self, session_id: int, pending: Pending | None = None) -> None:
        pending = pending or Pending(views=None, posts=True)
        async with self._presenting(session_id) as held:
            if not held:  # another process is showing it: after it, from the newest state
                self._sync_later(
                    session_id, PRESENTED_ELSEWHERE_RETRY, pending.views, posts=pending.posts
                )
                return
            await self._sync_held(session_id, pending)

    async def _sync_held(self, session_id: int, pending: Pending) -> None:
        self._shown_at.pop(session_id, None)  # true again only after this pass, if full
        self._short.discard(session_id)
        try:
            s = await self.service.load(session_id)
        except UserError as exc:
            # Its game cannot be shown, but what it must post (e.g. that it was abandoned) can.
            log.warning("session %s cannot be shown: %s", session_id, exc.message)
            channel_id, names = await self.service.post_context(session_id)
            where = Where(session_id, channel_id, names)
            await self._part(session_id, "posts", partial(self._flush_outbox, where))
            return
        self._caught_up(s)
        # Each part fails alone; results are posted before the next step's DMs go out.
        if pending.wants(TABLE):
            await self._part(s.id, "table", partial(self._sync_table, s))
        held_until: float | None = None
        if pending.posts:
            where = Where(
                s.id, s.row.channel_id, s.names(), s.row.table_message_id, s.state is not None
            )

            async def flush() -> None:
                nonlocal held_until
                held_until = await self._flush_outbox(where)

            await self._part(s.id, "posts", flush)
        if (
            s.state is not None
            and s.game.private_panel is PrivatePanel.DM
            and s.status is not SessionStatus.LOBBY
        ):
            if held_until is not None:  # the DMs of a step go after the posts that announce it
                views = None if pending.views is None else pending.views - {TABLE}
                self._sync_later(s.id, max(0.0, held_until - time.time()), views, posts=True)
                return
            # A bot player reads the state, not DMs.
            users = [p.user_id for p in s.players if not is_robot(p.user_id)]
            users = [uid for uid in users if pending.wants(uid)]
            counted = await self._count_elsewhere(s, users)
            for uid in users:
                sync = partial(self._sync_dm, s, uid, counted.get(uid))
                await self._part(s.id, f"DM of {uid}", sync)
        full = pending.views is None and pending.posts and s.status.is_open
        if full and s.id not in self._short and s.id not in self._delayed:
            self._shown_at[s.id] = s.version
        if not s.status.is_open and s.id not in self._short and s.id not in self._delayed:
            self._forget_ended(s)

    async def _part(
        self, session_id: int, what: str, sync: Callable[[], Awaitable[object]]
    ) -> None:
        try:
            await sync()
        except StorageFull:  # logged by the store, once per episode: shown again later
            self._sync_later(session_id, RESYNC_AFTER_FAILURE, None)
        except Exception as exc:
            self._short.add(session_id)
            failure = failure_of(exc)
            if failure is Failure.REFUSED:
                log.exception("session %s: showing the %s failed", session_id, what)
                return
            log.warning(
                "session %s: showing the %s failed (%s): %s", session_id, what, failure.value, exc
            )
            if failure is Failure.RETRY:
                self._sync_later(session_id, RESYNC_AFTER_FAILURE, None)

    def _table_interval(self, s: Session) -> float:
        """How long after an edit of the table the next one waits."""
        interval = self._shortest_table_interval(s)
        simultaneous = s.game.turn_style is TurnStyle.SIMULTANEOUS
        if simultaneous and self._table_awaited.get(s.id) == awaited(s):
            interval *= PROGRESS_ONLY_SLOWDOWN
        return interval

    def _shortest_table_interval(self, s: Session) -> float:
        """How long after an edit of the table the next one waits at least, whatever changes."""
        if s.game.turn_style is TurnStyle.SIMULTANEOUS:
            return self.table_edit_interval * SIMULTANEOUS_TABLE_SLOWDOWN
        return self.table_edit_interval

    async def _sync_table(self, s: Session) -> None:
        message_id = s.row.table_message_id
        if s.row.channel_id in self._gone_channels:
            return
        if message_id is None:
            if s.row.rematch_of is not None and s.status is SessionStatus.LOBBY:
                await self.post_table(s.id)  # a rematch's lobby that was not posted yet
            return
        shown = self._table_digests.get(s.id)
        drawn = self.screens.table_parts_drawn(s) if shown is not None else None
        if drawn is not None and drawn.digest == shown:
            # It shows this version already (e.g. a step's DMs, a pass after the one that
            # edited the table): no pass later to find so.
            self.late.drawn(s.id)
            return
        interval = self._table_interval(s)
        if shown is not None and self._throttled(s, TABLE, interval):
            # Edited a moment ago: the pass it puts off draws whatever is newest then (moves
            # made meanwhile, e.g. each player's confirm, are not drawn one by one).
            return
        parts = await self.screens.table_parts(s)
        pictured = any(p.image is not None for p in parts.panels)
        if s.id not in self._table_digests and pictured:
            # After a restart: a table with pictures is not drawn (nor uploaded) again if it
            # shows what it showed.
            stored = await self.service.recall(f"table:{s.id}")
            if stored is not None:
                self._table_digests[s.id] = stored
        if self._table_digests.get(s.id) == parts.digest:
            self.late.drawn(s.id)
            return
        if self._leave_to_click(message_id, s.id, TABLE):
            return
        if self._throttled(s, TABLE, interval):
            return
        async with slot_ahead(self.pacer), self._lock(message_id):
            if self._table_digests.get(s.id) == parts.digest:
                return  # a click's answer showed it meanwhile
            if self.pacer is not None and (await self.service.load(s.id)).version != s.version:
                # A click's answer may have drawn a newer state while this waited for the
                # budget: draw the newest, in a pass of its own, rather than go back.
                self.on_change(Change(s.id, frozenset({TABLE}), posted=False))
                return
            table = self.screens.render_table(s, parts)
            now = time.monotonic()
            self._edited_at[(s.id, TABLE)] = now
            if s.status is SessionStatus.ACTIVE:  # only an active game's table is spaced
                self._table_calm[s.id] = now + self._shortest_table_interval(s)
            try:
                await self._edit(s.row.channel_id, message_id, table)
            except Exception as exc:
                failure = failure_of(exc)
                if failure is Failure.GONE:
                    self._channel_gone(s.row.channel_id, exc)
                    return
                if failure is not Failure.MESSAGE_GONE:
                    raise
                # The table message was deleted: post a new one so the game stays playable.
                new = await self.messenger.send(
                    s.row.channel_id,
                    f"table:{s.id}:{message_id}",
                    files=await self._files(table),
                    **table.message(),
                )
                await self.pictures.after_edit(new.id, table.pictures, new.attachments, new=True)
                await self.service.record_table_message(s.id, new.id)
                self._threads.pop(s.id, None)
            self._table_digests[s.id] = table.digest
            self._table_awaited[s.id] = awaited(s)
            self.late.drawn(s.id)
            if pictured:
                await self.service.remember(f"table:{s.id}", table.digest)

    async def post_table(self, session_id: int) -> int | None:
        """Post the table message of a session that has none yet (a lobby opened by a Rematch
        button: not an answer to a command in its channel). Returns its id (None: another
        process is showing the session and has not posted it yet)."""
        async with self._posting.setdefault(session_id, asyncio.Lock()):
            for _ in range(POST_TABLE_TRIES):
                async with self._presenting(session_id) as held:
                    if held:  # one process posts it (it may already have)
                        return await self._post_table_held(session_id)
                await asyncio.sleep(PRESENTED_ELSEWHERE_RETRY)
            return (await self.service.load(session_id)).row.table_message_id

    async def _post_table_held(self, session_id: int) -> int | None:
        s = await self.service.load(session_id)
        self._caught_up(s)
        if s.row.table_message_id is not None:
            return s.row.table_message_id
        table = await self.screens.table_payload(s)
        note = None
        if s.row.rematch_of is not None:
            note = (
                f"🔁 Rematch of game #{s.row.rematch_of}: everyone is seated again — "
                "**Leave** if you're out, and the host starts when ready."
            )
        message = await self.messenger.send(
            s.row.channel_id,
            f"table:{s.id}:first",
            files=await self._files(table),
            **table.message(note),
        )
        await self.service.record_table_message(s.id, message.id)
        self._table_digests[s.id] = table.digest
        return message.id

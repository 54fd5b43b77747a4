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
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import discord

from bot.adapter.answer import ACK, Answer, edit
from bot.adapter.clicked import message_id as clicked_id
from bot.adapter.closed_dms import TOLD, ClosedDms
from bot.adapter.late_tables import LateTables
from bot.adapter.messenger import ChannelGone, Failure, Messenger, failure_of
from bot.adapter.pacing import Pacer, pass_paced, slot_ahead
from bot.adapter.pictures import Pictures
from bot.adapter.render import embed_of, mention_line, names_in
from bot.adapter.screens import DM_CLOSED_TABLE_HELP, Rendered, Screens
from bot.adapter.stats import season_embed
from bot.adapter.turns import AS_OF_THIS_MOVE, LiveNotice, LiveTurns
from bot.core.errors import StorageFull, UserError
from bot.core.keyed_locks import KeyedLocks
from bot.core.presentation import Presentation
from bot.core.recent import RecentMap
from bot.core.seats import is_robot
from bot.core.sessions import TABLE, Change, Session, SessionService
from bot.core.store import CHANNEL, PostRow, SessionStatus, joins_others
from bot.core.tasks import cancel_and_wait
from games.engine import PrivatePanel, TurnStyle
from games.presentation import Announcement

log = logging.getLogger(__name__)

MAX_BACKOFF = 300.0  # seconds between two tries of a post, at most
RESYNC_AFTER_FAILURE = 5.0
THREAD_EXISTS = 160004  # "A thread has already been created for this message"
ANSWER_BUDGET = 2.5  # seconds after the interaction was created: past this, defer instead
PRESENTED_ELSEWHERE_RETRY = 0.05  # another process is showing the session: after it, again
SYNC_SLOTS = 4  # sessions whose messages are brought up to date at once (see TableSync._work)
SLOT_WAIT = 0.5  # seconds a sync waits for a slot before it goes anyway
CATCH_UP_AT_ONCE = 8  # at a start, sessions behind synced at once (see TableSync._catch_up)
# Seconds a stop spends checking what the messages of the sessions it showed show (part of the
# stop's budget; a session not checked is synced at the next start).
RECORD_SHOWN_WITHIN = 1.5
POST_TABLE_TRIES = 40  # a rematch's first table: while another process shows it, wait (2 s)
# What is remembered of the games' messages beside their digests (edit times, whom a table
# shows awaited, threads), for this many games (and their views) at most, the least recently
# written dropped first: each is read again from the database, or only spaces edits. A game's
# are dropped when it ends, with its digests.
SESSIONS_KEPT = 1_000  # as many as the session cache keeps loaded by default
VIEWS_KEPT = 5 * SESSIONS_KEPT


@dataclass(frozen=True)
class Where:
    """Where a session's posts go, and the names its texts use."""

    id: int
    channel_id: int
    names: dict[str, str]
    table_message_id: int | None = None
    started: bool = False


@dataclass
class Pending:
    """What a session's worker has yet to bring up to date."""

    views: set[str | None] | None = field(default_factory=set)  # None: every view
    posts: bool = False

    def add(self, change: Change) -> None:
        if change.views is None:
            self.views = None
        elif self.views is not None:
            self.views |= change.views
        self.posts = self.posts or change.posted

    def change(self, session_id: int) -> Change:
        views = None if self.views is None else frozenset(self.views)
        return Change(session_id, views, self.posts)

    def wants(self, view: str | None) -> bool:
        return self.views is None or view in self.views


MAX_EMBEDS = 10
MAX_EMBED_CHARS = 5500  # of Discord's 6,000 across a message's embeds, names not yet filled in
HOLD_SETTLE = 0.5  # seconds a held message waits past its hold for a move still committing


@dataclass
class Batch:
    """Unsent posts that go out as one message, and when they may go."""

    posts: list[PostRow]
    payloads: list[dict[str, Any]]  # each post's payload, decoded
    ready_at: float = 0.0  # wall time: a held batch waits for later moves' posts to join it


def batches(posts: list[PostRow]) -> list[Batch]:
    """Unsent posts in the order they go out. Channel announcements and notices share a message
    with those of the same change, and with those of later changes made before the first one's
    hold ran out (a quick game); the rest go alone; chunks fit a message. The same stored posts
    always make the same batches, so a retry after a crash carries the same nonce."""
    out: list[Batch] = []
    size, until = 0, None
    for post in posts:
        payload = json.loads(post.payload)
        last = out[-1] if out else None
        joins = joins_others(post.target, payload)
        if (
            joins
            and last is not None
            and until is not None
            and post.created_at <= until
            and len(last.posts) < MAX_EMBEDS
            and size + len(post.payload) <= MAX_EMBED_CHARS
        ):
            last.posts.append(post)
            last.payloads.append(payload)
            size += len(post.payload)
            continue
        hold = float(payload.get("hold", 0.0)) if joins else 0.0
        until = post.created_at + hold if joins else None
        # A move committing as the hold runs out is let in: wait a moment more before sending.
        ready = post.created_at + hold + min(hold, HOLD_SETTLE) if hold else 0.0
        out.append(Batch([post], [payload], ready))
        size = len(post.payload)
    return out


def turns_superseded(announcements: list[Announcement]) -> list[Announcement]:
    """Of a message's "whose turn" notices only the last still says something."""
    turns = [i for i, a in enumerate(announcements) if a.kind == "turn"]
    return [a for i, a in enumerate(announcements) if a.kind != "turn" or i == turns[-1]]


# In a step where everyone works at once on their own panel, nobody waits on the table: it shows
# who is still playing a few seconds late, and their progress later still (fewer edits of a busy
# channel; each player's own panel is live).
SIMULTANEOUS_TABLE_SLOWDOWN = 5
PROGRESS_ONLY_SLOWDOWN = 3  # the same players awaited as the table shows: only progress changed


def _kept(message_id: int, s: Session) -> bool:
    """Is ``message_id`` one the sync worker keeps up to date (the channel's table message or a
    player's DM), rather than an ephemeral copy?"""
    return message_id == s.row.table_message_id or any(
        p.dm_message_id == message_id for p in s.players
    )


def awaited(s: Session) -> frozenset[str]:
    return frozenset(s.game.active_players(s.state)) if s.state is not None else frozenset()


class TableSync:
    def __init__(
        self,
        service: SessionService,
        screens: Screens,
        messenger: Messenger,
        pictures: Pictures,
        table_edit_interval: float,
        dm_edit_interval: float = 0.0,
        *,
        presentation: Presentation | None = None,
        closed_dms: ClosedDms | None = None,
        records_shown: bool = False,
        pacer: Pacer | None = None,
    ) -> None:
        self.service = service
        # Under Discord's global limit: a pass waits for the budget before it loads the session
        # (its changes meanwhile are shown together, with the newest state).
        self.pacer = pacer
        self.closed_dms = closed_dms or ClosedDms(service)
        self.presentation = presentation or Presentation()
        self.screens = screens
        self.messenger = messenger
        self.pictures = pictures
        self.turns = LiveTurns(messenger, service)  # one "whose turn" notice per game at a time
        # Each session's open undo request as posted: (channel, message, seq, what it asks).
        self._undo_asked: dict[int, tuple[int, int, int, str]] = {}
        self.table_edit_interval = table_edit_interval
        self.dm_edit_interval = dm_edit_interval
        self._pending: dict[int, Pending] = {}
        # Sessions synced at once: a burst of background edits (a hundred round ends) must not
        # queue ahead of every step of the clicks that arrive meanwhile.
        self._slots = asyncio.Semaphore(SYNC_SLOTS)
        self._workers: dict[int, asyncio.Task[None]] = {}
        # What each table message shows now: kept while its game is open (a pass that found
        # none would edit the table again), dropped when it ends.
        self._table_digests: dict[int, str] = {}
        self._table_awaited: RecentMap[int, frozenset[str]] = RecentMap(SESSIONS_KEPT)  # awaiting
        # (session, view) → monotonic time of its last edit
        self._edited_at: RecentMap[tuple[int, str | None], float] = RecentMap(VIEWS_KEPT)
        # Syncs waiting their turn, and what each will bring up to date.
        self._delayed: dict[int, tuple[asyncio.TimerHandle, Pending]] = {}
        self._message_locks: KeyedLocks[int] = KeyedLocks()
        # Messages a click is about to answer (its callback shows the move): the worker leaves
        # them to it, and syncs them after if the answer did not show the newest state.
        self._claimed: dict[int, int] = {}
        self._left_to_claim: dict[int, tuple[int, str | None]] = {}
        # The views those clicks' answers draw, and the newest version of the changes of those
        # views that wait for the answers: a view an answer drew from that version or a later
        # one needs no worker pass (a pick would otherwise start two: one that leaves the DM to
        # the click, and one after the answer).
        self._answered_views: dict[tuple[int, str | None], int] = {}
        self._held_changes: dict[tuple[int, str | None], int] = {}
        # The version drawn, meanwhile.
        self._answer_drew: RecentMap[tuple[int, str | None], int] = RecentMap(VIEWS_KEPT)
        # What each player's DM shows now: (stamp, digest); from the database after a restart
        # (which has the step's first digest, not its edits': kept while the game is open).
        self._dm_shown: dict[tuple[int, str], tuple[str | None, str | None]] = {}
        self._gone_channels: set[int] = set()  # deleted, or no longer ours to post in
        # session → its thread (None: no thread)
        self._threads: RecentMap[int, int | None] = RecentMap(SESSIONS_KEPT)
        self._elsewhere: dict[str, int] = {}  # other games waiting for each player, last known
        self._posting: dict[int, asyncio.Lock] = {}  # sessions whose first table is being posted
        # Sessions another process presented since this one did: what this one remembers of
        # their messages is forgotten by the next holder of the presentation that loads them.
        self._taken_over: set[int] = set()
        self._retries: asyncio.Task[None] | None = None
        self._flushing = False  # stopping: held posts go at once (see flush)
        # What a restart need not show again (only with a database of its own: another process
        # may show a shared one's sessions). Each session this process changed or showed, and
        # the version at which a full pass found every message of it showing its state (the
        # table, the DMs, the posts): recorded at a stop, read at the next start.
        self.records_shown = records_shown
        self._touched: set[int] = set()
        self._shown_at: dict[int, int] = {}
        self._short: set[int] = set()  # sessions whose pass left something for later
        self._catching_up: asyncio.Task[None] | None = None  # a start's syncs (catch_up)
        # Tables showing a deadline earlier than the true one (a start's refund): redrawn later.
        self.late = LateTables(
            service, lambda sid: self.on_change(Change(sid, frozenset({TABLE}), posted=False))
        )
        service.subscribe(self.on_change)

    # -- scheduling ------------------------------------------------------------------------------
    def on_change(self, change: Change) -> None:
        self._touched.add(change.session_id)
        self._shown_at.pop(change.session_id, None)
        if self._held_for_answers(change):
            return
        self._pending.setdefault(change.session_id, Pending()).add(change)
        if change.session_id not in self._workers:
            self._workers[change.session_id] = asyncio.create_task(self._work(change.session_id))

    def queue_depth(self) -> int:
        """Sessions whose messages wait for a sync (or are being synced): a metric."""
        return len(self._pending.keys() | self._workers.keys() | self._delayed.keys())

    def request_sync(self, session_id: int) -> None:
        """Bring everything of the session up to date (at start, after a failure…)."""
        self.on_change(Change(session_id, None, posted=True))

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

    def _sync_later(
        self,
        session_id: int,
        delay: float,
        views: set[str | None] | None,
        *,
        posts: bool = False,
    ) -> None:
        """Sync these views (and the posts) in ``delay`` seconds. A sync already waiting is
        merged into this one, at the earlier time (a view it brings too early is put off again
        by its own throttle): neither's views are lost."""
        later = Pending(views=None if views is None else set(views), posts=posts)
        loop = asyncio.get_running_loop()
        due = loop.time() + delay
        waiting = self._delayed.pop(session_id, None)
        if waiting is not None:
            handle, earlier = waiting
            handle.cancel()
            due = min(due, handle.when())
            later.add(earlier.change(session_id))
        handle = loop.call_at(due, self._delayed_sync, session_id)
        self._delayed[session_id] = (handle, later)

    def _delayed_sync(self, session_id: int) -> None:
        waiting = self._delayed.pop(session_id, None)
        if waiting is not None:
            self.on_change(waiting[1].change(session_id))

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

    def note_table_digest(self, session_id: int, digest: str) -> None:
        self._table_digests[session_id] = digest
        self.late.drawn(session_id)

    def _lock(self, message_id: int) -> contextlib.AbstractAsyncContextManager[None]:
        return self._message_locks.hold(message_id)

    @contextlib.contextmanager
    def answering(
        self, message_id: int | None, session_id: int, view: str | None
    ) -> Iterator[None]:
        """While a click on ``message_id`` (which shows ``view`` of the session, if it is that
        view's message) is being handled, its own answer will show the move: the worker does
        not race it (it edits that message after, if still needed)."""
        if message_id is None:
            yield
            return
        answered = (session_id, view)
        self._claimed[message_id] = self._claimed.get(message_id, 0) + 1
        self._answered_views[answered] = self._answered_views.get(answered, 0) + 1
        try:
            yield
        finally:
            self._answered_views[answered] -= 1
            if not self._answered_views[answered]:
                del self._answered_views[answered]
                self._release_held(answered)
            self._claimed[message_id] -= 1
            if not self._claimed[message_id]:
                del self._claimed[message_id]
                left = self._left_to_claim.pop(message_id, None)
                if left is not None:
                    sid, left_view = left
                    self.on_change(Change(sid, frozenset({left_view}), posted=False))

    def _held_for_answers(self, change: Change) -> bool:
        """Hold a change that only the answers of clicks in progress show (nothing to post,
        every view it touches being drawn by one): released when they end."""
        if change.posted or change.version is None or not change.views:
            return False
        sid = change.session_id
        if any((sid, view) not in self._answered_views for view in change.views):
            return False
        for view in change.views:
            self._held_changes[(sid, view)] = max(
                self._held_changes.get((sid, view), change.version), change.version
            )
        return True

    def _release_held(self, answered: tuple[int, str | None]) -> None:
        """The last click answering this view ended: a held change it did not draw (the
        answer came too late, closed the step, or was an ephemeral copy) goes to the worker."""
        version = self._held_changes.pop(answered, None)
        drew = self._answer_drew.pop(answered, -1)
        if version is not None and drew < version:
            self.on_change(Change(answered[0], frozenset({answered[1]}), posted=False))

    def _leave_to_click(self, message_id: int, session_id: int, view: str | None) -> bool:
        if message_id in self._claimed:
            self._left_to_claim[message_id] = (session_id, view)
            self._short.add(session_id)
            return True
        return False

    # -- syncing ---------------------------------------------------------------------------------
    async def sync(self, session_id: int, pending: Pending | None = None) -> None:
        pending = pending or Pending(views=None, posts=True)
        async with self._presenting(session_id) as held:
            if not held:  # another process is showing it: after it, from the newest state
                self._sync_later(
                    session_id, PRESENTED_ELSEWHERE_RETRY, pending.views, posts=pending.posts
                )
                return
            await self._sync_held(session_id, pending)

    @contextlib.asynccontextmanager
    async def _presenting(self, session_id: int) -> AsyncIterator[bool]:
        """Hold the session's presentation (the worker, a click's answer and a first table
        post may hold it at once in this process); yields whether it is held."""
        async with self.presentation.hold(session_id) as turn:
            if turn.taken_over:
                # Marked before anything awaits: of this process's holders at once, only the
                # first to acquire hears of the take-over, and another may load first.
                self._taken_over.add(session_id)
            yield turn.held

    def _caught_up(self, s: Session) -> None:
        """Right after loading ``s`` under the presentation (nothing awaited in between):
        forget what this process remembers of its messages if another process presented it
        since."""
        if s.id in self._taken_over:
            self._taken_over.discard(s.id)
            self._forget_messages(s)

    def _forget_messages(self, s: Session) -> None:
        """Another process edited the session's messages: what this one remembers of them is
        out of date (it would skip an edit, or keep an attachment that is gone). What it needs
        is read again: the DMs from the players' rows, the pictures and a pictured table's
        digest from the memo the other process kept."""
        self._table_digests.pop(s.id, None)
        self._table_awaited.pop(s.id, None)
        self._threads.pop(s.id, None)
        for message_id in [s.row.table_message_id, *(p.dm_message_id for p in s.players)]:
            if message_id is not None:
                self.pictures.forget(message_id)
        for player in s.players:
            self._dm_shown.pop((s.id, player.user_id), None)

    def _forget_ended(self, s: Session) -> None:
        """An ended game, shown: its messages change no more, so what is remembered of them
        goes (a later pass, e.g. a rematch's, reads it again, or edits once)."""
        self._forget_messages(s)
        self._posting.pop(s.id, None)
        for view in [TABLE, *(p.user_id for p in s.players)]:
            self._edited_at.pop((s.id, view), None)
            self._answer_drew.pop((s.id, view), None)

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
            for player in s.players:
                uid = player.user_id
                if is_robot(uid):
                    continue  # a bot player reads the state, not DMs
                if pending.wants(uid):
                    await self._part(s.id, f"DM of {uid}", partial(self._sync_dm, s, uid))
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

    def channel_gone(self, channel_id: int, why: str) -> None:
        """The channel was deleted (Discord said so on the gateway)."""
        self._channel_gone(channel_id, why)

    def _channel_gone(self, channel_id: int, exc: BaseException | str) -> None:
        if channel_id not in self._gone_channels:
            log.warning(
                "channel %s is gone or closed to the bot (%s): no more posts there", channel_id, exc
            )
        self._gone_channels.add(channel_id)

    def _throttled(self, s: Session, view: str | None, interval: float) -> bool:
        """Edited less than ``interval`` ago: show this (and whatever follows) a bit later."""
        last = self._edited_at.get((s.id, view), -interval)
        wait = last + interval - time.monotonic()
        if wait > 0 and s.status is SessionStatus.ACTIVE:
            self._sync_later(s.id, wait, {view})
            return True
        return False

    def _table_interval(self, s: Session) -> float:
        """How long after an edit of the table the next one waits."""
        interval = self.table_edit_interval
        if s.game.turn_style is TurnStyle.SIMULTANEOUS:
            interval *= SIMULTANEOUS_TABLE_SLOWDOWN
            if self._table_awaited.get(s.id) == awaited(s):
                interval *= PROGRESS_ONLY_SLOWDOWN
        return interval

    async def _sync_table(self, s: Session) -> None:
        message_id = s.row.table_message_id
        if s.row.channel_id in self._gone_channels:
            return
        if message_id is None:
            if s.row.rematch_of is not None and s.status is SessionStatus.LOBBY:
                await self.post_table(s.id)  # a rematch's lobby that was not posted yet
            return
        interval = self._table_interval(s)
        if s.id in self._table_digests and self._throttled(s, TABLE, interval):
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
            self._edited_at[(s.id, TABLE)] = time.monotonic()
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

    async def _files(self, rendered: Rendered) -> list[discord.File]:
        if rendered.game is None or not rendered.pictures:
            return []
        return await self.pictures.files(rendered.game, rendered.pictures)

    async def _attachments(self, message_id: int, rendered: Rendered) -> list[Any] | None:
        return await self.pictures.for_edit(
            rendered.game, rendered.pictures, message_id, clear=rendered.drops_pictures
        )

    async def _edit(self, channel_id: int, message_id: int, rendered: Rendered) -> None:
        """Edit a message to show ``rendered``, uploading only the pictures that changed."""
        attachments = await self._attachments(message_id, rendered)
        data = await self.messenger.edit(
            channel_id,
            message_id,
            embeds=None if rendered.v2 else rendered.embeds,
            view=rendered.view,
            attachments=attachments,
        )
        if attachments is not None:
            await self.pictures.after_edit(
                message_id, rendered.pictures, data.get("attachments", [])
            )

    # -- a click answered on its own message ----------------------------------------------------
    @contextlib.asynccontextmanager
    async def click_answer(
        self, interaction: discord.Interaction[Any], s: Session
    ) -> AsyncIterator[Answer | None]:
        """The answer to a click on a message the worker keeps (the table, the clicker's DM):
        the newest state drawn for it, under the session's presentation and the message's lock,
        both held while the caller sends it (one writer at a time per message); or only an
        acknowledgement (too late to draw, the worker showed it meanwhile, a new step wants a
        new DM, another process is showing the session), the worker then showing it. Leaving,
        the worker learns what the answer drew, and finds that message up to date. None: the
        clicked message is not one the worker keeps (an ephemeral copy)."""
        message_id = clicked_id(interaction)
        if message_id is None or not _kept(message_id, s):
            yield None
            return
        if interaction.response.is_done():
            yield ACK
            return
        elapsed = (discord.utils.utcnow() - interaction.created_at).total_seconds()
        view = TABLE if message_id == s.row.table_message_id else str(interaction.user.id)
        async with self._presenting(s.id) as held:
            if not held:
                yield ACK
                return
            async with self._lock(message_id):
                newest, answer = await self._draw_click(interaction, s.id, view, elapsed)
                yield answer
                if newest is not None and answer.rendered is not None:
                    self._drew(newest, view, answer.rendered)

    async def _draw_click(
        self,
        interaction: discord.Interaction[Any],
        session_id: int,
        view: str | None,
        elapsed: float,
    ) -> tuple[Session | None, Answer]:
        """The clicked message's answer, drawn from the newest state (under its lock)."""
        s = await self.service.load(session_id)
        self._caught_up(s)
        if view == TABLE:
            parts = await self.screens.table_parts(s)
            if self._table_digests.get(s.id) == parts.digest:
                return None, ACK  # the sync showed it meanwhile: only acknowledge
            rendered = self.screens.render_table(s, parts)
        else:
            assert view is not None
            if s.state is None or s.player(view) is None:
                return None, ACK
            entry = self.screens.private_entry(s, view)
            shown_stamp, shown_digest = self._dm_state(s, view)
            new_step = entry.panel.stamp != shown_stamp and s.status is SessionStatus.ACTIVE
            if not new_step and (shown_stamp, shown_digest) == (entry.panel.stamp, entry.digest):
                return None, ACK  # the sync showed it meanwhile: only acknowledge
            if new_step:
                # The next step comes as a new DM (which notifies), sent by the worker; the
                # clicked one closes here, in the click's answer, instead of by an edit.
                rendered = self.screens.closed_step(s, v2=entry.panel.layout == "components")
            else:
                rendered = self.screens.render_private(
                    s,
                    view,
                    entry.panel,
                    entry.digest,
                    keys=entry.keys,
                    elsewhere=self._elsewhere.get(view, 0),
                )
        spent = (discord.utils.utcnow() - interaction.created_at).total_seconds()
        if max(elapsed, spent) > ANSWER_BUDGET or interaction.response.is_done():
            return None, ACK
        return s, edit(rendered)

    def _drew(self, s: Session, view: str | None, rendered: Rendered) -> None:
        """A click's answer showed ``rendered`` (drawn from ``s``) on the message of ``view``."""
        if view == TABLE:
            self._table_digests[s.id] = rendered.digest
            self._table_awaited[s.id] = awaited(s)
            self._answer_drew[(s.id, TABLE)] = s.version
        elif rendered.panel is not None:  # else the step's DM closed: the worker sends the next
            assert view is not None
            self._dm_shown[(s.id, view)] = (rendered.panel.stamp, rendered.digest)
            self._answer_drew[(s.id, view)] = s.version

    # -- the outbox ------------------------------------------------------------------------------
    async def _flush_outbox(self, where: Where) -> float | None:
        """Post what the session's outbox holds, oldest first. A post that fails for a while
        holds back the later ones (order matters: results before the next step). The
        announcements and notices of one move go out as one message (up to 10 embeds), with
        those of the moves made while a quick game's post waits. Returns when a waiting
        post may go (None: nothing waits)."""
        now = self.service.now()
        for batch in batches(await self.service.unsent_posts(where.id)):
            post, posts = batch.posts[0], batch.posts
            if post.target == CHANNEL and where.channel_id in self._gone_channels:
                # They can never go: drop them now, so that nothing (a hold for later moves'
                # posts, the next step's DMs behind them) waits for them.
                gone = f"channel {where.channel_id} is gone"
                await self.service.mark_posted([each.id for each in posts], None, failure=gone)
                continue
            wait = batch.ready_at - time.time()
            if wait > 0 and not self._flushing:  # held for later moves' posts (not a retry)
                self._sync_later(where.id, wait, set(), posts=True)
                return batch.ready_at
            if post.next_attempt_at > now and not self._flushing:
                return None  # a hold, or a retry's backoff: the retry loop brings it
            try:
                message_id: int | None
                if len(posts) > 1:
                    message_id = await self._post_joined(where, batch)
                else:
                    message_id = await self._post(where, post, batch.payloads[0])
            except Exception as exc:
                failure = failure_of(exc)
                if failure is Failure.RETRY:
                    delay = min(MAX_BACKOFF, 2.0**post.attempts)
                    await self.service.retry_post_later(post.id, now + delay, str(exc)[:200])
                    log.warning(
                        "post %s of session %s failed, retry in %.0f s: %s",
                        post.id,
                        where.id,
                        delay,
                        exc,
                    )
                    return None
                if (
                    failure is Failure.GONE
                    and post.target == CHANNEL
                    and self._threads.get(where.id)
                ):
                    # The game's thread was deleted, not (as far as we know) its channel: the
                    # posts go on in the channel (where the table still is).
                    await self._thread_gone(where, exc)
                    return await self._flush_outbox(where)
                if failure is Failure.GONE and post.target == CHANNEL:
                    self._channel_gone(where.channel_id, exc)
                else:
                    log.exception("post %s of session %s was refused; dropped", post.id, where.id)
                ids = [each.id for each in posts]
                await self.service.mark_posted(ids, None, failure=str(exc)[:200])
                continue
            await self.service.mark_posted([each.id for each in posts], message_id)
        await self._close_decided_undo(where.id)
        return None

    def undo_answered(self, session_id: int, seq: int) -> None:
        """A click decided the undo request: its answer closes the request's message."""
        if self._undo_asked.get(session_id, (0, 0, None))[2] == seq:
            del self._undo_asked[session_id]

    async def _close_decided_undo(self, session_id: int) -> None:
        """An undo request decided without a click on it (nobody objected in time, the game
        moved on or ended): its buttons go, so nobody is asked about it any more."""
        asked = self._undo_asked.get(session_id)
        if asked is None:
            return
        channel_id, message_id, seq, asks = asked
        if await self.service.open_undo_seq(session_id) == seq:
            return  # still open
        del self._undo_asked[session_id]
        try:
            await self.messenger.close_controls(channel_id, message_id, f"{asks} (Decided.)")
        except discord.HTTPException as exc:  # a click's answer may have closed it already
            log.info("session %s: undo request %s stays as it is (%s)", session_id, seq, exc)

    async def _post_joined(self, where: Where, batch: Batch) -> int:
        """Announcements (as embeds) and notices (as lines) of one or more moves in one
        message, with one ping line for all."""
        payloads = batch.payloads
        notices = [p for p in payloads if "notice" in p]
        announced = [
            Announcement.model_validate(p["announcement"]) for p in payloads if "announcement" in p
        ]
        announcements = turns_superseded(announced) if announced else []
        pings = [u for p in notices for u in p.get("ping", [])]
        pings += [u for a in announcements for u in a.ping]
        mentions = mention_line(list(dict.fromkeys(pings)))
        lines = [names_in(p["notice"], where.names) for p in notices]
        content = "\n".join(filter(None, [mentions, *lines]))
        target = await self._posts_go_to(where)
        rest = [embed_of(a, where.names) for a in announcements if a.kind != "turn"]
        told = "\n".join(lines)[:2000]
        # A turn notice told with the move is that move's log line too: it is left as posted
        # (see LiveTurns), so it says it is as of that move.
        footer = AS_OF_THIS_MOVE if rest or told else ""
        message = await self.messenger.send(
            target,
            f"posts:{batch.posts[0].id}:{batch.posts[-1].id}",
            content=content[:2000] or None,
            embeds=[
                embed_of(a, where.names, footer=footer if a.kind == "turn" else "")
                for a in announcements
            ],
            allowed_mentions=discord.AllowedMentions(users=True),
        )
        if any(a.kind == "turn" for a in announcements):
            await self.turns.posted(where.id, LiveNotice(target, message.id, told, rest))
        return message.id

    async def _posts_go_to(self, where: Where) -> int:
        """The game's thread, opened on the table message when the game has started and the bot
        may open threads; else the channel itself."""
        if where.channel_id in self._gone_channels:
            raise ChannelGone(where.channel_id)
        if not where.started or where.table_message_id is None:
            return where.channel_id
        if where.id in self._threads:
            return self._threads[where.id] or where.channel_id
        # After a restart: the thread opened before (trying to open it again is refused, 400
        # 160004, one more invalid request); "0": the game posts in its channel.
        memo = f"thread:{where.id}:{where.table_message_id}"
        known = await self.service.recall(memo)
        if known is not None:
            self._threads[where.id] = int(known) or None
            return int(known) or where.channel_id
        thread: int | None = None
        try:
            data = await self.messenger.start_thread(
                where.channel_id, where.table_message_id, f"🍽️ Game #{where.id} — play by play"
            )
            thread = int(data["id"])
        except discord.HTTPException as exc:
            if exc.code == THREAD_EXISTS:  # opened before a restart: it shares the message's id
                thread = where.table_message_id
            elif failure_of(exc) is Failure.RETRY:
                raise
            else:
                log.warning("session %s posts in its channel (no thread: %s)", where.id, exc)
        self._threads[where.id] = thread
        await self.service.remember(memo, str(thread or 0))
        return thread or where.channel_id

    async def _thread_gone(self, where: Where, exc: BaseException) -> None:
        log.warning("session %s's thread is gone (%s): it posts in its channel", where.id, exc)
        self._threads[where.id] = None
        await self.service.remember(f"thread:{where.id}:{where.table_message_id}", "0")

    async def _post(self, where: Where, post: PostRow, payload: dict[str, Any]) -> int | None:
        names = where.names
        key = f"post:{post.id}"
        mentions = discord.AllowedMentions(users=True)
        if "season" in payload:  # an ended season's final table, in the channel it ended in
            channel_id = int(post.target.removeprefix("channel:"))
            return (await self.messenger.send(channel_id, key, embed=season_embed(payload))).id
        if post.target != CHANNEL:
            user_id = post.target.removeprefix("user:")
            if is_robot(user_id):
                return None  # never DM a bot seat
            if not await self.closed_dms.closed(where.id, user_id):
                sent = await self.messenger.send_dm(user_id, key, content=payload["dm"][:2000])
                if sent is not None:
                    return sent.id
                await self.closed_dms.refused(where.id, user_id)
            text = payload.get("fallback")  # DMs closed: say it where the game talks, with a ping
            if not text or where.channel_id in self._gone_channels:
                return None
            message = await self.messenger.post_notice(
                await self._posts_go_to(where),
                names_in(text, names),
                f"{key}:fallback",
                ping=[user_id],
            )
            return message.id
        target = await self._posts_go_to(where)
        if "result" in payload:
            await self.turns.retire(where.id)  # nobody's turn any more
            return await self._post_result(target, key, where, payload["result"])
        if "undo_request" in payload:
            request = payload["undo_request"]
            asks = (
                f"↩️ {names.get(request['player'], 'Someone')} asks to take back "
                f"**{names_in(request['label'], names)}**."
            )
            text = (
                f"{asks} Agree, or object: without an objection it is taken back "
                f"<t:{int(request['due'])}:R>."
            )
            message = await self.messenger.send(
                target,
                key,
                content=" ".join(filter(None, [mention_line(payload.get("ping", [])), text])),
                view=self.screens.undo_view(where.id, int(request["seq"])),
                allowed_mentions=mentions,
            )
            self._undo_asked[where.id] = (target, message.id, int(request["seq"]), asks)
            return message.id
        if "announcement" in payload:
            announcement = Announcement.model_validate(payload["announcement"])
            message = await self.messenger.send(
                target,
                key,
                content=mention_line(announcement.ping),
                embed=embed_of(announcement, names),
                allowed_mentions=mentions,
            )
            if announcement.kind == "turn":
                await self.turns.posted(where.id, LiveNotice(target, message.id, "", []))
            return message.id
        message = await self.messenger.post_notice(
            target, names_in(payload["notice"], names), key, ping=payload.get("ping")
        )
        return message.id

    async def _post_result(
        self, target: int, key: str, where: Where, result: dict[str, Any]
    ) -> int:
        final = self.screens.result(result, where.names, where.id)
        files: list[discord.File] = []
        if final.chart is not None:
            try:
                files.append(await self.pictures.chart_file(final.chart))
            except Exception:  # the standings matter more than the picture
                log.exception("session %s: drawing the chart failed", where.id)
                final.embed.set_image(url=None)
        message = await self.messenger.send(
            target, key, embed=final.embed, view=final.view, files=files
        )
        return message.id

    # -- private panels by DM --------------------------------------------------------------------
    def _dm_state(self, s: Session, user_id: str) -> tuple[str | None, str | None]:
        shown = self._dm_shown.get((s.id, user_id))
        if shown is None:
            player = s.player(user_id)
            assert player is not None
            shown = (player.dm_stamp, player.dm_digest)
        return shown

    async def _sync_dm(self, s: Session, user_id: str) -> None:
        player = s.player(user_id)
        assert player is not None
        if s.status is SessionStatus.ABANDONED:
            await self._close_dm(s, user_id)
            return
        entry = self.screens.private_entry(s, user_id)
        panel, digest = entry.panel, entry.digest
        shown_stamp, shown_digest = self._dm_state(s, user_id)
        if shown_digest == digest and shown_stamp == panel.stamp:
            return
        # The footer says how many other games wait for the player: counted afresh for a new
        # message (a new step, which notifies), as last counted for an edit.
        elsewhere = self._elsewhere.get(user_id, 0)
        # A new step (e.g. the next round's menu) is a new message, which notifies the player;
        # the end of the game is shown in the last one.
        active = s.status is SessionStatus.ACTIVE
        new_message = player.dm_message_id is None or (shown_stamp != panel.stamp and active)
        channel_id, message_id = player.dm_channel_id, player.dm_message_id
        if channel_id and message_id and not new_message:
            if self._leave_to_click(message_id, s.id, user_id):
                return
            if self._throttled(s, user_id, self.dm_edit_interval):
                return
            async with slot_ahead(self.pacer), self._lock(message_id):
                if self._dm_state(s, user_id) == (panel.stamp, digest):
                    return  # a click's answer showed it meanwhile
                if (await self.service.load(s.id)).version != s.version:
                    # A move was committed since this pass loaded the session, and its click
                    # may have shown it here already: drawing this older state would go back
                    # (e.g. give a closed step's DM its controls again). Draw the newest, in a
                    # pass of its own.
                    self.on_change(Change(s.id, frozenset({user_id}), posted=False))
                    return
                rendered = self.screens.render_private(
                    s, user_id, panel, digest, keys=entry.keys, elsewhere=elsewhere
                )
                self._edited_at[(s.id, user_id)] = time.monotonic()
                try:
                    await self._edit(channel_id, message_id, rendered)
                except Exception as exc:
                    if failure_of(exc) is Failure.RETRY:
                        raise
                    new_message = True  # deleted or no longer editable: send a fresh one
                else:
                    self._dm_shown[(s.id, user_id)] = (panel.stamp, digest)
                    return
        if active:
            elsewhere = await self.service.waiting_elsewhere(user_id, s.id)
            self._elsewhere[user_id] = elsewhere
        rendered = self.screens.render_private(
            s, user_id, panel, digest, keys=entry.keys, elsewhere=elsewhere
        )
        # The old step's message is not edited (one call per player per step saved): its
        # controls no longer match any move, and a click on one closes it in its own answer.
        if not active and player.dm_message_id is None:
            return  # nothing to tell by DM once the game is over
        sent = None
        if not await self.closed_dms.closed(s.id, user_id):
            kwargs = rendered.message()
            kwargs.pop("content", None)
            sent = await self.messenger.send_dm(
                user_id,
                f"dm:{s.id}:{user_id}:{panel.stamp}:{message_id}",
                files=await self._files(rendered),
                **kwargs,
            )
            if sent is None:
                await self.closed_dms.refused(s.id, user_id)
        self._dm_shown[(s.id, user_id)] = (panel.stamp, digest)
        if sent is None:
            await self._tell_dms_closed(s, user_id)
            await self.service.record_dm(
                s.id, user_id, channel_id=None, message_id=None, stamp=panel.stamp, digest=digest
            )
            return
        await self.pictures.after_edit(sent.id, rendered.pictures, sent.attachments, new=True)
        await self.service.record_dm(
            s.id,
            user_id,
            channel_id=sent.channel_id,
            message_id=sent.id,
            stamp=panel.stamp,
            digest=digest,
        )

    async def _tell_dms_closed(self, s: Session, user_id: str) -> None:
        """Once a game: the player's DMs are closed, and where their hand is instead."""
        if await self.closed_dms.state(s.id, user_id) == TOLD:
            return
        if s.row.channel_id not in self._gone_channels:
            where = Where(s.id, s.row.channel_id, s.names(), s.row.table_message_id, started=True)
            name = s.names().get(user_id, "Someone")
            await self.messenger.post_notice(
                await self._posts_go_to(where),
                f"{name}'s DMs are closed, so their hand isn't sent there. " + DM_CLOSED_TABLE_HELP,
                f"dm-closed:{s.id}:{user_id}",
                ping=[user_id],
            )
        await self.closed_dms.told(s.id, user_id)

    async def _close_dm(self, s: Session, user_id: str) -> None:
        """An abandoned game: the player's last DM says so, and its controls are gone."""
        player = s.player(user_id)
        assert player is not None
        if player.dm_channel_id is None or player.dm_message_id is None:
            return
        if self._dm_state(s, user_id)[1] == "abandoned":
            return
        closed = self.screens.abandoned_dm(s, v2=self._dm_is_v2(s, user_id))
        async with self._lock(player.dm_message_id):
            with contextlib.suppress(discord.NotFound):
                await self._edit(player.dm_channel_id, player.dm_message_id, closed)
        self._dm_shown[(s.id, user_id)] = (player.dm_stamp, "abandoned")
        await self.service.record_dm(
            s.id,
            user_id,
            channel_id=player.dm_channel_id,
            message_id=player.dm_message_id,
            stamp=player.dm_stamp,
            digest="abandoned",
        )

    def _dm_is_v2(self, s: Session, user_id: str) -> bool:
        if s.state is None:
            return False
        return s.game.panel(s.state, user_id).layout == "components"

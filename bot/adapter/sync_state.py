"""What the sync worker (:class:`~bot.adapter.tables.TableSync`) knows of a session's messages,
and the rule every writer of them keeps: one writer at a time per message.

The worker and a click's own answer each hold the message's lock and draw the newest state, so
an older render never lands after a newer one; while a click is being answered, the worker
leaves its message to the answer (``answering``) and syncs it after if the answer did not show
the newest state. Its parts (the posts, the DMs, the clicks' answers, the table) build on this.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.adapter.closed_dms import ClosedDms
from bot.adapter.late_tables import LateTables
from bot.adapter.messenger import Messenger
from bot.adapter.pacing import Pacer
from bot.adapter.pictures import Pictures
from bot.adapter.screens import Rendered, Screens
from bot.adapter.turns import LiveTurns
from bot.core.keyed_locks import KeyedLocks
from bot.core.presentation import Presentation
from bot.core.recent import RecentMap
from bot.core.sessions import TABLE, Change, Session, SessionService
from bot.core.store import SessionStatus

log = logging.getLogger(__name__)

SYNC_SLOTS = 4  # sessions whose messages are brought up to date at once (see TableSync._work)
# What is remembered of the games' messages beside their digests (edit times, whom a table
# shows awaited, threads), for this many games (and their views) at most, the least recently
# written dropped first: each is read again from the database, or only spaces edits. A game's
# are dropped when it ends, with its digests.
SESSIONS_KEPT = 1_000  # as many as the session cache keeps loaded by default
VIEWS_KEPT = 5 * SESSIONS_KEPT
_TABLE_ONLY: frozenset[str | None] = frozenset({TABLE})


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


def awaited(s: Session) -> frozenset[str]:
    return frozenset(s.game.active_players(s.state)) if s.state is not None else frozenset()


class SyncState:
    """The sync worker's state, and what each of its parts uses."""

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
        # An active game's table edited a moment ago: the monotonic time before which it is
        # edited again in no case (a change of it meanwhile starts no pass, _table_put_off).
        self._table_calm: RecentMap[int, float] = RecentMap(SESSIONS_KEPT)
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

    def on_change(self, change: Change) -> None:
        self._touched.add(change.session_id)
        self._shown_at.pop(change.session_id, None)
        rest = self._not_held(change)
        if rest is None or self._table_put_off(rest):
            return  # no pass: nothing it would show now
        self._pending.setdefault(change.session_id, Pending()).add(rest)
        if change.session_id not in self._workers:
            self._workers[change.session_id] = asyncio.create_task(self._work(change.session_id))

    async def _work(self, session_id: int) -> None:
        """A session's worker: its passes until nothing is pending (TableSync's)."""
        raise NotImplementedError

    def queue_depth(self) -> int:
        """Sessions whose messages wait for a sync (or are being synced): a metric."""
        return len(self._pending.keys() | self._workers.keys() | self._delayed.keys())

    def request_sync(self, session_id: int) -> None:
        """Bring everything of the session up to date (at start, after a failure…)."""
        self.on_change(Change(session_id, None, posted=True))

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
        self.claim(message_id, session_id, view)
        try:
            yield
        finally:
            self.unclaim(message_id, session_id, view)

    def claim(self, message_id: int | None, session_id: int, view: str | None) -> None:
        """``answering`` entered (a click's hot path calls the pair itself: no context
        manager a click); every claim is followed by its ``unclaim``."""
        if message_id is None:
            return
        answered = (session_id, view)
        self._claimed[message_id] = self._claimed.get(message_id, 0) + 1
        self._answered_views[answered] = self._answered_views.get(answered, 0) + 1

    def unclaim(self, message_id: int | None, session_id: int, view: str | None) -> None:
        """``answering`` left."""
        if message_id is not None:
            answered = (session_id, view)
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

    def _not_held(self, change: Change) -> Change | None:
        """What of ``change`` the worker is to show. A view that the answer of a click in
        progress draws (the clicker's DM) is held for it, released when the clicks end, and
        goes to the worker only if the answer did not draw it; the rest goes on (a confirm's
        table). None: all of it held. A change that posts goes whole (a step's DMs wait for its
        posts)."""
        if change.posted or change.version is None or not change.views:
            return change
        sid = change.session_id
        answered = [view for view in change.views if (sid, view) in self._answered_views]
        if not answered:
            return change
        for view in answered:
            self._held_changes[(sid, view)] = max(
                self._held_changes.get((sid, view), change.version), change.version
            )
        rest = change.views.difference(answered)
        return dataclasses.replace(change, views=rest) if rest else None

    def _table_put_off(self, change: Change) -> bool:
        """A change of the table alone (nothing posted: the session's status is as it was)
        while the table was edited less than its shortest interval ago: put off to when it
        may be edited, without a pass now (that pass draws the newest state, and spaces the
        edit further if its interval is longer, see TableSync._table_interval)."""
        if change.posted or change.views != _TABLE_ONLY:
            return False
        calm = self._table_calm.get(change.session_id)
        if calm is None:
            return False
        wait = calm - time.monotonic()
        if wait <= 0:
            return False
        self._sync_later(change.session_id, wait, {TABLE})
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

    def _presenting(self, session_id: int) -> contextlib.AbstractAsyncContextManager[bool]:
        """Hold the session's presentation (the worker, a click's answer and a first table
        post may hold it at once in this process); yields whether it is held."""
        return _Presenting(self, session_id)

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
        self._table_calm.pop(s.id, None)
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

    def _dm_state(self, s: Session, user_id: str) -> tuple[str | None, str | None]:
        shown = self._dm_shown.get((s.id, user_id))
        if shown is None:
            player = s.player(user_id)
            assert player is not None
            shown = (player.dm_stamp, player.dm_digest)
        return shown


class _Presenting:
    """SyncState._presenting. (A class, not an asynccontextmanager: every click and sync
    holds it, and an async generator made, hooked and stepped each time cost more.)"""

    __slots__ = ("_hold", "_session_id", "_state")

    def __init__(self, state: SyncState, session_id: int) -> None:
        self._state = state
        self._session_id = session_id

    async def __aenter__(self) -> bool:
        self._hold = self._state.presentation.hold(self._session_id)
        turn = await self._hold.__aenter__()
        if turn.taken_over:
            # Marked before anything awaits: of this process's holders at once, only the
            # first to acquire hears of the take-over, and another may load first.
            self._state._taken_over.add(self._session_id)
        return turn.held

    async def __aexit__(self, kind: Any, exc: BaseException | None, trace: Any) -> bool | None:
        return await self._hold.__aexit__(kind, exc, trace)

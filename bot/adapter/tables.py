"""Keeps what players see in Discord in step with the stored sessions.

The session service tells :class:`TableSync` after every change. One worker per session then
brings the channel's table message up to date, posts what the session's outbox holds (each row
once: sent with a nonce, marked sent when Discord answers, retried with backoff when Discord or
the network fails) and updates every player's DM, editing only what changed (a digest per
message). Each part fails alone: a deleted channel does not stop the DMs. With several bot
processes, one at a time shows a session (:class:`~bot.core.presentation.Presentation`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial

import discord

from bot.adapter.messenger import ChannelGone, Failure, Messenger, failure_of
from bot.adapter.pictures import Pictures, Shown, shown_after
from bot.adapter.render import embed_of, mention_line, names_in
from bot.adapter.screens import DM_CLOSED_HELP, Rendered, Screens
from bot.core.errors import UserError
from bot.core.presentation import Presentation
from bot.core.sessions import Session, SessionService
from bot.core.store import CHANNEL, PostRow, SessionStatus
from games.engine import PrivatePanel
from games.presentation import Announcement

log = logging.getLogger(__name__)

MAX_BACKOFF = 300.0  # seconds between two tries of a post, at most
RESYNC_AFTER_FAILURE = 5.0
PRESENTED_ELSEWHERE_RETRY = 0.05  # another process is showing the session: after it, again


@dataclass(frozen=True)
class Where:
    """Where a session's posts go, and the names its texts use."""

    id: int
    channel_id: int
    names: dict[str, str]


class TableSync:
    def __init__(
        self,
        service: SessionService,
        screens: Screens,
        messenger: Messenger,
        pictures: Pictures,
        table_edit_interval: float,
        presentation: Presentation | None = None,
    ) -> None:
        self.service = service
        self.presentation = presentation or Presentation()
        self.screens = screens
        self.messenger = messenger
        self.pictures = pictures
        self._shown: dict[int, Shown] = {}  # the pictures each message shows, by message id
        self.table_edit_interval = table_edit_interval
        self._dirty: set[int] = set()
        self._workers: dict[int, asyncio.Task[None]] = {}
        self._table_digests: dict[int, str] = {}  # what each table message shows now
        self._table_edited_at: dict[int, float] = {}
        self._delayed: dict[int, asyncio.TimerHandle] = {}  # syncs waiting their turn
        # Whether each player's current DM shows controls (unknown after a restart: assume so).
        self._dm_controls: dict[tuple[int, str], bool] = {}
        self._gone_channels: set[int] = set()  # deleted, or no longer ours to post in
        self._retries: asyncio.Task[None] | None = None
        service.subscribe(self.request_sync)

    # -- scheduling ------------------------------------------------------------------------------
    def request_sync(self, session_id: int) -> None:
        self._dirty.add(session_id)
        if session_id not in self._workers:
            self._workers[session_id] = asyncio.create_task(self._work(session_id))

    def _sync_later(self, session_id: int, delay: float) -> None:
        if session_id not in self._delayed:
            self._delayed[session_id] = asyncio.get_running_loop().call_later(
                delay, self._delayed_sync, session_id
            )

    def _delayed_sync(self, session_id: int) -> None:
        self._delayed.pop(session_id, None)
        self.request_sync(session_id)

    async def _work(self, session_id: int) -> None:
        try:
            while session_id in self._dirty:
                self._dirty.discard(session_id)
                try:
                    await self.sync(session_id)
                except Exception:
                    log.exception("syncing session %s failed", session_id)
        finally:
            self._workers.pop(session_id, None)

    async def idle(self) -> None:
        """Wait until every pending sync is done, delayed table edits included (retries of
        failed posts are not waited for)."""
        while self._workers or self._delayed:
            if self._workers:
                await asyncio.gather(*list(self._workers.values()), return_exceptions=True)
            else:
                await asyncio.sleep(0.01)

    def start(self) -> None:
        """Start retrying failed posts when their time comes."""
        self._retries = asyncio.create_task(self._retry_posts(), name="cafebot-outbox")

    async def stop(self) -> None:
        if self._retries is not None:
            self._retries.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._retries
            self._retries = None
        for handle in self._delayed.values():
            handle.cancel()
        self._delayed.clear()

    async def _retry_posts(self) -> None:
        while True:
            try:
                for session_id in await self.service.sessions_with_posts_due():
                    self.request_sync(session_id)
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

    # -- syncing ---------------------------------------------------------------------------------
    async def sync(self, session_id: int) -> None:
        async with self.presentation.hold(session_id) as turn:
            if not turn.held:
                self._sync_later(session_id, PRESENTED_ELSEWHERE_RETRY)
                return
            await self._sync_held(session_id, turn.taken_over)

    def _forget_messages(self, s: Session) -> None:
        """Another process edited the session's messages: what this one remembers of them is
        out of date (it would skip an edit, or keep an attachment that is gone)."""
        self._table_digests.pop(s.id, None)
        for message_id in [s.row.table_message_id, *(p.dm_message_id for p in s.players)]:
            if message_id is not None:
                self._shown.pop(message_id, None)
        for player in s.players:
            self._dm_controls.pop((s.id, player.user_id), None)

    async def _sync_held(self, session_id: int, taken_over: bool) -> None:
        try:
            s = await self.service.load(session_id)
        except UserError as exc:
            # Its game cannot be shown, but what it must post (e.g. that it was abandoned) can.
            log.warning("session %s cannot be shown: %s", session_id, exc.message)
            channel_id, names = await self.service.post_context(session_id)
            where = Where(session_id, channel_id, names)
            await self._part(session_id, "posts", lambda: self._flush_outbox(where))
            return
        if taken_over:
            self._forget_messages(s)
        # Each part fails alone; results are posted before the next step's DMs go out.
        where = Where(s.id, s.row.channel_id, s.names())
        await self._part(s.id, "table", lambda: self._sync_table(s))
        await self._part(s.id, "posts", lambda: self._flush_outbox(where))
        if (
            s.state is not None
            and s.game.private_panel is PrivatePanel.DM
            and s.status in (SessionStatus.ACTIVE, SessionStatus.FINISHED)
        ):
            for player in s.players:
                uid = player.user_id
                await self._part(s.id, f"DM of {uid}", partial(self._sync_dm, s, uid))

    async def _part(self, session_id: int, what: str, sync: Callable[[], Awaitable[None]]) -> None:
        try:
            await sync()
        except Exception as exc:
            failure = failure_of(exc)
            if failure is Failure.REFUSED:
                log.exception("session %s: showing the %s failed", session_id, what)
                return
            log.warning(
                "session %s: showing the %s failed (%s): %s", session_id, what, failure.value, exc
            )
            if failure is Failure.RETRY:
                self._sync_later(session_id, RESYNC_AFTER_FAILURE)

    def _channel_gone(self, channel_id: int, exc: BaseException) -> None:
        if channel_id not in self._gone_channels:
            log.warning(
                "channel %s is gone or closed to the bot (%s): no more posts there", channel_id, exc
            )
        self._gone_channels.add(channel_id)

    async def _sync_table(self, s: Session) -> None:
        message_id = s.row.table_message_id
        if message_id is None or s.row.channel_id in self._gone_channels:
            return
        table = await self.screens.table_payload(s)
        if self._table_digests.get(s.id) == table.digest:
            return
        interval = self.table_edit_interval
        wait = self._table_edited_at.get(s.id, -interval) + interval - time.monotonic()
        if wait > 0 and s.status is SessionStatus.ACTIVE:
            # Edited less than `interval` ago: show this (and whatever follows) a bit later.
            self._sync_later(s.id, wait)
            return
        self._table_edited_at[s.id] = time.monotonic()
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
            self._shown[new.id] = shown_after(
                table.pictures, [dict(a.to_dict()) for a in new.attachments]
            )
            await self.service.record_table_message(s.id, new.id)
        self._table_digests[s.id] = table.digest

    async def _files(self, rendered: Rendered) -> list[discord.File]:
        if rendered.game is None or not rendered.pictures:
            return []
        return await self.pictures.files(rendered.game, rendered.pictures)

    async def _edit(self, channel_id: int, message_id: int, rendered: Rendered) -> None:
        """Edit a message to show ``rendered``, uploading only the pictures that changed."""
        attachments = None
        if rendered.game is not None and (rendered.pictures or message_id in self._shown):
            attachments = await self.pictures.attachments(
                rendered.game, rendered.pictures, self._shown.get(message_id)
            )
        data = await self.messenger.edit(
            channel_id,
            message_id,
            embeds=None if rendered.v2 else rendered.embeds,
            view=rendered.view,
            attachments=attachments,
        )
        if attachments is not None:
            self._shown[message_id] = shown_after(rendered.pictures, data.get("attachments", []))

    # -- the outbox ------------------------------------------------------------------------------
    async def _flush_outbox(self, where: Where) -> None:
        """Post what the session's outbox holds, oldest first. A post that fails for a while
        holds back the later ones (order matters: results before the next step)."""
        now = self.service.now()
        for post in await self.service.unsent_posts(where.id):
            if post.next_attempt_at > now:
                return
            try:
                message_id = await self._post(where, post)
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
                    return
                if failure is Failure.GONE and post.target == CHANNEL:
                    self._channel_gone(where.channel_id, exc)
                else:
                    log.exception("post %s of session %s was refused; dropped", post.id, where.id)
                await self.service.mark_posted(post.id, None, failure=str(exc)[:200])
                continue
            await self.service.mark_posted(post.id, message_id)

    async def _post(self, where: Where, post: PostRow) -> int | None:
        payload = json.loads(post.payload)
        names = where.names
        key = f"post:{post.id}"
        mentions = discord.AllowedMentions(users=True)
        if post.target != CHANNEL:
            user_id = post.target.removeprefix("user:")
            sent = await self.messenger.send_dm(user_id, key, content=payload["dm"][:2000])
            if sent is not None:
                return sent.id
            text = payload.get("fallback")  # DMs closed: say it in the channel, with a ping
            if not text or where.channel_id in self._gone_channels:
                return None
            message = await self.messenger.post_notice(
                where.channel_id, names_in(text, names), f"{key}:fallback", ping=[user_id]
            )
            return message.id
        if where.channel_id in self._gone_channels:
            raise ChannelGone(where.channel_id)
        if "announcement" in payload:
            announcement = Announcement.model_validate(payload["announcement"])
            message = await self.messenger.send(
                where.channel_id,
                key,
                content=mention_line(announcement.ping),
                embed=embed_of(announcement, names),
                allowed_mentions=mentions,
            )
            return message.id
        message = await self.messenger.post_notice(
            where.channel_id, names_in(payload["notice"], names), key, ping=payload.get("ping")
        )
        return message.id

    # -- private panels by DM --------------------------------------------------------------------
    async def _sync_dm(self, s: Session, user_id: str) -> None:
        player = s.player(user_id)
        assert player is not None
        rendered = self.screens.private_payload(s, user_id)
        panel, digest = rendered.panel, rendered.digest
        assert panel is not None
        if player.dm_digest == digest and player.dm_stamp == panel.stamp:
            return
        # A new step (e.g. the next round's menu) is a new message, which notifies the player;
        # the end of the game is shown in the last one.
        active = s.status is SessionStatus.ACTIVE
        new_message = player.dm_message_id is None or (player.dm_stamp != panel.stamp and active)
        channel_id, message_id = player.dm_channel_id, player.dm_message_id
        if (
            channel_id
            and message_id
            and new_message
            and self._dm_controls.get((s.id, user_id), True)
        ):
            with contextlib.suppress(discord.HTTPException):  # close the old step's controls
                closed = self.screens.closed_step(s, v2=rendered.v2)
                await self._edit(channel_id, message_id, closed)
        if channel_id and message_id and not new_message:
            try:
                await self._edit(channel_id, message_id, rendered)
            except Exception as exc:
                if failure_of(exc) is Failure.RETRY:
                    raise
                # Deleted or no longer editable: send a fresh one below.
            else:
                self._dm_controls[(s.id, user_id)] = bool(panel.controls)
                await self.service.record_dm(
                    s.id,
                    user_id,
                    channel_id=channel_id,
                    message_id=message_id,
                    stamp=panel.stamp,
                    digest=digest,
                )
                return
        if not active and player.dm_message_id is None:
            return  # nothing to tell by DM once the game is over
        kwargs = rendered.message()
        kwargs.pop("content", None)
        sent = await self.messenger.send_dm(
            user_id,
            f"dm:{s.id}:{user_id}:{panel.stamp}:{message_id}",
            files=await self._files(rendered),
            **kwargs,
        )
        self._dm_controls[(s.id, user_id)] = sent is not None and bool(panel.controls)
        if sent is None:
            if player.dm_stamp != panel.stamp and s.row.channel_id not in self._gone_channels:
                await self.messenger.post_notice(
                    s.row.channel_id,
                    DM_CLOSED_HELP,
                    f"dm-closed:{s.id}:{user_id}:{panel.stamp}",
                    ping=[user_id],
                )
            await self.service.record_dm(
                s.id, user_id, channel_id=None, message_id=None, stamp=panel.stamp, digest=digest
            )
            return
        self._shown[sent.id] = shown_after(
            rendered.pictures, [dict(a.to_dict()) for a in sent.attachments]
        )
        await self.service.record_dm(
            s.id,
            user_id,
            channel_id=sent.channel.id,
            message_id=sent.id,
            stamp=panel.stamp,
            digest=digest,
        )

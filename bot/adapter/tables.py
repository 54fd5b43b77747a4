"""Keeps what players see in Discord in step with the stored sessions.

The session service tells :class:`TableSync` after every change. One worker per session then
brings the channel's table message, every player's DM and the channel's announcements up to
date, editing only what changed (a digest per message) and posting each announcement once (a
counter in the database, so a crash between commit and post re-posts nothing and loses nothing).
It also shows what the scheduler reports: reminders and deadlines played.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

import discord

from bot.adapter.messenger import Messenger
from bot.adapter.render import content_digest, embed_of, mention_line, sendable
from bot.adapter.screens import DM_CLOSED_HELP, Screens
from bot.core.sessions import ActResult, Session, SessionService
from bot.core.store import SessionStatus
from games.engine import PrivatePanel

log = logging.getLogger(__name__)


class TableSync:
    def __init__(
        self,
        service: SessionService,
        screens: Screens,
        messenger: Messenger,
        table_edit_interval: float,
    ) -> None:
        self.service = service
        self.screens = screens
        self.messenger = messenger
        self.table_edit_interval = table_edit_interval
        self._dirty: set[int] = set()
        self._workers: dict[int, asyncio.Task[None]] = {}
        self._table_digests: dict[int, str] = {}  # what each table message shows now
        self._table_edited_at: dict[int, float] = {}
        self._delayed: dict[int, asyncio.TimerHandle] = {}  # table edits waiting their turn
        # Whether each player's current DM shows controls (unknown after a restart: assume so).
        self._dm_controls: dict[tuple[int, str], bool] = {}
        service.subscribe(self.request_sync)

    # -- scheduling ------------------------------------------------------------------------------
    def request_sync(self, session_id: int) -> None:
        self._dirty.add(session_id)
        if session_id not in self._workers:
            self._workers[session_id] = asyncio.create_task(self._work(session_id))

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
        """Wait until every pending sync is done, delayed table edits included."""
        while self._workers or self._delayed:
            if self._workers:
                await asyncio.gather(*list(self._workers.values()), return_exceptions=True)
            else:
                await asyncio.sleep(0.01)

    def note_table_digest(self, session_id: int, digest: str) -> None:
        self._table_digests[session_id] = digest

    # -- syncing ---------------------------------------------------------------------------------
    async def sync(self, session_id: int) -> None:
        s = await self.service.load(session_id)
        await self._sync_table(s)
        if (
            s.state is not None
            and s.game.private_panel is PrivatePanel.DM
            and s.status in (SessionStatus.ACTIVE, SessionStatus.FINISHED)
        ):
            for player in s.players:
                await self._sync_dm(s, player.user_id)
        await self._post_announcements(s)

    async def _sync_table(self, s: Session) -> None:
        message_id = s.row.table_message_id
        if message_id is None:
            return
        embeds, view, digest = await self.screens.table_payload(s)
        if self._table_digests.get(s.id) == digest:
            return
        interval = self.table_edit_interval
        wait = self._table_edited_at.get(s.id, -interval) + interval - time.monotonic()
        if wait > 0 and s.status is SessionStatus.ACTIVE:
            # Edited less than `interval` ago: show this (and whatever follows) a bit later.
            if s.id not in self._delayed:
                self._delayed[s.id] = asyncio.get_running_loop().call_later(
                    wait, self._delayed_sync, s.id
                )
            return
        self._table_edited_at[s.id] = time.monotonic()
        try:
            await self.messenger.edit(s.row.channel_id, message_id, embeds=embeds, view=view)
        except discord.NotFound:
            # The table message was deleted: post a new one so the game stays playable.
            new = await self.messenger.channel(s.row.channel_id).send(
                embeds=embeds, view=sendable(view)
            )
            await self.service.record_table_message(s.id, new.id)
        self._table_digests[s.id] = digest

    def _delayed_sync(self, session_id: int) -> None:
        self._delayed.pop(session_id, None)
        self.request_sync(session_id)

    async def _sync_dm(self, s: Session, user_id: str) -> None:
        player = s.player(user_id)
        assert player is not None
        embed, view, panel = self.screens.private_payload(s, user_id)
        digest = content_digest(panel)
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
                await self.messenger.edit(
                    channel_id, message_id, embeds=[self.screens.closed_step_embed(s)], view=None
                )
        if channel_id and message_id and not new_message:
            try:
                await self.messenger.edit(channel_id, message_id, embeds=[embed], view=view)
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
            except discord.HTTPException:
                pass  # deleted or no longer editable: send a fresh one below
        if not active and player.dm_message_id is None:
            return  # nothing to tell by DM once the game is over
        sent = await self.messenger.send_dm(user_id, embed=embed, view=sendable(view))
        self._dm_controls[(s.id, user_id)] = sent is not None and bool(panel.controls)
        if sent is None:
            await self.service.record_dm(
                s.id, user_id, channel_id=None, message_id=None, stamp=panel.stamp, digest=digest
            )
            if player.dm_stamp != panel.stamp:
                await self.messenger.channel(s.row.channel_id).send(
                    content=f"<@{user_id}> {DM_CLOSED_HELP}",
                    allowed_mentions=discord.AllowedMentions(users=True),
                )
            return
        await self.service.record_dm(
            s.id,
            user_id,
            channel_id=sent.channel.id,
            message_id=sent.id,
            stamp=panel.stamp,
            digest=digest,
        )

    async def _post_announcements(self, s: Session) -> None:
        pending = s.pending_announcements()
        if not pending:
            return
        channel = self.messenger.channel(s.row.channel_id)
        names = s.names()
        for offset, announcement in enumerate(pending, start=1):
            await channel.send(
                content=mention_line(announcement.ping),
                embed=embed_of(announcement, names),
                allowed_mentions=discord.AllowedMentions(users=True),
            )
            await self.service.record_announced(s.id, s.row.announced + offset)

    # -- what the scheduler reports (TimerEvents) ------------------------------------------------
    async def reminder_due(self, session: Session, deadline: float) -> None:
        s = session
        if s.state is None or s.status is not SessionStatus.ACTIVE:
            return
        waiting = [p for p in s.state.players if p in s.game.active_players(s.state)]
        unreached: list[str] = []
        for user_id in waiting:
            text = (
                f"⏰ **{s.game.title}** in <#{s.row.channel_id}> is waiting for your move — time "
                f"runs out <t:{int(deadline)}:R>, then I'll decide for you as the rules say "
                f"(`/game rules {s.game.id}`)."
            )
            if await self.messenger.send_dm(user_id, content=text) is None:
                unreached.append(user_id)
        if unreached:
            await self.messenger.post_notice(
                s.row.channel_id,
                f"⏰ Reminder: your move in {s.game.title} — time runs out <t:{int(deadline)}:R>.",
                ping=unreached,
            )

    async def deadline_played(self, result: ActResult) -> None:
        s = result.session
        if result.auto_played and not s.game.announces_timeouts:
            # Neutral wording: the default differs by game (a move played for them, a level kept,
            # a tray locked as it is); each game's rules say which.
            await self.messenger.post_notice(
                s.row.channel_id,
                f"⏰ Time's up for {names_text(s, result.auto_played)} — I decided "
                f"for them as the rules say (`/game rules {s.game.id}`), and the game goes on.",
            )


def names_text(s: Session, players: list[str]) -> str:
    names = s.names()
    return ", ".join(names.get(p, "someone") for p in players)

"""Keeps what players see in Discord in step with the stored sessions.

After any change the bot calls :meth:`Tables.request_sync`. One worker per session then brings the
channel's table message, every player's DM and the channel's announcements up to date, editing
only what changed (a digest per message) and posting each announcement once (a counter in the
database, so a crash between commit and post re-posts nothing and loses nothing).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING, Any

import discord

from bot.options import describe_options, lobby_option_controls
from bot.render import content_digest, embed_of, game_view, mention_line, sendable
from bot.sessions import Session
from bot.store import TimerRow
from games.engine import PrivatePanel
from games.presentation import Panel, PanelField

if TYPE_CHECKING:
    from bot.app import CafeBot

log = logging.getLogger(__name__)

DM_CLOSED_HELP = (
    "I couldn't send you a direct message. To get your hand by DM, open **Server menu → Privacy "
    "Settings → Direct Messages** and allow them. Meanwhile, **Show my hand** on the table "
    "message or `/game hand` shows it to you privately here."
)


def closed_step_embed(s: Session) -> discord.Embed:
    where = f"<#{s.row.channel_id}>"
    return discord.Embed(
        title=f"✅ {s.game.title} — done here",
        description=f"That step is over: the table in {where} shows what happened, and your "
        "next view is in a newer message.",
        colour=0x7A9E7E,
    )


class Tables:
    def __init__(self, bot: CafeBot) -> None:
        self.bot = bot
        self._dirty: set[int] = set()
        self._workers: dict[int, asyncio.Task[None]] = {}
        self._table_digests: dict[int, str] = {}  # what each table message shows now
        self._table_edited_at: dict[int, float] = {}
        self._delayed: dict[int, asyncio.TimerHandle] = {}  # table edits waiting their turn
        self._dm_channels: dict[str, int] = {}
        # Whether each player's current DM shows controls (unknown after a restart: assume so).
        self._dm_controls: dict[tuple[int, str], bool] = {}

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

    # -- payloads --------------------------------------------------------------------------------
    def lobby_payload(self, s: Session) -> tuple[discord.Embed, discord.ui.View]:
        from bot.components import lobby_view

        game = s.game
        names = s.names()
        seated = "\n".join(
            f"{'👑' if p.user_id == s.row.host_id else '🪑'} {p.name}" for p in s.players
        )
        embed = discord.Embed(
            title=f"☕ {game.title} — lobby",
            description=f"{game.summary}\n\nPress **Join** to take a seat. The host starts the "
            f"game when {game.min_players}–{game.max_players} players are seated.",
            colour=0xC8814B,
        )
        embed.add_field(name="Host", value=names.get(s.row.host_id, "?"), inline=True)
        embed.add_field(
            name=f"Players ({len(s.players)}/{game.max_players})", value=seated or "—", inline=True
        )
        embed.add_field(name="Options", value=describe_options(game, s.options), inline=False)
        embed.set_footer(text=f"Game #{s.id} · /game rules {game.id} explains how to play")
        controls = lobby_option_controls(game, s.options)
        return embed, lobby_view(s.id, controls)

    async def table_payload(
        self, s: Session
    ) -> tuple[list[discord.Embed], discord.ui.View | None, str]:
        """The channel's table message: the public panel plus who we wait for and until when."""
        from bot.components import hand_button

        if s.state is None:
            if s.status == "lobby":
                lobby_embed, lobby_view = self.lobby_payload(s)
                digest = content_digest(Panel(title="lobby"), repr(lobby_embed.to_dict()))
                return [lobby_embed], lobby_view, digest
            closed = discord.Embed(
                title=f"☕ {s.game.title} — lobby closed",
                description="This lobby was abandoned before the game started. "
                "`/game new` opens another.",
            )
            return [closed], None, content_digest(Panel(title="closed"))
        game, names = s.game, s.names()
        panel = game.panel(s.state, None)
        extra: list[PanelField] = []
        if s.status == "active":
            waiting = [p for p in s.state.players if p in game.active_players(s.state)]
            deadline = await self._deadline(s)
            if waiting:
                text = ", ".join(names.get(p, "?") for p in waiting)
                if deadline is not None:
                    text += f"\nTime runs out <t:{int(deadline.due_at)}:R>"
                extra.append(PanelField(name="⏳ Waiting for", value=text[:1024]))
        if s.status != "active":
            panel = panel.model_copy(update={"controls": []})
        if s.status == "abandoned":
            # Say so first: the panel below still reads as the game was left ("It's X's turn").
            panel = panel.model_copy(
                update={
                    "title": f"🧹 Abandoned — {panel.title}"[:256],
                    "description": (
                        "🧹 **This game was abandoned** — this is the table as it was "
                        "left. `/game new` starts another.\n\n" + panel.description
                    )[:4096],
                }
            )
        embed = embed_of(panel, names, footer=f"Game #{s.id}", extra_fields=extra)
        buttons: list[discord.ui.Item[discord.ui.View]] = []
        if s.status == "active" and game.private_panel is not PrivatePanel.NEVER:
            buttons.append(hand_button(s.id))
        view = game_view(panel, names, session_id=s.id, seat="t", extra=buttons)
        return [embed], view, content_digest(panel, repr([f.model_dump() for f in extra]))

    def private_payload(
        self, s: Session, user_id: str
    ) -> tuple[discord.Embed, discord.ui.View | None, Panel]:
        assert s.state is not None
        player = s.player(user_id)
        assert player is not None
        panel = s.game.panel(s.state, user_id)
        if s.status != "active":
            panel = panel.model_copy(update={"controls": []})
        where = f"<#{s.row.channel_id}>"
        embed = embed_of(panel, s.names(), footer=f"{s.game.title} · game #{s.id}")
        embed.description = (
            embed.description or ""
        ) + f"\n\n-# Your private view · table in {where}"
        view = game_view(panel, s.names(), session_id=s.id, seat=str(player.seat))
        return embed, view, panel

    async def _deadline(self, s: Session) -> TimerRow | None:
        timers = await self.bot.store.timers(s.id)
        return next((t for t in timers if t.kind == "deadline"), None)

    # -- syncing ---------------------------------------------------------------------------------
    async def sync(self, session_id: int) -> None:
        s = await self.bot.service.load(session_id)
        await self._sync_table(s)
        if (
            s.state is not None
            and s.game.private_panel is PrivatePanel.DM
            and s.status in ("active", "finished")
        ):
            for player in s.players:
                await self._sync_dm(s, player.user_id)
        await self._post_announcements(s)

    async def _sync_table(self, s: Session) -> None:
        message_id = s.row.table_message_id
        if message_id is None:
            return
        embeds, view, digest = await self.table_payload(s)
        if self._table_digests.get(s.id) == digest:
            return
        interval = self.bot.settings.table_edit_interval
        wait = self._table_edited_at.get(s.id, -interval) + interval - time.monotonic()
        if wait > 0 and s.status == "active":
            # Edited less than `interval` ago: show this (and whatever follows) a bit later.
            if s.id not in self._delayed:
                self._delayed[s.id] = asyncio.get_running_loop().call_later(
                    wait, self._delayed_sync, s.id
                )
            return
        self._table_edited_at[s.id] = time.monotonic()
        try:
            await self._edit(s.row.channel_id, message_id, embeds=embeds, view=view)
        except discord.NotFound:
            # The table message was deleted: post a new one so the game stays playable.
            new = await self._channel(s.row.channel_id).send(embeds=embeds, view=sendable(view))
            await self.bot.service.record_table_message(s.id, new.id)
        self._table_digests[s.id] = digest

    def _delayed_sync(self, session_id: int) -> None:
        self._delayed.pop(session_id, None)
        self.request_sync(session_id)

    def note_table_digest(self, session_id: int, digest: str) -> None:
        self._table_digests[session_id] = digest

    async def _sync_dm(self, s: Session, user_id: str) -> None:
        player = s.player(user_id)
        assert player is not None
        embed, view, panel = self.private_payload(s, user_id)
        digest = content_digest(panel)
        if player.dm_digest == digest and player.dm_stamp == panel.stamp:
            return
        # A new step (e.g. the next round's menu) is a new message, which notifies the player;
        # the end of the game is shown in the last one.
        new_message = player.dm_message_id is None or (
            player.dm_stamp != panel.stamp and s.status == "active"
        )
        channel_id, message_id = player.dm_channel_id, player.dm_message_id
        if (
            channel_id
            and message_id
            and new_message
            and self._dm_controls.get((s.id, user_id), True)
        ):
            with contextlib.suppress(discord.HTTPException):  # close the old step's controls
                await self._edit(channel_id, message_id, embeds=[closed_step_embed(s)], view=None)
        if channel_id and message_id and not new_message:
            try:
                await self._edit(channel_id, message_id, embeds=[embed], view=view)
                self._dm_controls[(s.id, user_id)] = bool(panel.controls)
                await self.bot.service.record_dm(
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
        if s.status != "active" and player.dm_message_id is None:
            return  # nothing to tell by DM once the game is over
        sent = await self.send_dm(user_id, embed=embed, view=sendable(view))
        self._dm_controls[(s.id, user_id)] = sent is not None and bool(panel.controls)
        if sent is None:
            await self.bot.service.record_dm(
                s.id, user_id, channel_id=None, message_id=None, stamp=panel.stamp, digest=digest
            )
            if player.dm_stamp != panel.stamp:
                await self._channel(s.row.channel_id).send(
                    content=f"<@{user_id}> {DM_CLOSED_HELP}",
                    allowed_mentions=discord.AllowedMentions(users=True),
                )
            return
        await self.bot.service.record_dm(
            s.id,
            user_id,
            channel_id=sent.channel.id,
            message_id=sent.id,
            stamp=panel.stamp,
            digest=digest,
        )

    async def _edit(
        self,
        channel_id: int,
        message_id: int,
        *,
        embeds: list[discord.Embed],
        view: discord.ui.View | None,
    ) -> None:
        """Edit through discord.py's HTTP layer: the same request as Message.edit, without
        building a Message (and every component in it) from the response we do not use."""
        params = discord.http.handle_message_parameters(embeds=embeds, view=view)
        with params:
            await self.bot.http.edit_message(channel_id, message_id, params=params)

    async def send_dm(self, user_id: str, **kwargs: Any) -> discord.Message | None:
        """DM a user; None when their DMs are closed (403) or they cannot be reached."""
        try:
            channel_id = await self._dm_channel_id(user_id)
            channel = self.bot.get_partial_messageable(channel_id, type=discord.ChannelType.private)
            return await channel.send(**kwargs)
        except discord.Forbidden:
            return None
        except discord.HTTPException:
            log.warning("DM to %s failed", user_id, exc_info=True)
            return None

    async def _dm_channel_id(self, user_id: str) -> int:
        if user_id not in self._dm_channels:
            data = await self.bot.http.start_private_message(int(user_id))
            self._dm_channels[user_id] = int(data["id"])
        return self._dm_channels[user_id]

    async def _post_announcements(self, s: Session) -> None:
        pending = s.pending_announcements()
        if not pending:
            return
        channel = self._channel(s.row.channel_id)
        names = s.names()
        for offset, announcement in enumerate(pending, start=1):
            await channel.send(
                content=mention_line(announcement.ping),
                embed=embed_of(announcement, names),
                allowed_mentions=discord.AllowedMentions(users=True),
            )
            await self.bot.service.record_announced(s.id, s.row.announced + offset)

    async def post_notice(self, channel_id: int, text: str, ping: list[str] | None = None) -> None:
        content = " ".join(filter(None, [mention_line(ping or []), text]))
        await self._channel(channel_id).send(
            content=content[:2000], allowed_mentions=discord.AllowedMentions(users=True)
        )

    def _channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id)

    # -- reminders -------------------------------------------------------------------------------
    async def remind(self, s: Session, due: float) -> None:
        if s.state is None or s.status != "active":
            return
        waiting = [p for p in s.state.players if p in s.game.active_players(s.state)]
        unreached: list[str] = []
        for user_id in waiting:
            text = (
                f"⏰ **{s.game.title}** in <#{s.row.channel_id}> is waiting for your move — time "
                f"runs out <t:{int(due)}:R>, then I'll decide for you as the rules say "
                f"(`/game rules {s.game.id}`)."
            )
            if await self.send_dm(user_id, content=text) is None:
                unreached.append(user_id)
        if unreached:
            await self.post_notice(
                s.row.channel_id,
                f"⏰ Reminder: your move in {s.game.title} — time runs out <t:{int(due)}:R>.",
                ping=unreached,
            )

    def names_text(self, s: Session, players: list[str]) -> str:
        names = s.names()
        return ", ".join(names.get(p, "someone") for p in players)

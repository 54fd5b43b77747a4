"""The players' private panels by DM, kept up to date by the sync worker: a new step is a new
message (which notifies), a change within a step an edit."""

from __future__ import annotations

import contextlib
import time

import discord

from bot.adapter.closed_dms import TOLD
from bot.adapter.messenger import Failure, failure_of
from bot.adapter.pacing import slot_ahead
from bot.adapter.posts import Posts
from bot.adapter.render import PrivateDrawing
from bot.adapter.screens import DM_CLOSED_TABLE_HELP
from bot.adapter.sync_state import Where
from bot.core.sessions import Change, Session
from bot.core.store import PlayerRow, SessionStatus


class DmPanels(Posts):
    """The sync worker's DMs (see TableSync)."""

    async def _count_elsewhere(self, s: Session, user_ids: list[str]) -> dict[str, int]:
        """How many other games wait for each of these players whose DM is due as a new
        message (a new step's), counted in one read for them all: what each such DM's footer
        says. Empty when none is due (or the read failed: each DM counts for itself then)."""
        if s.status is not SessionStatus.ACTIVE:
            return {}
        try:
            due = [uid for uid in user_ids if self._new_dm_due(s, uid)]
            if len(due) < 2:
                return {}  # one read either way
            return await self.service.waiting_elsewhere_each(due, s.id)
        except Exception:  # each DM's own part meets it again, and fails alone
            return {}

    def _new_dm_due(self, s: Session, user_id: str) -> bool:
        """Is the player's DM to be a new message (a new step, or none sent yet)?"""
        player = s.player(user_id)
        if player is None:
            return False
        return self._dm_due(s, player, self.screens.private_entry(s, user_id)) is True

    def _dm_due(self, s: Session, player: PlayerRow, entry: PrivateDrawing) -> bool | None:
        """How the player's DM is to show ``entry``: None, it shows it already; True, as a new
        message (a new step, e.g. the next round's menu, which notifies the player; or none
        sent yet); False, by an edit (the end of the game is shown in the last one)."""
        shown_stamp, shown_digest = self._dm_state(s, player.user_id)
        if shown_digest == entry.digest and shown_stamp == entry.panel.stamp:
            return None
        active = s.status is SessionStatus.ACTIVE
        return player.dm_message_id is None or (shown_stamp != entry.panel.stamp and active)

    async def _sync_dm(self, s: Session, user_id: str, counted: int | None = None) -> None:
        """``counted``: how many other games wait for the player, if counted already."""
        player = s.player(user_id)
        assert player is not None
        if s.status is SessionStatus.ABANDONED:
            await self._close_dm(s, user_id)
            return
        entry = self.screens.private_entry(s, user_id)
        panel, digest = entry.panel, entry.digest
        due = self._dm_due(s, player, entry)
        if due is None:
            return
        new_message = due
        # The footer says how many other games wait for the player: counted afresh for a new
        # message (a new step, which notifies), as last counted for an edit.
        elsewhere = self._elsewhere.get(user_id, 0)
        active = s.status is SessionStatus.ACTIVE
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
            if counted is None:
                counted = await self.service.waiting_elsewhere(user_id, s.id)
            elsewhere = self._elsewhere[user_id] = counted
        rendered = self.screens.render_private(
            s, user_id, panel, digest, keys=entry.keys, elsewhere=elsewhere
        )
        # The old step's message is not edited (one call per player per step saved): its
        # controls no longer match any move, and a click on one closes it in its own answer.
        if not active and player.dm_message_id is None:
            return  # nothing to tell by DM once the game is over
        sent = None
        if not await self.closed_dms.closed(s.id, user_id):
            key = f"dm:{s.id}:{user_id}:{panel.stamp}:{message_id}"
            files = await self._files(rendered)
            if rendered.data is not None and not files:  # sent as drawn (no discord.py objects)
                sent = await self.messenger.send_dm_drawn(user_id, key, rendered.data)
            else:
                kwargs = rendered.message()
                kwargs.pop("content", None)
                sent = await self.messenger.send_dm(user_id, key, files=files, **kwargs)
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

"""A click answered on its own message: the table or the clicker's DM, drawn from the newest
state in the interaction's callback (no channel rate limit) under the message's lock."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import discord

from bot.adapter.answer import ACK, Answer, edit
from bot.adapter.clicked import age, clicker
from bot.adapter.clicked import message_id as clicked_id
from bot.adapter.screens import Rendered
from bot.adapter.sync_state import SyncState, awaited
from bot.core.sessions import TABLE, Session
from bot.core.store import SessionStatus

ANSWER_BUDGET = 2.5  # seconds after the interaction was created: past this, defer instead


def _kept(message_id: int, s: Session) -> bool:
    """Is ``message_id`` one the sync worker keeps up to date (the channel's table message or a
    player's DM), rather than an ephemeral copy?"""
    return message_id == s.row.table_message_id or any(
        p.dm_message_id == message_id for p in s.players
    )


class ClickAnswers(SyncState):
    """The answers to clicks on the messages the sync worker keeps (see TableSync)."""

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
        elapsed = age(interaction)
        view = TABLE if message_id == s.row.table_message_id else clicker(interaction)
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
                rendered = self.screens.render_entry(
                    s, view, entry, elsewhere=self._elsewhere.get(view, 0)
                )
        spent = age(interaction)
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

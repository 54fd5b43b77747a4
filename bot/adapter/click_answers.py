"""A click answered on its own message: the table or the clicker's DM, drawn from the newest
state in the interaction's callback (no channel rate limit) under the message's lock."""

from __future__ import annotations

import contextlib
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

    def click_answer(
        self, interaction: discord.Interaction[Any], s: Session
    ) -> contextlib.AbstractAsyncContextManager[Answer | None]:
        """The answer to a click on a message the worker keeps (the table, the clicker's DM):
        the newest state drawn for it, under the session's presentation and the message's lock,
        both held while the caller sends it (one writer at a time per message); or only an
        acknowledgement (too late to draw, the worker showed it meanwhile, a new step wants a
        new DM, another process is showing the session), the worker then showing it. Leaving,
        the worker learns what the answer drew, and finds that message up to date. None: the
        clicked message is not one the worker keeps (an ephemeral copy)."""
        return _ClickAnswer(self, interaction, s)

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


class _ClickAnswer:
    """ClickAnswers.click_answer. (A class, not an asynccontextmanager: one per click, and an
    async generator made, hooked and stepped for it cost more than its own work.)"""

    __slots__ = ("_answers", "_drawn", "_interaction", "_lock", "_presenting", "_s")

    def __init__(
        self, answers: ClickAnswers, interaction: discord.Interaction[Any], s: Session
    ) -> None:
        self._answers = answers
        self._interaction = interaction
        self._s = s
        self._presenting: contextlib.AbstractAsyncContextManager[bool] | None = None
        self._lock: contextlib.AbstractAsyncContextManager[None] | None = None
        self._drawn: tuple[Session, str | None, Rendered] | None = None

    async def __aenter__(self) -> Answer | None:
        answers, interaction, s = self._answers, self._interaction, self._s
        message_id = clicked_id(interaction)
        if message_id is None or not _kept(message_id, s):
            return None
        if interaction.response.is_done():
            return ACK
        elapsed = age(interaction)
        view = TABLE if message_id == s.row.table_message_id else clicker(interaction)
        presenting = answers._presenting(s.id)
        held = await presenting.__aenter__()
        self._presenting = presenting
        if not held:
            return ACK
        try:
            lock = answers._lock(message_id)
            await lock.__aenter__()
            self._lock = lock
            newest, answer = await answers._draw_click(interaction, s.id, view, elapsed)
        except BaseException as exc:
            await self._leave(type(exc), exc, exc.__traceback__)
            raise
        if newest is not None and answer.rendered is not None:
            self._drawn = (newest, view, answer.rendered)
        return answer

    async def __aexit__(self, kind: Any, exc: BaseException | None, trace: Any) -> None:
        try:
            if exc is None and self._drawn is not None:
                self._answers._drew(*self._drawn)
        finally:
            await self._leave(kind, exc, trace)

    async def _leave(self, kind: Any, exc: BaseException | None, trace: Any) -> None:
        """Let go of the message's lock, then of the presentation (as they were taken)."""
        lock, presenting = self._lock, self._presenting
        self._lock = self._presenting = None
        try:
            if lock is not None:
                await lock.__aexit__(kind, exc, trace)
        finally:
            if presenting is not None:
                await presenting.__aexit__(kind, exc, trace)

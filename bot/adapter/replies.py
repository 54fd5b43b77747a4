"""Answers shared by commands and components: ephemeral notes, errors, private views."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import aiohttp
import discord
from discord import app_commands

from bot.adapter.answer import Answer, How
from bot.adapter.callbacks import UNKNOWN_INTERACTION
from bot.adapter.clicked import age
from bot.adapter.clicked import message_id as clicked_id
from bot.adapter.closed_dms import ClosedDms
from bot.adapter.deadlines import deadlines
from bot.adapter.messenger import (
    UNKNOWN_MESSAGE,
    Failure,
    Messenger,
    acknowledge_click,
    failure_of,
    update_clicked,
    update_drawn,
)
from bot.adapter.mine import waiting_note
from bot.adapter.pictures import Pictures
from bot.adapter.screens import DM_CLOSED_HELP, Rendered, Screens
from bot.core.errors import StorageFull, UserError
from bot.core.seats import is_robot, robot_name
from bot.core.sessions import Session, SessionService
from games.presentation import PLAYER_TOKEN

log = logging.getLogger(__name__)
T = TypeVar("T")

APOLOGY = "😵 Sorry — something went wrong on my side. Nothing was changed; please try again."
# The database's disk is full: a move cannot be saved, so it is not played (the log has the
# episode's one warning).
DISK_FULL = "💾 I can't save moves right now — nothing was changed. Please try again in a while."
MAX_ANSWER = 1900  # Discord allows 2000 characters of content
# Discord wants an answer within 3 s of the interaction; past this much, we defer first.
ACK_BUDGET = 2.0


class AfterCommit(Exception):
    """Showing a change that is already stored failed (the clicked message was deleted, Discord
    refused the answer…): the player is told what was done, never "nothing was changed"."""

    def __init__(
        self,
        done: str,
        failure: BaseException,
        again: Callable[[], Awaitable[Rendered]] | None = None,
    ) -> None:
        super().__init__(done)
        self.done = done
        self.failure = failure
        self.again = again  # what the clicked message showed, to show again privately

    @property
    def message_gone(self) -> bool:
        failure = self.failure
        return isinstance(failure, discord.HTTPException) and failure.code == UNKNOWN_MESSAGE


class committed:  # used as a function: ``async with committed(done):``
    """Around what answers a stored change: a failure in it becomes :class:`AfterCommit`.
    (A class, not an asynccontextmanager: no async generator made and hooked per click.)"""

    __slots__ = ("again", "done")

    def __init__(self, done: str, again: Callable[[], Awaitable[Rendered]] | None = None) -> None:
        self.done = done
        self.again = again

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, kind: Any, exc: BaseException | None, trace: Any) -> bool:
        if isinstance(exc, Exception) and not isinstance(exc, AfterCommit):
            raise AfterCommit(self.done, exc, self.again) from exc
        return False


class NotHere(app_commands.CheckFailure):
    """A command used where it cannot work (e.g. in a DM); the message says where to use it."""


class UnreadableCommand(app_commands.AppCommandError):
    """A command interaction in a shape Discord never sends (a forged or broken client)."""


class GameTree(app_commands.CommandTree[Any]):
    """discord.py's command tree, answering command payloads it cannot even read (it would
    raise a KeyError in a task of its own and leave the interaction unanswered)."""

    async def _call(self, interaction: discord.Interaction[Any]) -> None:
        try:
            await super()._call(interaction)
        except app_commands.AppCommandError:
            raise
        except Exception as exc:
            # Answered here: discord.py's own error path reads the command's name again.
            log.warning("unreadable command interaction: %r", exc)
            await self.on_error(interaction, UnreadableCommand())


async def in_time(
    interaction: discord.Interaction[Any],
    work: Awaitable[T],
    defer: Callable[[], Awaitable[Any]],
) -> T:
    """Await ``work``; if it is not done before Discord's deadline nears, ``defer`` first (the
    answer then comes as an edit or a followup). One coroutine answers: no double answer.
    ``work`` runs in the caller's task and a deadline starts the deferral (no task, future and
    wait per click: ~3 % of a click's CPU at 150 clicks/s; nor a timer: bot.adapter.deadlines)."""
    elapsed = age(interaction)
    budget = min(ACK_BUDGET, max(0.0, ACK_BUDGET - elapsed))
    if budget <= 0:
        if not interaction.response.is_done():
            await defer()
        return await work
    deferring: list[asyncio.Future[Any]] = []

    def late() -> None:
        if not interaction.response.is_done():
            deferring.append(asyncio.ensure_future(defer()))

    watch = deadlines()
    timer = watch.add(budget, late)
    try:
        return await work
    finally:
        watch.discard(timer)
        if deferring:
            try:
                await deferring[0]  # answered (deferred) before the caller answers again
            except Exception as exc:
                # Not raised: ``work`` may have stored a change, and the caller's answer (which
                # fails the same way) says what was done.
                log.warning("deferring an interaction failed: %s", exc)


def friendly_error(exc: BaseException) -> str | None:
    """The answer to a mistake or a refusal (None: a bug, answered with an apology)."""
    if isinstance(exc, app_commands.CommandInvokeError):
        exc = exc.original
    if isinstance(exc, StorageFull):
        return DISK_FULL
    if isinstance(exc, UserError):
        # Players named in a refusal ("waiting for {p:ID}") are shown as mentions; the answer
        # is ephemeral, so nobody is pinged.
        return "⚠️ " + PLAYER_TOKEN.sub(lambda m: _mention(m.group(1)), exc.message)
    if isinstance(exc, NotHere):
        return f"⚠️ {exc}"
    if isinstance(exc, UnreadableCommand):
        return "⚠️ I couldn't read that command. Try it again from Discord's / menu."
    if isinstance(exc, app_commands.TransformerError):
        return "⚠️ That value isn't one I can use there — pick one of the offered choices."
    if isinstance(exc, app_commands.CommandNotFound):
        return (
            "⚠️ I don't know that command. `/game new` starts a game, `/game rules` explains them."
        )
    if isinstance(exc, app_commands.CommandSignatureMismatch):
        return "⚠️ That command changed since Discord showed it to you — try again in a minute."
    if isinstance(exc, app_commands.CheckFailure):
        return "⚠️ You can't use that here."
    return None


def expired(exc: BaseException) -> bool:
    """Discord refused the interaction's answer because its window had closed (the machine was
    too slow to answer in 3 s): nothing can answer that click any more."""
    return isinstance(exc, discord.HTTPException) and exc.code == UNKNOWN_INTERACTION


def _mention(user_id: str) -> str:
    return robot_name(user_id) if is_robot(user_id) else f"<@{user_id}>"


class Replies:
    def __init__(
        self,
        service: SessionService,
        screens: Screens,
        messenger: Messenger,
        pictures: Pictures,
        closed_dms: ClosedDms | None = None,
    ) -> None:
        self.service = service
        self.screens = screens
        self.messenger = messenger
        self.pictures = pictures
        self.closed_dms = closed_dms or ClosedDms(service)

    async def show(
        self,
        interaction: discord.Interaction[Any],
        rendered: Rendered,
        note: str | None = None,
        *,
        ephemeral: bool = True,
    ) -> discord.Message | None:
        """A new message answering the interaction (a reply, or a followup once deferred:
        that followup is returned)."""
        return await self._deliver(interaction, rendered, note, ephemeral=ephemeral)

    async def answer(self, interaction: discord.Interaction[Any], answer: Answer) -> None:
        """Send a click's answer, decided and drawn before: the one place it reaches the
        messenger."""
        if answer.how is How.ACK:
            if not interaction.response.is_done():
                await acknowledge_click(interaction)
        else:
            assert answer.rendered is not None
            await self._deliver(
                interaction,
                answer.rendered,
                answer.note,
                edit=answer.how is How.EDIT,
                keeps_attachments=answer.keeps_attachments,
                remember=answer.remembers_pictures,
            )
        if answer.then is not None:
            await self._deliver(interaction, answer.then)

    async def _deliver(
        self,
        interaction: discord.Interaction[Any],
        rendered: Rendered,
        note: str | None = None,
        *,
        edit: bool = False,
        keeps_attachments: bool = False,
        ephemeral: bool = True,
        remember: bool = True,
    ) -> discord.Message | None:
        """One drawn message as the interaction's answer, in order: its arguments, its pictures,
        the one request, then what its pictures became (unless not ``remember``). ``edit``: on
        the clicked message itself, uploading only a changed picture (``keeps_attachments``: its
        attachments left alone); else a new message."""
        clicked = clicked_id(interaction)  # its id (the message itself is not needed)
        attachments: list[Any] | None
        if keeps_attachments:
            attachments = None
        elif edit and clicked is not None:
            attachments = await self.pictures.for_edit(
                rendered.game, rendered.pictures, clicked, clear=rendered.drops_pictures
            )
        elif rendered.game is None or not rendered.pictures:
            attachments = []
        else:
            attachments = await self.pictures.files(rendered.game, rendered.pictures)
        followup: discord.Message | None = None
        shown_on: int | None = None
        found: list[discord.Attachment] = []
        drawn = rendered.data
        if (
            edit
            and attachments is None
            and drawn is not None
            and not interaction.response.is_done()
        ):
            # Drawn as Discord's JSON: sent as it is (the common answer to a click).
            await update_drawn(interaction, drawn)
            return None
        kwargs = rendered.message(note, edit=edit)
        if edit or kwargs.get("content") is None:
            kwargs.pop("content", None)
        if edit:
            if attachments is not None:
                kwargs["attachments"] = attachments
            found = await self.edit_clicked(interaction, **kwargs)
            if attachments is not None and clicked is not None:
                shown_on = clicked
        else:
            kwargs["files"] = attachments
            if interaction.response.is_done():
                followup = await interaction.followup.send(ephemeral=ephemeral, wait=True, **kwargs)
                sent: object = followup
            else:
                answer = await interaction.response.send_message(ephemeral=ephemeral, **kwargs)
                sent = answer.resource if answer is not None else None
            if rendered.pictures and isinstance(sent, discord.Message | discord.InteractionMessage):
                shown_on, found = sent.id, sent.attachments
        if shown_on is not None and remember:
            await self.pictures.after_edit(
                shown_on, rendered.pictures, [dict(a.to_dict()) for a in found], new=not edit
            )
        return followup

    async def edit_clicked(
        self, interaction: discord.Interaction[Any], **kwargs: Any
    ) -> list[discord.Attachment]:
        """Edit the clicked message, whether or not the interaction was answered (deferred:
        the work took long) before. Returns the attachments the message has now."""
        if interaction.response.is_done():
            edited = await interaction.edit_original_response(**kwargs)
            return edited.attachments
        if "attachments" not in kwargs:
            await update_clicked(interaction, **kwargs)
            return []
        answer = await interaction.response.edit_message(**kwargs)
        return list(getattr(answer.resource if answer is not None else None, "attachments", []))

    async def reply(
        self, interaction: discord.Interaction[Any], text: str | None, **kwargs: Any
    ) -> None:
        """An ephemeral answer, whether or not the interaction was answered (deferred) before."""
        if interaction.response.is_done():
            await interaction.followup.send(text or discord.utils.MISSING, ephemeral=True, **kwargs)
        else:
            await interaction.response.send_message(text, ephemeral=True, **kwargs)

    async def answer_error(self, interaction: discord.Interaction[Any], exc: BaseException) -> None:
        original = exc.original if isinstance(exc, app_commands.CommandInvokeError) else exc
        if isinstance(original, AfterCommit):
            await self.answer_committed(interaction, original)
            return
        if expired(original):
            # Not a bug, and every further answer would be refused too.
            log.warning(
                "interaction %s expired before it was answered: %s", interaction.id, original
            )
            return
        text = friendly_error(exc)
        if text is None:
            log.error("unexpected error", exc_info=exc)
            text = APOLOGY
        if interaction.type is discord.InteractionType.autocomplete:
            if not interaction.response.is_done():  # suggestions are its only possible answer
                await interaction.response.autocomplete([])
            return
        try:
            await self.reply(interaction, text[:MAX_ANSWER])
        except discord.HTTPException as failure:
            log.warning("could not deliver an error message: %s", failure)

    async def answer_committed(
        self, interaction: discord.Interaction[Any], exc: AfterCommit
    ) -> None:
        """The change is stored but its answer failed: say what was done (and, when the clicked
        message was deleted, show privately what it showed; the table sync posts it again)."""
        failure = exc.failure
        if expired(failure):  # the change is kept; the table sync shows it
            log.warning("interaction %s expired before its move was shown", interaction.id)
            return
        if failure_of(failure) is Failure.REFUSED and not exc.message_gone:
            log.error("showing a stored change failed", exc_info=failure)
        else:
            log.warning("showing a stored change failed: %s", failure)
        try:
            if exc.message_gone and exc.again is not None:
                text = f"✅ {exc.done} The message you clicked was deleted, so here it is."
                await self.show(interaction, await exc.again(), text)
                return
            text = (
                f"✅ {exc.done} (I couldn't show it on the message you clicked: "
                "`/game status` shows the game.)"
            )
            await self.reply(interaction, text[:MAX_ANSWER])
        except Exception as failed:
            log.warning("could not tell what was done: %s", failed)

    async def send_private_view(
        self, interaction: discord.Interaction[Any], session_id: int
    ) -> None:
        """The clicker's private view, as an ephemeral message with working controls."""
        s = await self.service.load(session_id)
        uid = str(interaction.user.id)
        if s.player(uid) is None:
            await self.reply(interaction, "⚠️ You're not playing in this game.")
            return
        if s.state is None:
            await self.reply(
                interaction, "The game hasn't started yet — your hand comes at the start."
            )
            return
        note = waiting_note(await self.service.waiting_elsewhere(uid, s.id))
        await self.show(interaction, self.screens.private_payload(s, uid, note=note), note or None)

    async def check_dms(self, interaction: discord.Interaction[Any], s: Session) -> None:
        """At join: make sure secrets can reach the player by DM; if not, say what to do (and
        send them no other DM in this game: see ClosedDms)."""
        uid = str(interaction.user.id)
        sent = None
        if not await self.closed_dms.closed(s.id, uid):  # else refused already in this game
            try:
                sent = await self.messenger.send_dm(
                    uid,
                    content=f"👋 You joined **{s.game.title}** in <#{s.row.channel_id}>. Your "
                    "private hand will arrive here when the game starts.",
                )
            except (TimeoutError, discord.HTTPException, aiohttp.ClientError, OSError) as exc:
                log.warning("DM to %s failed: %s", uid, exc)  # not refused: the game tries again
            else:
                if sent is None:  # refused (their DMs are closed)
                    await self.closed_dms.refused(s.id, uid)
        if sent is None:
            await interaction.followup.send(DM_CLOSED_HELP, ephemeral=True)

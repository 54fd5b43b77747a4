"""What each kind of component does when clicked (the DynamicItems are in bot.adapter.items).

Every handler answers the interaction on every path (an error becomes an ephemeral message
through the items' error hook), so Discord never shows "This interaction failed".
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from functools import partial
from typing import Any

import discord

from bot.adapter.answer import Answer, edit, new
from bot.adapter.clicked import clicker as clicked_by
from bot.adapter.clicked import message_id as clicked_id
from bot.adapter.history import PER_PAGE, history_screen, record_file
from bot.adapter.refusals import RefusalLimit
from bot.adapter.render import jump_link, names_in
from bot.adapter.replies import Replies, committed, in_time
from bot.adapter.screens import Screens
from bot.adapter.tables import TableSync
from bot.core.errors import NotAllowed, StaleVersion, UserError
from bot.core.options import choices_of, option_fields
from bot.core.record import short
from bot.core.sessions import TABLE, Session, SessionService
from bot.core.store import SessionStatus
from games import REGISTRY
from games.engine import PrivatePanel

log = logging.getLogger(__name__)

# A stale click's answer past the user's redrawn ones (bot.adapter.refusals).
STALE_TEXT_ONLY = (
    "The table has moved on since that message, so nothing was played. The game's newest "
    "messages show it as it is now (`/game status`, `/game hand`)."
)


class Controls:
    """What each kind of component does."""

    def __init__(
        self,
        service: SessionService,
        screens: Screens,
        replies: Replies,
        tables: TableSync,
        refusals: RefusalLimit | None = None,
    ) -> None:
        self.service = service
        self.screens = screens
        self.replies = replies
        self.tables = tables
        self.refusals = RefusalLimit() if refusals is None else refusals

    async def game_control(
        self, interaction: discord.Interaction[Any], match: re.Match[str], values: list[str]
    ) -> None:
        sid, seat, key = int(match["sid"]), match["seat"], match["key"]
        clicker = clicked_by(interaction)

        def choose(s: Session) -> Any:
            """Runs under the session's lock: the click must match what the message showed."""
            if s.state is None or s.status is SessionStatus.LOBBY:
                raise NotAllowed("The game hasn't started yet.")
            if s.status is not SessionStatus.ACTIVE:
                raise NotAllowed("This game has ended — `/game status` shows the result.")
            viewer: str | None = None
            if seat != "t":
                me = s.player(clicker)
                if me is None:
                    raise NotAllowed("You're not playing in this game.")
                if str(me.seat) != seat:
                    raise NotAllowed("Those controls belong to another player.")
                viewer = clicker
            keys = self.screens.keys_now(s, viewer)
            # The clicked move must still be offered (in this step) to whoever it was shown to.
            if values:
                action = keys.action(values[0], in_select=True) if len(values) == 1 else None
            else:
                action = keys.action(key, in_select=False)
            if action is None:
                raise StaleVersion()
            return action

        message_id = clicked_id(interaction)
        view = TABLE if seat == "t" else clicker
        # The worker leaves the clicked message to this click's answer; leaving, it is told
        # once whether the answer drew the move (tables.answering, written out).
        tables = self.tables
        tables.claim(message_id, sid, view)
        try:
            try:
                result = await in_time(
                    interaction,
                    self.service.act_with(sid, clicker, choose),
                    interaction.response.defer,
                )
            except (StaleVersion, NotAllowed) as exc:
                refusal = await self._refused(interaction, sid, view, exc)
                await self.replies.answer(interaction, refusal)
                return
            s = result.session
            # A private decision (a peek at the deck): shown to the clicker alone, at once.
            peek = (
                s.state is not None
                and s.game.private_panel is PrivatePanel.ON_REQUEST
                and s.game.private_decision(s.state, clicker)
            )
            done = f"Your move in game #{s.id} was played."
            await self._answer_move(interaction, s, done, view, peek=clicker if peek else None)
        finally:
            tables.unclaim(message_id, sid, view)

    async def _refused(
        self,
        interaction: discord.Interaction[Any],
        sid: int,
        view: str | None,
        exc: StaleVersion | NotAllowed,
    ) -> Answer:
        """A refused click's answer. On the DM of a step that is over (a new step came as a
        newer DM, and the old one is not edited then) or of a game that ended, it closes that
        DM, pointing at the newer one; else a stale click is shown the view as it is now (its
        text alone past the user's few in a while: ``refusals``), and a move not allowed is
        raised (the error hook says why). Nothing is written: no memo of its pictures."""
        message = interaction.message
        old_dm = (
            message is not None and interaction.guild_id is None and not message.flags.ephemeral
        )
        if isinstance(exc, NotAllowed) and not old_dm:
            raise exc
        s = await self.service.load(sid)
        me = s.player(str(interaction.user.id))
        older = me.dm_message_id if me is not None else None
        if old_dm and message is not None and older not in (None, message.id):
            v2 = message.flags.components_v2
            if s.status is SessionStatus.ABANDONED:
                return edit(self.screens.abandoned_dm(s, v2=v2), keeps_attachments=True)
            return edit(self.screens.closed_step(s, v2=v2), keeps_attachments=True)
        if isinstance(exc, NotAllowed):
            raise exc
        if not self.refusals.redraw(str(interaction.user.id)):
            raise StaleVersion(STALE_TEXT_ONLY)
        note = f"⚠️ {StaleVersion().message}"
        return new(await self.screens.view_of(s, view, note), note, remembers_pictures=False)

    async def _answer_move(
        self,
        interaction: discord.Interaction[Any],
        s: Session,
        done: str,
        view: str | None = TABLE,
        *,
        peek: str | None = None,
    ) -> None:
        """Answer a stored change (``done``) on the clicked message, which shows ``view``:
        decided once, drawn once, sent once (and ``peek``'s private view after, if given).

        The table message and each player's DM are kept up to date by the table sync: the click
        is answered with the newest render of that message (one writer at a time per message),
        or only acknowledged when a new message is due (the sync sends it). Any other copy (an
        ephemeral from /game hand or /game status) is edited by the answer itself.
        """
        again = partial(self.screens.view_of, s, view)
        async with committed(done, again), self.tables.click_answer(interaction, s) as kept:
            answer = kept if kept is not None else edit(await self.screens.view_of(s, view))
            if peek is not None:
                answer = replace(answer, then=await self.screens.view_of(s, peek))
            await self.replies.answer(interaction, answer)

    async def lobby_button(
        self, interaction: discord.Interaction[Any], match: re.Match[str], values: list[str]
    ) -> None:
        sid, verb = int(match["sid"]), match["verb"]
        user = interaction.user
        uid = str(user.id)
        if verb == "hand":
            await self.replies.send_private_view(interaction, sid)
            return
        if verb == "help":
            s = await self.service.load(sid)
            embed, view = self.screens.help_page(s.game, 0)
            await self.replies.reply(interaction, None, embed=embed, view=view)
            return
        if verb == "skip":
            result = await in_time(
                interaction, self.service.skip_step(sid, uid), interaction.response.defer
            )
            skipped = result.session
            await self._answer_move(interaction, skipped, f"Game #{sid} moved on.")
            return
        if verb == "join":
            work = self.service.join(sid, uid, user.display_name)
        elif verb == "leave":
            work = self.service.leave(sid, uid)
        elif verb in ("bot", "easybot", "hardbot"):
            level = {"bot": "normal", "easybot": "easy", "hardbot": "hard"}[verb]
            work = self.service.add_robot(sid, uid, level)
        elif verb == "unbot":
            work = self.service.remove_robot(sid, uid)
        else:
            work = self.service.start(sid, uid)
        s = await in_time(interaction, work, interaction.response.defer)
        done = {
            "join": f"You joined game #{s.id} ({s.game.title}).",
            "leave": f"You left game #{s.id} ({s.game.title}).",
            "bot": f"A bot player joined game #{s.id} ({s.game.title}).",
            "unbot": f"A bot player left game #{s.id} ({s.game.title}).",
        }.get(verb, f"Game #{s.id} ({s.game.title}) has started.")
        await self._answer_move(interaction, s, done)
        if verb == "join" and s.game.private_panel is PrivatePanel.DM:
            async with committed(done, partial(self.screens.view_of, s, TABLE)):
                await self.replies.check_dms(interaction, s)

    async def option_select(
        self, interaction: discord.Interaction[Any], match: re.Match[str], values: list[str]
    ) -> None:
        sid = int(match["sid"])
        s = await self.service.load(sid)
        name, _, index = (values[0] if values else "").partition(":")
        info = option_fields(s.game).get(name)
        # ASCII digits only: "²".isdigit() is True, and int("²") fails.
        if info is None or not re.fullmatch(r"[0-9]{1,2}", index):
            raise UserError("That option isn't offered.")
        if int(index) >= len(choices_of(info)):
            raise UserError("That option isn't offered.")
        value = choices_of(info)[int(index)][1]
        s = await in_time(
            interaction,
            self.service.set_option(sid, str(interaction.user.id), name, value),
            interaction.response.defer,
        )
        await self._answer_move(interaction, s, f"The option of game #{s.id} was set.")

    async def help_page(
        self, interaction: discord.Interaction[Any], match: re.Match[str], values: list[str]
    ) -> None:
        game = REGISTRY.get(match["game"])
        if game is None:
            raise UserError("I don't know that game.")
        embed, view = self.screens.help_page(game, int(match["page"]))
        message = interaction.message
        if message is not None and message.flags.ephemeral:  # turn the page in place
            await interaction.response.edit_message(embed=embed, view=view)
        else:
            await self.replies.reply(interaction, None, embed=embed, view=view)

    async def abandon_button(
        self, interaction: discord.Interaction[Any], match: re.Match[str], values: list[str]
    ) -> None:
        sid, verb = int(match["sid"]), match["verb"]
        if verb == "no":
            await interaction.response.edit_message(content="Carry on! 🍽️", view=None)
            return
        perms = interaction.permissions
        await in_time(
            interaction,
            self.service.abandon(
                sid,
                str(interaction.user.id),
                bool(perms.manage_channels),
                who=interaction.user.display_name[:32],
            ),
            interaction.response.defer,
        )
        done = f"🧹 Game #{sid} was abandoned."
        async with committed(f"Game #{sid} was abandoned."):
            await self.replies.edit_clicked(interaction, content=done, view=None)

    async def rematch_button(
        self, interaction: discord.Interaction[Any], match: re.Match[str], values: list[str]
    ) -> None:
        sid, user = int(match["sid"]), interaction.user

        async def open_lobby() -> tuple[Session, bool, int | None]:
            s, opened = await self.service.rematch(sid, str(user.id), user.display_name)
            message_id = s.row.table_message_id
            if message_id is None and s.status is SessionStatus.LOBBY:
                try:
                    message_id = await self.tables.post_table(s.id)
                except Exception as exc:  # the lobby is stored: the table sync posts it later
                    log.warning("posting rematch %s's lobby failed: %s", s.id, exc)
                    self.tables.request_sync(s.id)
            return s, opened, message_id

        s, opened, message_id = await in_time(
            interaction,
            open_lobby(),
            lambda: interaction.response.defer(ephemeral=True, thinking=True),
        )
        where = jump_link(s.row.guild_id, s.row.channel_id, message_id)
        if opened:
            text = (
                f"🔁 Rematch! A new lobby of {s.game.title} is open: {where} — everyone from "
                "this game is seated, and you host it."
            )
        elif s.status is SessionStatus.LOBBY:
            text = f"🔁 The rematch is already open: {where} (game #{s.id})."
        else:
            text = f"🔁 This game's rematch is game #{s.id} ({s.status.value}): {where}."
        async with committed(f"Game #{s.id} is this game's rematch."):
            await self.replies.reply(interaction, text)

    async def history_page(
        self, interaction: discord.Interaction[Any], match: re.Match[str], values: list[str]
    ) -> None:
        guild_id = interaction.guild_id
        if guild_id is None:
            raise UserError("Use `/game history` in a server.")
        page = await in_time(
            interaction,
            self.service.history(guild_id, int(match["page"]), PER_PAGE),
            interaction.response.defer,
        )
        embed, view = history_screen(page, self.screens.items)
        await self.replies.edit_clicked(interaction, embed=embed, view=view)

    async def record_select(
        self, interaction: discord.Interaction[Any], match: re.Match[str], values: list[str]
    ) -> None:
        if len(values) != 1 or not re.fullmatch(r"[0-9]{1,18}", values[0]):
            raise UserError("That game isn't offered.")
        record = await in_time(
            interaction,
            self.service.record(int(values[0]), interaction.guild_id),
            lambda: interaction.response.defer(ephemeral=True, thinking=True),
        )
        await self.replies.reply(
            interaction,
            f"📜 The record of game #{record.session}: its options, its seed and every move "
            f"with its player and time. `python -m bot verify {record_file(record).filename}` "
            "replays it and checks that the deal was the one sealed at the start "
            f"(`{short(record.commitment)}`).",
            file=record_file(record),
        )

    async def undo_button(
        self, interaction: discord.Interaction[Any], match: re.Match[str], values: list[str]
    ) -> None:
        sid, seq, agree = int(match["sid"]), int(match["seq"]), match["verb"] == "yes"
        answer = await in_time(
            interaction,
            self.service.answer_undo(sid, str(interaction.user.id), seq, agree),
            interaction.response.defer,
        )
        line = names_in(answer.text, await self.service.names(sid))
        message = interaction.message
        content = f"{message.content if message is not None else ''}\n{line}"[-2000:]
        # Settled: the buttons go (in this answer); else they stay for the others.
        if answer.settled:
            self.tables.undo_answered(sid, seq)
        view = None if answer.settled else self.screens.undo_view(sid, seq)
        async with committed(line):
            await self.replies.edit_clicked(interaction, content=content, view=view)

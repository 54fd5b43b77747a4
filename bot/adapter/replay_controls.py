"""The Replay screens' handlers: open a replay (a new ephemeral message), go to a step or a
round (an edit of it)."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.adapter.items import Items
from bot.adapter.replays import replay_page
from bot.adapter.replies import Replies, in_time
from bot.core.errors import UserError
from bot.core.replays import Replay
from bot.core.sessions import SessionService


class ReplayControls:
    """The replay's handlers (bound in bot/app.py)."""

    def __init__(self, service: SessionService, replies: Replies, items: Items) -> None:
        self.service = service
        self.replies = replies
        self.items = items

    async def _replay(
        self, interaction: discord.Interaction[Any], session_id: int, *, new: bool
    ) -> Replay:
        if new:

            def defer() -> Any:
                return interaction.response.defer(ephemeral=True, thinking=True)
        else:
            defer = interaction.response.defer
        return await in_time(
            interaction, self.service.replay_of(session_id, interaction.guild_id), defer
        )

    async def _show(
        self, interaction: discord.Interaction[Any], session_id: int, step: int, *, new: bool
    ) -> None:
        replay = await self._replay(interaction, session_id, new=new)
        embeds, view = replay_page(replay, step, str(interaction.user.id), self.items)
        if new:
            await self.replies.reply(interaction, None, embeds=embeds, view=view)
        else:
            await self.replies.edit_clicked(interaction, embeds=embeds, view=view)

    async def replay_button(
        self, interaction: discord.Interaction[Any], match: re.Match[str], values: list[str]
    ) -> None:
        new = match["way"] == "o"
        await self._show(interaction, int(match["sid"]), int(match["step"]), new=new)

    async def replay_round(
        self, interaction: discord.Interaction[Any], match: re.Match[str], values: list[str]
    ) -> None:
        if len(values) != 1 or not re.fullmatch(r"[0-9]{1,6}", values[0]):
            raise UserError("That round isn't offered.")
        await self._show(interaction, int(match["sid"]), int(values[0]), new=False)

    async def replay_pick(
        self, interaction: discord.Interaction[Any], match: re.Match[str], values: list[str]
    ) -> None:
        if len(values) != 1 or not re.fullmatch(r"[0-9]{1,18}", values[0]):
            raise UserError("That game isn't offered.")
        await self._show(interaction, int(values[0]), 0, new=True)

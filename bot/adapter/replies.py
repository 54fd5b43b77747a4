"""Answers shared by commands and components: ephemeral notes, errors, private views."""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.adapter.messenger import Messenger
from bot.adapter.render import sendable
from bot.adapter.screens import DM_CLOSED_HELP, Screens
from bot.core.errors import StaleVersion, UserError
from bot.core.sessions import Session, SessionService
from games.presentation import PLAYER_TOKEN

log = logging.getLogger(__name__)

APOLOGY = "😵 Sorry — something went wrong on my side. Nothing was changed; please try again."


class Replies:
    def __init__(self, service: SessionService, screens: Screens, messenger: Messenger) -> None:
        self.service = service
        self.screens = screens
        self.messenger = messenger

    async def reply(self, interaction: discord.Interaction[Any], text: str, **kwargs: Any) -> None:
        """An ephemeral answer, whether or not the interaction was answered before."""
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True, **kwargs)
        else:
            await interaction.response.send_message(text, ephemeral=True, **kwargs)

    async def answer_error(self, interaction: discord.Interaction[Any], exc: BaseException) -> None:
        if isinstance(exc, discord.app_commands.CommandInvokeError):
            exc = exc.original
        if isinstance(exc, UserError):
            # Players named in a refusal ("waiting for {p:ID}") are shown as mentions; the
            # answer is ephemeral, so nobody is pinged.
            text = "⚠️ " + PLAYER_TOKEN.sub(lambda m: f"<@{m.group(1)}>", exc.message)
        elif isinstance(exc, discord.app_commands.CheckFailure):
            text = "⚠️ You can't use that here."
        else:
            log.error("unexpected error", exc_info=exc)
            text = APOLOGY
        try:
            await self.reply(interaction, text)
        except discord.HTTPException:
            log.warning("could not deliver an error message", exc_info=True)

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
        embed, view, _ = self.screens.private_payload(s, uid)
        await interaction.response.send_message(embed=embed, view=sendable(view), ephemeral=True)

    async def send_fresh_view(
        self, interaction: discord.Interaction[Any], session_id: int, seat: str
    ) -> None:
        note = f"⚠️ {StaleVersion().message}"
        s = await self.service.load(session_id)
        if seat != "t" and s.state is not None and s.player(str(interaction.user.id)):
            embed, view, _ = self.screens.private_payload(s, str(interaction.user.id))
            embeds = [embed]
        else:
            embeds, view, _ = await self.screens.table_payload(s)
        await interaction.response.send_message(
            note, embeds=embeds, view=sendable(view), ephemeral=True
        )

    async def check_dms(self, interaction: discord.Interaction[Any], s: Session) -> None:
        """At join: make sure secrets can reach the player by DM; if not, say what to do."""
        sent = await self.messenger.send_dm(
            str(interaction.user.id),
            content=f"👋 You joined **{s.game.title}** in <#{s.row.channel_id}>. Your private "
            "hand will arrive here when the game starts.",
        )
        if sent is None:
            await interaction.followup.send(DM_CLOSED_HELP, ephemeral=True)

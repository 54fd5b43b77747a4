"""The Discord bot: wiring of store, session service, commands, components and timers."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

import discord
import yarl
from discord.ext import commands

from bot.commands import GameCommands
from bot.components import DYNAMIC_ITEMS, Controls
from bot.config import Settings
from bot.errors import StaleVersion, UserError
from bot.render import sendable
from bot.sessions import SessionService
from bot.store import NewerDatabase, Store
from bot.table import DM_CLOSED_HELP, Tables
from bot.timers import Scheduler
from games.presentation import PLAYER_TOKEN

log = logging.getLogger("cafebot")


class CafeBot(commands.Bot):
    store: Store
    service: SessionService

    def __init__(
        self,
        settings: Settings,
        clock: Callable[[], float] = time.time,
        new_seed: Callable[[], int] | None = None,
    ) -> None:
        intents = discord.Intents.default()  # no privileged intents needed
        super().__init__(command_prefix=commands.when_mentioned, intents=intents, help_command=None)
        self.settings = settings
        self.clock = clock  # wall time; tests pass a clock they can move forward
        self.new_seed = new_seed  # where game seeds come from (random unless given)
        self._connection.guild_ready_timeout = settings.guild_ready_timeout
        self.tables = Tables(self)
        self.controls = Controls(self)
        self.scheduler = Scheduler(self)
        self.synced_commands = 0

    async def setup_hook(self) -> None:
        self.store = await Store.open(self.settings.database_path, self.settings.sqlite_synchronous)
        self.service = SessionService(self.store, now=lambda: self.clock())
        if self.new_seed is not None:
            self.service.new_seed = self.new_seed
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        self.tree.add_command(GameCommands(self))
        self.tree.on_error = self.on_app_command_error  # type: ignore[method-assign]
        if self.settings.dev_guild_id:
            guild = discord.Object(id=self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
        else:
            synced = await self.tree.sync()
        self.synced_commands = len(synced)
        log.info(
            "synced %d command(s)%s",
            len(synced),
            " to the development guild" if self.settings.dev_guild_id else " globally",
        )
        await self.scheduler.start()
        # Anything committed but not yet shown (a crash between commit and post) is shown now.
        for row in await self.store.sessions_with_status("lobby", "active"):
            self.tables.request_sync(row.id)

    async def close(self) -> None:
        await self.scheduler.stop()
        await self.tables.idle()
        await super().close()
        if hasattr(self, "store"):
            await self.store.close()

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Answer component clicks that no DynamicItem will take (a custom_id that is not on
        the message: a forged or ancient client), so nobody sees "This interaction failed"."""
        if interaction.type is not discord.InteractionType.component:
            return
        data: dict[str, Any] = dict(interaction.data or {})
        custom_id = str(data.get("custom_id", ""))
        message = interaction.message
        present = message is not None and any(
            getattr(child, "custom_id", None) == custom_id
            for row in message.components
            for child in getattr(row, "children", [row])
        )
        if not present:
            await self.reply(interaction, "⚠️ That control isn't on this message any more.")

    async def on_ready(self) -> None:
        log.info("ready as %s in %d server(s)", self.user, len(self.guilds))

    # -- shared answers --------------------------------------------------------------------------
    def after_change(self, session_id: int) -> None:
        self.tables.request_sync(session_id)
        self.scheduler.wake()

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
            text = (
                "😵 Sorry — something went wrong on my side. Nothing was changed; please try again."
            )
        try:
            await self.reply(interaction, text)
        except discord.HTTPException:
            log.warning("could not deliver an error message", exc_info=True)

    async def on_app_command_error(
        self, interaction: discord.Interaction[Any], error: discord.app_commands.AppCommandError
    ) -> None:
        await self.answer_error(interaction, error)

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
        embed, view, _ = self.tables.private_payload(s, uid)
        await interaction.response.send_message(embed=embed, view=sendable(view), ephemeral=True)

    async def send_fresh_view(
        self, interaction: discord.Interaction[Any], session_id: int, seat: str
    ) -> None:
        note = f"⚠️ {StaleVersion().message}"
        s = await self.service.load(session_id)
        if seat != "t" and s.state is not None and s.player(str(interaction.user.id)):
            embed, view, _ = self.tables.private_payload(s, str(interaction.user.id))
        else:
            embeds, view, _ = await self.tables.table_payload(s)
            embed = embeds[0]
        await interaction.response.send_message(
            note, embed=embed, view=sendable(view), ephemeral=True
        )

    async def check_dms(self, interaction: discord.Interaction[Any], s: Any) -> None:
        """At join: make sure secrets can reach the player by DM; if not, say what to do."""
        sent = await self.tables.send_dm(
            str(interaction.user.id),
            content=f"👋 You joined **{s.game.title}** in <#{s.row.channel_id}>. Your private "
            "hand will arrive here when the game starts.",
        )
        if sent is None:
            await interaction.followup.send(DM_CLOSED_HELP, ephemeral=True)


def run_bot(settings: Settings) -> int:
    import discord.gateway
    import discord.http

    logging.basicConfig(
        level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    if settings.discord_api_base:
        discord.http.Route.BASE = settings.discord_api_base
    if settings.discord_gateway:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.discord_gateway)
    token = settings.discord_token.get_secret_value() if settings.discord_token else ""
    bot = CafeBot(settings)
    try:
        bot.run(token, log_handler=None)
    except discord.LoginFailure:
        log.error("Discord refused the token: check DISCORD_TOKEN (it is not shown here).")
        return 2
    except NewerDatabase as exc:
        log.error("%s", exc)
        return 2
    return 0


__all__ = ["CafeBot", "asyncio", "run_bot"]

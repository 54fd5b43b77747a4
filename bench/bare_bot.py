"""The library's own limit: a bare discord.py bot that only acknowledges every component click
(a deferred update) and answers nothing else. bench/bot.py runs it against the same emulator
and the same clicks as cafebot, to compare CPU per click. Not a product: run by bench/bot.py
(BARE_SHARDS=N: on N shards, as a cluster of N cafebot processes is).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import discord
import discord.gateway
import discord.http
import yarl


async def acknowledge(interaction: discord.Interaction[Any]) -> None:
    if interaction.type is discord.InteractionType.component:
        await interaction.response.defer()


class BareBot(discord.Client):
    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        await acknowledge(interaction)


class ShardedBareBot(discord.AutoShardedClient):
    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        await acknowledge(interaction)


def main() -> int:
    discord.http.Route.BASE = os.environ["CAFEBOT_DISCORD_API_BASE"]
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(
        os.environ["CAFEBOT_DISCORD_GATEWAY"]
    )
    intents = discord.Intents.none()
    intents.guilds = True  # the same intents as cafebot
    shards = int(os.environ.get("BARE_SHARDS", "1"))
    client: discord.Client = (
        ShardedBareBot(intents=intents, shard_count=shards)
        if shards > 1
        else BareBot(intents=intents)
    )
    client._connection.guild_ready_timeout = 0.05
    client.run(os.environ["DISCORD_TOKEN"], log_handler=None)
    return 0


if __name__ == "__main__":
    sys.exit(main())

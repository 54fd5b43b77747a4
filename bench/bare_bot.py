"""The library's own limit: a bare discord.py bot that only acknowledges component clicks
(a deferred update) and nothing else. bench/bot.py runs it against the emulator after the
real bot, with the same clicks, so the bot's interactions/s can be read as a share of it.
    python bench/bare_bot.py   (with emu.env() in the environment, and BARE_SHARDS=N)
"""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import discord
import discord.gateway
import discord.http
import yarl


def main() -> None:
    discord.http.Route.BASE = os.environ["CAFEBOT_DISCORD_API_BASE"]
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(
        os.environ["CAFEBOT_DISCORD_GATEWAY"]
    )
    shards = int(os.environ.get("BARE_SHARDS", "1"))
    intents = discord.Intents.default()
    client: discord.Client = (
        discord.AutoShardedClient(intents=intents, shard_count=shards)
        if shards > 1
        else discord.Client(intents=intents)
    )
    client._connection.guild_ready_timeout = 0.05

    @client.event
    async def on_interaction(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.defer()

    async def run() -> None:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        loop.add_signal_handler(signal.SIGINT, stop.set)
        async with client:
            task = asyncio.create_task(client.start(os.environ["DISCORD_TOKEN"]))
            await stop.wait()
            await client.close()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(run())


if __name__ == "__main__":
    main()

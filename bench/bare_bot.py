"""The library's own limit: a bare discord.py bot that only acknowledges every component click
(a deferred update) and answers nothing else. bench/bot.py runs it against the same emulator
and the same clicks as cafebot, to compare CPU per click. Not a product: run by bench/bot.py
(BARE_SHARDS=N: on N shards, as a cluster of N cafebot processes is).

BARE_ANSWER=floor: instead, what any discord.py bot must send to show our game as cafebot does,
with no game, store or drawing behind it: each click is answered by updating the clicked
message (its own embeds and components sent back: a body of our panels' size), and the same
REST traffic beyond the callbacks as cafebot's bench run (0.30 per click: every 5th click a
DM of that message, every 20th a message sent and one edited).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

# The project's root first: this script's own folder holds a bot.py of its own.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import discord
import discord.gateway
import discord.http
import yarl
from discord.http import Route

from bot.adapter.messenger import post_callback

FLOOR = os.environ.get("BARE_ANSWER") == "floor"
CLICKS = [0]
SENT: dict[int, int] = {}  # channel → the message the floor bot edits there


async def acknowledge(interaction: discord.Interaction[Any]) -> None:
    if interaction.type is not discord.InteractionType.component:
        return
    if not FLOOR or interaction.message is None:
        await interaction.response.defer()
        return
    message = interaction.message
    shown: dict[str, Any] = {
        "embeds": [e.to_dict() for e in message.embeds],
        "components": [c.to_dict() for c in message.components],
    }
    # As cafebot's update_clicked: a message update without asking for the message back.
    await post_callback(interaction, {"type": 7, "data": shown})
    CLICKS[0] += 1
    http, channel_id = interaction._state.http, interaction.channel_id
    assert channel_id is not None
    send = Route("POST", "/channels/{channel_id}/messages", channel_id=channel_id)
    if CLICKS[0] % 5 == 0:  # a new step's DM
        await http.request(send, json=shown)
    if CLICKS[0] % 20 == 0:  # a table edit and an announcement
        if channel_id in SENT:
            await http.request(
                Route(
                    "PATCH",
                    "/channels/{channel_id}/messages/{message_id}",
                    channel_id=channel_id,
                    message_id=SENT[channel_id],
                ),
                json=shown,
            )
        sent = await http.request(send, json=shown)
        SENT[channel_id] = int(sent["id"])


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

"""Sending and editing messages through Discord's REST API: channel posts, DMs, edits."""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.adapter.render import mention_line

log = logging.getLogger(__name__)


class Messenger:
    def __init__(self, client: discord.Client) -> None:
        self.client = client
        self._dm_channels: dict[str, int] = {}

    def channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(channel_id)

    async def edit(
        self,
        channel_id: int,
        message_id: int,
        *,
        embeds: list[discord.Embed],
        view: discord.ui.View | None,
    ) -> None:
        """Edit through discord.py's HTTP layer: the same request as Message.edit, without
        building a Message (and every component in it) from the response we do not use."""
        params = discord.http.handle_message_parameters(embeds=embeds, view=view)
        with params:
            await self.client.http.edit_message(channel_id, message_id, params=params)

    async def send_dm(self, user_id: str, **kwargs: Any) -> discord.Message | None:
        """DM a user; None when their DMs are closed (403) or they cannot be reached."""
        try:
            channel_id = await self._dm_channel_id(user_id)
            channel = self.client.get_partial_messageable(
                channel_id, type=discord.ChannelType.private
            )
            return await channel.send(**kwargs)
        except discord.Forbidden:
            return None
        except discord.HTTPException:
            log.warning("DM to %s failed", user_id, exc_info=True)
            return None

    async def _dm_channel_id(self, user_id: str) -> int:
        if user_id not in self._dm_channels:
            data = await self.client.http.start_private_message(int(user_id))
            self._dm_channels[user_id] = int(data["id"])
        return self._dm_channels[user_id]

    async def post_notice(self, channel_id: int, text: str, ping: list[str] | None = None) -> None:
        content = " ".join(filter(None, [mention_line(ping or []), text]))
        await self.channel(channel_id).send(
            content=content[:2000], allowed_mentions=discord.AllowedMentions(users=True)
        )

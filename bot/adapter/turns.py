"""One live "whose turn" notice per game.

A turn notice pings the players it awaits; once the turn passes it says nothing true any more,
so when the next one is posted (or the game ends) the previous one goes: deleted when it was
all its message said, else its message is edited to keep the rest (the moves told with it).
One call per turn notice; the live one is remembered in the database, so a restart does not
leave it behind.
"""

from __future__ import annotations

import contextlib
import json
import logging
from dataclasses import dataclass

import discord

from bot.adapter.messenger import Messenger
from bot.core.sessions import SessionService

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LiveNotice:
    channel_id: int
    message_id: int
    rest: str  # the message's text without the notice and its pings
    rest_embeds: list[discord.Embed]

    def dump(self) -> str:
        embeds = [e.to_dict() for e in self.rest_embeds]
        return json.dumps([self.channel_id, self.message_id, self.rest, embeds])

    @classmethod
    def load(cls, raw: str) -> LiveNotice:
        channel_id, message_id, rest, embeds = json.loads(raw)
        return cls(channel_id, message_id, rest, [discord.Embed.from_dict(e) for e in embeds])


class LiveTurns:
    def __init__(self, messenger: Messenger, service: SessionService) -> None:
        self.messenger = messenger
        self.service = service

    async def posted(self, session_id: int, notice: LiveNotice) -> None:
        """``notice`` is the session's turn notice now: the one before it goes."""
        old = await self.service.recall(f"turn-notice:{session_id}")
        await self.service.remember(f"turn-notice:{session_id}", notice.dump())
        if old:
            await self._take_back(session_id, LiveNotice.load(old))

    async def retire(self, session_id: int) -> None:
        """The session's turn notice says nothing true any more (the game is over)."""
        old = await self.service.recall(f"turn-notice:{session_id}")
        if old:
            await self.service.remember(f"turn-notice:{session_id}", "")
            await self._take_back(session_id, LiveNotice.load(old))

    async def _take_back(self, session_id: int, old: LiveNotice) -> None:
        try:
            if old.rest or old.rest_embeds:
                await self.messenger.edit_text(
                    old.channel_id, old.message_id, old.rest, old.rest_embeds
                )
            else:
                with contextlib.suppress(discord.NotFound):
                    await self.messenger.delete(old.channel_id, old.message_id)
        except discord.HTTPException as exc:  # a stale notice is not worth a retry
            log.warning("session %s: the old turn notice stays (%s)", session_id, exc)

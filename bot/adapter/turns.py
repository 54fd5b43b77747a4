"""One live "whose turn" notice per game.

A turn notice pings the players it awaits; once the turn passes it says nothing true any more.
A notice posted on its own is deleted when the next one is posted (or the game ends). A notice
told in the same message as the move that led to it (post coalescing) is that move's log line
too: it says it is as of that move and stays as posted when the next one comes, so a turn
change costs no call beyond its post (the REST budget); only when the game ends is its notice
taken out of that message (an edit keeping the moves). The live one is remembered in the
database, so a restart does not leave it behind.
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

# The footer of a turn notice told with its move: it stays in the thread, true as of then.
AS_OF_THIS_MOVE = "As of this move · the table shows whose turn it is now"


@dataclass(frozen=True)
class LiveNotice:
    channel_id: int
    message_id: int
    rest: str  # the message's text without the notice and its pings
    rest_embeds: list[discord.Embed]

    @property
    def alone(self) -> bool:
        """The notice is all its message says."""
        return not self.rest and not self.rest_embeds

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
        """``notice`` is the session's turn notice now: the one before it goes if it was a
        message of its own (one told with its move stays, as of that move)."""
        old = await self.service.recall(f"turn-notice:{session_id}")
        await self.service.remember(f"turn-notice:{session_id}", notice.dump())
        if old and LiveNotice.load(old).alone:
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

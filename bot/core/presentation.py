"""Who shows a session in Discord: one process at a time.

The table message, the outbox posts and the players' DMs of a session are written by whichever
process holds the session's presentation. With one process (SQLite) that is always this one.
With several (PostgreSQL) a process that finds another one presenting tries again a moment
later: it then renders the session as stored after the other one's edits, so the newest render
is always the last to land.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from bot.core.store import Store


@dataclass(frozen=True)
class Turn:
    held: bool  # this process may edit and post now
    # Another process presented the session since this one last did: whatever this one
    # remembers of its messages (what they show, which pictures) is out of date.
    taken_over: bool = False


class Presentation:
    def __init__(self, store: Store | None = None) -> None:
        self.store = store  # None: this process is the only one

    @asynccontextmanager
    async def hold(self, session_id: int) -> AsyncIterator[Turn]:
        if self.store is None:
            yield Turn(held=True)
            return
        held, taken_over = await self.store.acquire_presentation(session_id)
        if not held:
            yield Turn(held=False)
            return
        try:
            yield Turn(held=True, taken_over=taken_over)
        finally:
            await self.store.release_presentation(session_id)

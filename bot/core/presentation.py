"""Who shows a session in Discord: one process at a time.

The table message, the outbox posts and the players' DMs of a session are written by whichever
process holds the session's presentation. With one process (SQLite) that is always this one.
With several (PostgreSQL) a process that finds another one presenting tries again a moment
later: it then renders the session as stored after the other one's edits, so the newest render
is always the last to land.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

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

    def hold(self, session_id: int) -> AbstractAsyncContextManager[Turn]:
        """``async with presentation.hold(session_id) as turn:`` the session's presentation,
        held if ``turn.held``."""
        if self.store is None:
            return _ALONE  # (no async generator made per hold: a click holds it)
        return self._hold_shared(self.store, session_id)

    @asynccontextmanager
    async def _hold_shared(self, store: Store, session_id: int) -> AsyncIterator[Turn]:
        held, taken_over = await store.acquire_presentation(session_id)
        if not held:
            yield Turn(held=False)
            return
        try:
            yield Turn(held=True, taken_over=taken_over)
        finally:
            await store.release_presentation(session_id)


class _Alone:
    """The presentation of a process that is the only one: always held."""

    __slots__ = ()
    turn = Turn(held=True)

    async def __aenter__(self) -> Turn:
        return self.turn

    async def __aexit__(self, *exc: Any) -> None:
        return None


_ALONE = _Alone()

"""One gateway event a turn of the event loop, when several wait.

discord.py's reader (``DiscordWebSocket.poll_event``, in a loop) takes the next message from
aiohttp's queue, which does not wait when the queue holds one: every event that arrived
together (a burst of clicks after the loop was busy) was parsed in one turn, and each click's
handler task started together in the next, one long turn after another while the first
click's move could already be committing. Here the reader lets the loop turn after an event
when more are waiting: the handler just started runs (its move goes to the database) before
the next event is parsed. Nothing else changes: the same events, in the same order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from discord.gateway import DiscordWebSocket

_INSTALLED = "_cafebot_one_event_a_turn"


def more_waiting(ws: DiscordWebSocket) -> bool:
    """Are more messages already received and queued? (aiohttp's queue; if it cannot be read,
    say yes: a turn more is harmless.)"""
    reader = getattr(ws.socket, "_reader", None)
    queued = getattr(reader, "_buffer", None)
    return True if queued is None else bool(queued)


def install() -> None:
    """Make every DiscordWebSocket of this process yield between queued events (once)."""
    if getattr(DiscordWebSocket, _INSTALLED, False):
        return
    poll: Callable[[DiscordWebSocket], Awaitable[None]] = DiscordWebSocket.poll_event

    async def poll_event(self: DiscordWebSocket) -> None:
        await poll(self)
        if more_waiting(self):
            await asyncio.sleep(0)

    poll_event.__doc__ = poll.__doc__
    DiscordWebSocket.poll_event = poll_event  # type: ignore[method-assign]
    setattr(DiscordWebSocket, _INSTALLED, True)

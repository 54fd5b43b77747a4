"""A burst of gateway events read a few at a time: the loop turns between.

discord.py's reader (``DiscordWebSocket.poll_event``, in a loop) takes the next message from
aiohttp's queue, which does not wait when the queue holds one: every event that arrived
together (a burst of clicks after the loop was busy) was parsed in one turn, and every
click's handler started together in the next: turns of up to 47 ms of the loop's own CPU
(bench/bot.py --watch detail), while the first clicks' moves could already have been
committing in the database's thread. Here the reader lets the loop turn after ``AT_ONCE``
events (or a quarter of those waiting, if more) when more are waiting: the handlers just
started run, their moves on their way to the database, before the next events are parsed.
Reading one event a turn was tried: under load the reader then fell behind the clicks (a
turn holds other clicks' work), and the queue grew. Nothing else changes: the same events,
in the same order.

A message already queued is read without discord.py's receive timeout (the heartbeat's): that
read cannot wait, and the timeout was a timer made, pushed on the loop's heap and cancelled
for every event. A read that may wait keeps it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
from discord.gateway import DiscordWebSocket

AT_ONCE = 8  # events read before the loop turns, at least (as the SQLite writer tells moves)
_INSTALLED = "_cafebot_reads_a_few_a_turn"
_READ = "_cafebot_read"  # on each DiscordWebSocket: events read since the loop last turned
_LIMIT = "_cafebot_limit"  # and how many it reads before it lets the loop turn
_EVENTS = (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY)  # what carries gateway events


def _queue(ws: DiscordWebSocket) -> deque[Any] | None:
    """The messages received and queued (aiohttp's queue of (message, size); None if
    unreadable)."""
    reader = getattr(ws.socket, "_reader", None)
    queued = getattr(reader, "_buffer", None)
    return queued if isinstance(queued, deque) else None


def waiting(ws: DiscordWebSocket) -> int | None:
    """How many messages are received and queued (None if unreadable)."""
    queued = _queue(ws)
    return None if queued is None else len(queued)


def _event_queued(ws: DiscordWebSocket) -> bool:
    """Is the next message an event already queued, which a receive returns without waiting
    (the socket neither closed nor closing)?"""
    queued = _queue(ws)
    if not queued:
        return False
    socket: Any = ws.socket
    return queued[0][0].type in _EVENTS and not socket.closed and not socket._closing


def install() -> None:
    """Make every DiscordWebSocket of this process read a burst a few events a turn (once)."""
    if getattr(DiscordWebSocket, _INSTALLED, False):
        return
    poll: Callable[[DiscordWebSocket], Awaitable[None]] = DiscordWebSocket.poll_event

    async def poll_event(self: DiscordWebSocket) -> None:
        if _event_queued(self):
            # discord.py's poll_event for an event (its timeout cannot fire: no wait).
            message = await self.socket.receive()
            await self.received_message(message.data)
        else:
            await poll(self)
        left = waiting(self)
        if left == 0:  # the next read waits for the socket: the loop turns anyway
            setattr(self, _READ, 0)
            return
        read = getattr(self, _READ, 0) + 1
        if read == 1:  # the first of a run of reads without a turn: how many it may be
            setattr(self, _LIMIT, max(AT_ONCE, (left or 0) // 4))
        if read >= getattr(self, _LIMIT, AT_ONCE):
            setattr(self, _READ, 0)
            await asyncio.sleep(0)
        else:
            setattr(self, _READ, read)

    poll_event.__doc__ = poll.__doc__
    DiscordWebSocket.poll_event = poll_event  # type: ignore[method-assign]
    setattr(DiscordWebSocket, _INSTALLED, True)

"""The bot's own pace under Discord's global limit (~50 REST requests per second per bot).

Discord refuses a request over the global limit with a 429, and counts it toward a ban of the
bot's IP; discord.py paces each route's bucket from its headers but only learns of the global
limit from a 429. :class:`Pacer` keeps the bot under a budget before a request goes out:

- ``limit`` slots per ``window``; a request holds one from when it goes until ``window`` after
  its answer. A request reaches Discord between those two moments, so any ``window`` of
  Discord's clock sees at most ``limit`` of them, however late the network delivers them.
- A request waiting for a slot waits in line, first come first served. Two lines: requests
  already being made (a sync pass's, a click's DM) go before sync passes that have not begun.
- A sync pass (:meth:`Pacer.turn`) waits for its slot *before* it loads the session and draws:
  while the budget is tight, a session's changes pile up behind it and its table and DMs are
  edited once, with the newest state, not once per move. The pass's first request uses that
  slot; a pass that sends nothing gives it back at once.
- A request made under a message's lock (a table or DM edit) waits for its slot before the
  lock (:meth:`Pacer.ahead`): a click's answer takes that lock, and must not wait behind it.

Interaction callbacks and their webhooks (a click's own answer and follow-ups) are exempt from
the global limit and never go through the pacer: a click is never held back by it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

WINDOW = 1.0  # seconds: Discord counts the global limit per second


@dataclass
class _Ticket:
    """The slot a sync pass waited for, for its first request (``used``: taken, or the pass is
    over: a task that inherited the context later must wait like any other request)."""

    used: bool = False


@dataclass
class _Waiter:
    since: float
    future: asyncio.Future[None] = field(repr=False)


_ticket: ContextVar[_Ticket | None] = ContextVar("cafebot_pacing_ticket", default=None)


class Pacer:
    """``limit`` requests per ``window`` seconds in all (see the module's docstring)."""

    def __init__(self, limit: int, *, window: float = WINDOW) -> None:
        if limit < 1:
            raise ValueError("a budget of at least one request")
        self.limit = limit
        self.window = window
        self._taken = 0  # slots granted: waiting to be used, in flight, or cooling down
        self._requests: deque[_Waiter] = deque()  # requests being made: served first
        self._passes: deque[_Waiter] = deque()  # sync passes about to begin
        self.sent = 0  # requests let through (for benchmarks and metrics)
        self.waited = 0  # of which had to wait for a slot

    @property
    def behind(self) -> float:
        """How far behind the budget the bot is: seconds the oldest request or sync pass still
        waiting for a slot has waited (0: nothing waits)."""
        now = asyncio.get_running_loop().time()
        oldest = [q[0].since for q in (self._requests, self._passes) if self._prune(q)]
        return max(0.0, now - min(oldest)) if oldest else 0.0

    @property
    def waiting(self) -> int:
        """Requests and sync passes waiting for a slot."""
        return sum(not w.future.done() for q in (self._requests, self._passes) for w in q)

    @contextlib.asynccontextmanager
    async def request(self) -> AsyncIterator[None]:
        """Around one REST request subject to the global limit."""
        ticket = _ticket.get()
        if ticket is not None and not ticket.used:
            ticket.used = True  # the slot its sync pass waited for
        else:
            await self._take(self._requests)
        self.sent += 1
        try:
            yield
        finally:
            # Held until a window after the answer: Discord saw the request before that.
            asyncio.get_running_loop().call_later(self.window, self._give_back)

    def install(self, http: Any) -> None:
        """Pace every request of discord.py's HTTP client (``Client.http``). Interaction
        callbacks and their webhooks go through discord.py's webhook adapter instead."""
        request = http.request

        async def paced_request(*args: Any, **kwargs: Any) -> Any:
            async with self.request():
                return await request(*args, **kwargs)

        http.request = paced_request

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Around a sync pass: wait for a slot before it begins (see the module's docstring)."""
        await self._take(self._passes)
        async with self._spending():
            yield

    @contextlib.asynccontextmanager
    async def ahead(self) -> AsyncIterator[None]:
        """Around a request made under a lock a click's answer may want (a message's): its slot
        is waited for before the lock is taken, so a click never waits for the budget behind
        it. Inside a pass whose slot is still unused, that slot."""
        ticket = _ticket.get()
        if ticket is not None and not ticket.used:
            yield
            return
        await self._take(self._requests)
        async with self._spending():
            yield

    @contextlib.asynccontextmanager
    async def _spending(self) -> AsyncIterator[None]:
        """A slot just taken, for the first request made inside."""
        ticket = _Ticket()
        token = _ticket.set(ticket)
        try:
            yield
        finally:
            _ticket.reset(token)
            if not ticket.used:
                self._give_back()  # nothing sent: the slot goes to the next in line at once
            ticket.used = True

    async def _take(self, line: deque[_Waiter]) -> None:
        # Free, and nobody waits ahead: a request waits only behind requests, a pass behind all.
        ahead = self._prune(self._requests) or (line is self._passes and self._prune(self._passes))
        if self._taken < self.limit and not ahead:
            self._taken += 1
            return
        loop = asyncio.get_running_loop()
        waiter = _Waiter(loop.time(), loop.create_future())
        line.append(waiter)
        self.waited += 1
        try:
            await waiter.future
        except asyncio.CancelledError:
            if waiter.future.done() and not waiter.future.cancelled():
                self._give_back()  # granted as it was cancelled
            raise

    def _give_back(self) -> None:
        self._taken -= 1
        while self._taken < self.limit:
            line = self._requests if self._prune(self._requests) else self._passes
            if not self._prune(line):
                return
            self._taken += 1
            line.popleft().future.set_result(None)

    @staticmethod
    def _prune(line: deque[_Waiter]) -> bool:
        """Drop the cancelled waiters at the head of ``line``; is anyone still waiting?"""
        while line and line[0].future.done():
            line.popleft()
        return bool(line)


def pass_paced(pacer: Pacer | None) -> contextlib.AbstractAsyncContextManager[None]:
    """``pacer.turn()``, or nothing when the bot is not paced."""
    return pacer.turn() if pacer is not None else contextlib.nullcontext()


def slot_ahead(pacer: Pacer | None) -> contextlib.AbstractAsyncContextManager[None]:
    """``pacer.ahead()``, or nothing when the bot is not paced."""
    return pacer.ahead() if pacer is not None else contextlib.nullcontext()

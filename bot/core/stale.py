"""Reload and retry when a versioned write finds a newer version stored.

Several processes may change one session (a PostgreSQL database shared by a cluster): a move
decided on a state another process has since changed is refused by the store (``StaleWrite``,
nothing written). The service method then runs again from the start: it reads the session
anew and decides on the state it will change, so the move is applied once, or refused with the
reason that now holds.
"""

from __future__ import annotations

import asyncio
import functools
import random
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from bot.core.errors import StaleWrite

# Each refusal means another process's write succeeded. The waits grow (with jitter) so that
# under a burst the other process's queue drains first: 1, 2, 4 … 256 ms, about 0.5 s in all.
ATTEMPTS = 10
FIRST_WAIT = 0.001


class SessionLock:
    """The lock of one session in this process, which the task holding it may take again (the
    retry wrapper holds it across attempts; the method it wraps may take it too)."""

    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None
        self._depth = 0
        self._tasks = 0  # tasks holding it or waiting for it

    def locked(self) -> bool:
        return self._lock.locked()

    def in_use(self) -> bool:
        """Held or waited for (a lock not in use may be dropped and made anew)."""
        return self._tasks > 0

    async def __aenter__(self) -> None:
        task = asyncio.current_task()
        if self._owner is not None and self._owner is task:
            self._depth += 1
            return
        self._tasks += 1
        try:
            await self._lock.acquire()
        except BaseException:
            self._tasks -= 1
            raise
        self._owner, self._depth = task, 1

    async def __aexit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0:
            self._owner = None
            self._tasks -= 1
            self._lock.release()


class HasSessionLocks(Protocol):
    def lock(self, session_id: int) -> SessionLock: ...


S = TypeVar("S", bound=HasSessionLocks)
P = ParamSpec("P")
T = TypeVar("T")


def retry_stale_writes(
    method: Callable[Concatenate[S, int, P], Awaitable[T]],
) -> Callable[Concatenate[S, int, P], Coroutine[Any, Any, T]]:
    """Run ``method(self, session_id, …)`` again when its write is stale, holding the session's
    lock across attempts (this process's other moves of the session wait). It must read what
    it decides on after it starts (a failed write drops the cached session)."""

    @functools.wraps(method)
    async def retried(self: S, session_id: int, /, *args: P.args, **kwargs: P.kwargs) -> T:
        async with self.lock(session_id):
            for attempt in range(ATTEMPTS - 1):
                try:
                    return await method(self, session_id, *args, **kwargs)
                except StaleWrite:
                    await asyncio.sleep(random.uniform(0.5, 1.0) * FIRST_WAIT * 2**attempt)
            return await method(self, session_id, *args, **kwargs)

    return retried

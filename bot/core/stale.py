"""Reload and retry when a versioned write finds a newer version stored.

Several processes may change one session (a PostgreSQL database shared by a cluster): a move
decided on a state another process has since changed is refused by the store (``StaleWrite``,
nothing written). The service method then runs again from the start: it reads the session
anew and decides on the state it will change, so the move is applied once, or refused with the
reason that now holds.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from bot.core.errors import StaleWrite

ATTEMPTS = 5  # each refusal means another writer succeeded: contention, not a loop

P = ParamSpec("P")
T = TypeVar("T")


def retry_stale_writes(method: Callable[P, Awaitable[T]]) -> Callable[P, Coroutine[Any, Any, T]]:
    """Run ``method`` again (up to ATTEMPTS times in all) when its write is stale. It must read
    what it decides on after it starts (a failed write drops the cached session)."""

    @functools.wraps(method)
    async def retried(*args: P.args, **kwargs: P.kwargs) -> T:
        for _ in range(ATTEMPTS - 1):
            try:
                return await method(*args, **kwargs)
            except StaleWrite:
                continue
        return await method(*args, **kwargs)

    return retried

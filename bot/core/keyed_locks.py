"""One asyncio lock per key (a message, a channel), kept only while it is held or awaited: a
bot that shows thousands of games over days does not keep a lock for every message it ever
edited."""

from __future__ import annotations

import asyncio
from collections.abc import Hashable
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)


class KeyedLocks(Generic[K]):
    def __init__(self) -> None:
        self._locks: dict[K, tuple[asyncio.Lock, int]] = {}  # key → (lock, holders and waiters)

    def __len__(self) -> int:
        return len(self._locks)

    def hold(self, key: K) -> _Hold[K]:
        """``async with locks.hold(key):`` the key's lock, held."""
        return _Hold(self._locks, key)


class _Hold(Generic[K]):
    """Holding one key's lock. (A class, not an asynccontextmanager: a click holds its
    message's lock, and an async generator made and hooked per hold cost more than the lock.)"""

    __slots__ = ("_key", "_locks")

    def __init__(self, locks: dict[K, tuple[asyncio.Lock, int]], key: K) -> None:
        self._locks = locks
        self._key = key

    async def __aenter__(self) -> None:
        locks, key = self._locks, self._key
        lock, users = locks.get(key) or (asyncio.Lock(), 0)
        locks[key] = (lock, users + 1)
        try:
            await lock.acquire()
        except BaseException:
            self._leave()
            raise

    async def __aexit__(self, *exc: Any) -> None:
        self._locks[self._key][0].release()
        self._leave()

    def _leave(self) -> None:
        locks, key = self._locks, self._key
        lock, users = locks[key]
        if users == 1:
            del locks[key]
        else:
            locks[key] = (lock, users - 1)

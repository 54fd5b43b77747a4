"""Stamp reads on PostgreSQL: the ``(version, shown)`` asked for many sessions at once, in one query.

With several processes, the session service checks a cached session's stamp before serving it:
a click asks several times (its screens, the table sync), so these reads are most of a click's
round trips. The reads that arrive while one is on its way are sent together as the next
query: each is answered by a query sent after it was asked, so it sees every write committed
before it asked, as a read of its own would.
"""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg

Stamp = tuple[int, int] | None

STAMPS_SQL = "SELECT id, version, shown FROM sessions WHERE id = ANY($1::bigint[])"


def fail(future: asyncio.Future[Any], exc: BaseException) -> None:
    """``future`` raises ``exc`` (or is cancelled, when that is what happened)."""
    if future.done():
        return
    if isinstance(exc, asyncio.CancelledError):
        future.cancel()
    else:
        future.set_exception(exc)


class StampReads:
    def __init__(self, pool: asyncpg.Pool, readers: int = 2) -> None:
        self._pool = pool
        self._readers = readers  # queries in flight at most (each on its own connection)
        self._busy = 0
        self._waiting: dict[int, list[asyncio.Future[Stamp]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def read(self, session_id: int) -> Stamp:
        future: asyncio.Future[Stamp] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(session_id, []).append(future)
        if self._busy < self._readers:
            self._busy += 1
            task = asyncio.create_task(self._drain())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return await future

    async def _drain(self) -> None:
        try:
            while self._waiting:
                batch: dict[int, list[asyncio.Future[Stamp]]] = {}
                try:
                    async with self._pool.acquire() as conn:
                        batch, self._waiting = self._waiting, {}
                        rows = await conn.fetch(STAMPS_SQL, list(batch))
                except BaseException as exc:
                    # No connection (the pool is closing, the server is gone): those waiting
                    # fail too, none is left waiting for an answer that never comes.
                    if not batch:
                        batch, self._waiting = self._waiting, {}
                    for futures in batch.values():
                        for future in futures:
                            fail(future, exc)
                    if not isinstance(exc, Exception):
                        raise
                    continue
                found = {int(r["id"]): (int(r["version"]), int(r["shown"])) for r in rows}
                for session_id, futures in batch.items():
                    for future in futures:
                        if not future.done():
                            future.set_result(found.get(session_id))
        finally:
            self._busy -= 1

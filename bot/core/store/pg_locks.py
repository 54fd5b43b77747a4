"""The right to present a session, on PostgreSQL: a session-level advisory lock per session,
held on one connection of this process's own (PostgreSQL releases it if the process dies).

A click takes and gives back its session's presentation several times (its answer, the table
sync), so the lock's trips were most of a click's: here a process's holders of one session
share one lock (PostgreSQL's are counted per connection anyway, so a second holder in the same
process always got it), taken when the first comes and given back when the last goes, and the
takes and gives waiting together go to the server as one statement, in the order asked.
"""

from __future__ import annotations

import asyncio

import asyncpg

# Advisory lock keys: this namespace in the high 32 bits, the session id in the low ones.
PRESENT_LOCKS = 0x63616665 << 32  # "cafe"

# $1 the namespace, $2 take (true) or give back (false), $3 the session, $4 this process.
# The CASE runs row by row in the arrays' order; `o` is run once (its functions are volatile).
LOCKS_SQL = """
WITH o AS (
    SELECT o.ord, o.take, o.sid, CASE WHEN o.take THEN pg_try_advisory_lock($1 + o.sid)
        ELSE pg_advisory_unlock($1 + o.sid) END AS got
    FROM unnest($2::boolean[], $3::bigint[]) WITH ORDINALITY AS o(take, sid, ord)
), u AS (
    UPDATE sessions SET presenter = $4 WHERE id IN (SELECT sid FROM o WHERE take AND got)
    AND presenter IS DISTINCT FROM $4 RETURNING id
)
SELECT o.ord, o.got, o.sid IN (SELECT id FROM u) AS taken_over FROM o ORDER BY o.ord
"""

Taken = tuple[bool, bool]  # (held, taken over)


class _Taking:
    """A take on its way, shared by the holders that asked for it meanwhile."""

    def __init__(self, future: asyncio.Future[Taken]) -> None:
        self.future = future
        self.holders = 0


class PresentationLocks:
    def __init__(self, conn: asyncpg.Connection, url: str, process_id: str) -> None:
        self._conn = conn
        self._url = url
        self._process_id = process_id
        # Sessions whose lock this process holds, and how many holders it has here. Counted
        # when the server's answer is read (not when each holder wakes up), so a take and a
        # give are never sent for a lock this process already holds or no longer does.
        self._holders: dict[int, int] = {}
        self._taking: dict[int, _Taking] = {}
        self._queue: list[tuple[bool, int, asyncio.Future[Taken]]] = []
        self._sender: asyncio.Task[None] | None = None

    async def acquire(self, session_id: int) -> Taken:
        if session_id in self._holders:
            self._holders[session_id] += 1
            return True, False  # already this process's: it is the presenter
        taking = self._taking.get(session_id)
        if taking is None:
            taking = self._taking[session_id] = _Taking(self._send(True, session_id))
        taking.holders += 1
        try:
            return await asyncio.shield(taking.future)
        except asyncio.CancelledError:  # counted as a holder if the take succeeds: give it back
            taking.future.add_done_callback(lambda done: self._give_back(session_id, done))
            raise

    def _give_back(self, session_id: int, done: asyncio.Future[Taken]) -> None:
        if not done.cancelled() and done.exception() is None and done.result()[0]:
            task = asyncio.ensure_future(self.release(session_id))
            task.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def release(self, session_id: int) -> None:
        count = self._holders.get(session_id, 0)
        if count > 1:
            self._holders[session_id] = count - 1
            return
        if count == 0:
            return  # not held (its connection was lost meanwhile: the server let it go)
        del self._holders[session_id]
        await self._send(False, session_id)

    def _send(self, take: bool, session_id: int) -> asyncio.Future[Taken]:
        future: asyncio.Future[Taken] = asyncio.get_running_loop().create_future()
        self._queue.append((take, session_id, future))
        if self._sender is None or self._sender.done():
            self._sender = asyncio.create_task(self._drain())
        return future

    async def _drain(self) -> None:
        while self._queue:
            batch, self._queue = self._queue, []
            try:
                if self._conn.is_closed():  # e.g. the server restarted: its locks went with it
                    self._holders.clear()
                    self._conn = await asyncpg.connect(self._url)
                rows = await self._conn.fetch(
                    LOCKS_SQL,
                    PRESENT_LOCKS,
                    [take for take, _, _ in batch],
                    [sid for _, sid, _ in batch],
                    self._process_id,
                )
            except BaseException as exc:
                for take, session_id, future in batch:
                    if take:
                        self._taking.pop(session_id, None)
                    if not future.done():
                        future.set_exception(exc)
                if not isinstance(exc, Exception):
                    raise
                continue
            for (take, session_id, future), row in zip(batch, rows, strict=True):
                got = bool(row["got"])
                if take:
                    taking = self._taking.pop(session_id, None)
                    if got and taking is not None:
                        self._holders[session_id] = taking.holders
                if not future.done():
                    future.set_result((got, bool(row["taken_over"])))

    async def close(self) -> None:
        await self._conn.close()

"""Moves on PostgreSQL: many sessions' moves in one statement, one round trip, one commit.

A move (``MoveWrite``: the version check, the state, its log entries, its posts, its timers,
the undo request it settles) is a few statements; sent one by one each is a round trip, and one
transaction per move is a commit each. Here the moves that arrive while a batch is being written
wait together and go as the next batch: one statement of data-modifying CTEs over arrays (one
per column), run outside a transaction, so PostgreSQL commits it on its own (durable, with
``synchronous_commit``) before answering. Its guarded UPDATE returns the sessions whose version
matched; every other part of the statement joins on those, so a stale move writes nothing and
alone fails (:class:`StaleWrite`), and any error fails the whole statement, so every move of the
batch fails and none is applied.

A batch holds at most one move per session (the parts read the session's log as it was before
the statement), and a session's move waits while a batch with one of its moves is on its way:
its version is checked against the one that batch writes.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import asyncpg

from bot.core.errors import StaleWrite
from bot.core.store.pg_stamps import fail
from bot.core.store.rows import MoveWrite

# $1 the time; then the moves', the actions', the posts' and the timers' columns.
MOVES_SQL = """
WITH m AS (
    SELECT * FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[],
        $7::bigint[], $8::boolean[], $9::boolean[])
    AS m(session_id, version, state, status, outcome, announced, settle_undo, new_timers)
), upd AS (
    UPDATE sessions s SET state = m.state, status = m.status, outcome = m.outcome,
        announced = COALESCE(m.announced, s.announced), version = s.version + 1, updated_at = $1
    FROM m WHERE s.id = m.session_id AND s.version = m.version
    RETURNING s.id, m.settle_undo, m.new_timers
), acts AS (
    INSERT INTO actions (session_id, seq, player, action, source, created_at, undoes)
    SELECT a.session_id,
        COALESCE((SELECT MAX(x.seq) FROM actions x WHERE x.session_id = a.session_id), 0) + a.n,
        a.player, a.action, a.source, $1, a.undoes
    FROM unnest($10::bigint[], $11::bigint[], $12::text[], $13::text[], $14::text[],
        $15::bigint[]) AS a(session_id, n, player, action, source, undoes)
    WHERE a.session_id IN (SELECT id FROM upd)
), posted AS (
    INSERT INTO outbox (session_id, target, payload, created_at, next_attempt_at)
    SELECT p.session_id, p.target, p.payload, $1, $1 + p.hold
    FROM unnest($16::bigint[], $17::text[], $18::text[], $19::float8[])
        WITH ORDINALITY AS p(session_id, target, payload, hold, ord)
    WHERE p.session_id IN (SELECT id FROM upd) ORDER BY p.ord
), undone AS (
    DELETE FROM undo_requests WHERE session_id IN (SELECT id FROM upd WHERE settle_undo)
), t AS (
    SELECT * FROM unnest($20::bigint[], $21::text[], $22::text[], $23::float8[])
        AS t(session_id, kind, key, due_at)
    WHERE t.session_id IN (SELECT id FROM upd WHERE new_timers)
), gone AS (
    -- The parts of one statement run in no set order: the timers kept by kind are
    -- overwritten below rather than deleted and inserted again.
    DELETE FROM timers d WHERE d.session_id IN (SELECT id FROM upd WHERE new_timers)
    AND NOT EXISTS (SELECT 1 FROM t WHERE t.session_id = d.session_id AND t.kind = d.kind)
), timed AS (
    INSERT INTO timers (session_id, kind, key, due_at) SELECT session_id, kind, key, due_at FROM t
    ON CONFLICT (session_id, kind) DO UPDATE SET key = excluded.key, due_at = excluded.due_at,
        claimed_until = NULL
)
SELECT id FROM upd
"""


def moves_args(moves: list[MoveWrite], now: float) -> list[Any]:
    """The statement's parameters: one array per column."""
    cols: list[list[Any]] = [[] for _ in range(22)]
    m, a, p, t = cols[0:8], cols[8:14], cols[14:18], cols[18:22]
    for move in moves:
        sid = move.session_id
        row: tuple[Any, ...] = (
            sid,
            move.version,
            move.state,
            move.status,
            move.outcome,
            move.announced,
            move.settle_undo,
            move.timers is not None,
        )
        for col, value in zip(m, row, strict=True):
            col.append(value)
        for n, act in enumerate(move.actions, start=1):
            values: tuple[Any, ...] = (
                sid,
                n,
                act.player,
                act.action,
                act.source,
                act.undoes,
            )
            for col, value in zip(a, values, strict=True):
                col.append(value)
        for post in move.posts:
            hold = float(post.payload.get("hold", 0.0))  # waits for later posts to join it
            for col, value in zip(
                p, (sid, post.target, json.dumps(post.payload), hold), strict=True
            ):
                col.append(value)
        for timer in move.timers or []:
            for col, value in zip(t, (sid, timer.kind, timer.key, timer.due_at), strict=True):
                col.append(value)
    return [now, *cols]


Waiting = tuple[MoveWrite, "asyncio.Future[None]", float]  # the move, its caller, when it came


class MoveBatches:
    """Moves waiting to be written, and the writers that write them a batch at a time."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        on_error: Callable[[BaseException], BaseException],
        on_commit: Callable[[], None],
        writers: int = 2,
    ) -> None:
        self._pool = pool
        self._on_error = on_error  # what each move of a failed batch raises (e.g. StorageFull)
        self._on_commit = on_commit
        # Up to this many batches in flight (each on its own connection): while one waits for
        # its commit, the next is already sent.
        self._writers = writers
        self._busy = 0
        self._waiting: list[Waiting] = []
        self._in_flight: set[int] = set()  # sessions of the batches being written
        self._tasks: set[asyncio.Task[None]] = set()
        self.batches = 0  # statements sent (each is one commit)
        self.moves = 0  # moves they carried
        # When a list (bench/store.py): each written move's (seconds it waited for its batch to
        # go, seconds its statement took: the round trip and the commit).
        self.timings: list[tuple[float, float]] | None = None

    async def write(self, move: MoveWrite) -> None:
        """Returns once ``move`` is committed; raises StaleWrite if its version is not the
        stored one (nothing written), or what failed its batch (nothing of it written)."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((move, future, time.perf_counter()))
        if self._busy < self._writers:
            self._busy += 1
            task = asyncio.create_task(self._drain())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        await future

    def _next_batch(self) -> list[Waiting]:
        """The waiting moves, at most one per session and none of a session in flight (the
        others stay, in order)."""
        batch: list[Waiting] = []
        rest: list[Waiting] = []
        seen: set[int] = set()
        for item in self._waiting:
            sid = item[0].session_id
            if item[1].done():  # its caller is gone (cancelled): not written
                continue
            if sid in seen or sid in self._in_flight:
                rest.append(item)
                continue
            seen.add(sid)
            batch.append(item)
        self._waiting = rest
        return batch

    async def _drain(self) -> None:
        try:
            while self._waiting:
                try:
                    async with self._pool.acquire() as conn:
                        batch = self._next_batch()  # taken once a connection is ready: bigger
                        if not batch:  # what waits is another writer's, once its batch is in
                            return
                        await self._send(conn, batch)
                except BaseException as exc:
                    # No connection (the pool is closing, the server is gone): the moves still
                    # waiting fail (none was sent), none waits for an answer that never comes.
                    waiting, self._waiting = self._waiting, []
                    error = self._on_error(exc)
                    for _, future, _ in waiting:
                        fail(future, error)
                    if not isinstance(exc, Exception):
                        raise
        finally:
            self._busy -= 1

    async def _send(self, conn: Any, batch: list[Waiting]) -> None:
        sessions = {move.session_id for move, _, _ in batch}
        self._in_flight |= sessions
        sent = time.perf_counter()
        try:
            rows = await conn.fetch(MOVES_SQL, *moves_args([m for m, _, _ in batch], time.time()))
        except BaseException as exc:
            error = self._on_error(exc)
            for _, future, _ in batch:
                fail(future, error)
            if not isinstance(exc, Exception):  # cancelled: the writer stops too
                raise
            return
        finally:
            self._in_flight -= sessions
        self._on_commit()
        self.batches += 1
        self.moves += len(batch)
        if self.timings is not None:
            took = time.perf_counter() - sent
            self.timings += [(sent - came, took) for _, _, came in batch]
        written = {int(r["id"]) for r in rows}
        # The callers are told in two halves, a turn of the event loop apart: the first half's
        # next moves gather and go as the next batch (this writer's next round) while the
        # second half's callers are still at work, so the server writes while this process
        # decides, rather than each waiting for the other.
        half = (len(batch) + 1) // 2
        _tell(batch[:half], written)
        try:
            await asyncio.sleep(0)
        finally:  # even cancelled meanwhile: they are written, their callers must hear it
            _tell(batch[half:], written)


def _tell(batch: list[Waiting], written: set[int]) -> None:
    """Each caller hears whether its move was written (or found stale)."""
    for move, future, _ in batch:
        if future.done():
            continue
        if move.session_id in written:
            future.set_result(None)
        else:
            future.set_exception(StaleWrite())

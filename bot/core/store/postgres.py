"""The PostgreSQL backend: one database shared by several bot processes (asyncpg, a pool).

What one process may assume of SQLite, several must claim here:
- a cached session is checked against the stored (version, shown) before it is served (the
  session service asks ``session_stamp``);
- due timers are claimed for a lease with ``FOR UPDATE SKIP LOCKED``, so each fires once;
- a session's unsent posts are claimed, in order, by one process at a time;
- the right to edit a session's messages is a session-level advisory lock, held on a
  connection of its own (PostgreSQL releases it if the process dies).

Each round trip costs the bot CPU (asyncpg, the event loop), so a click's are few: the moves
that arrive together are one statement and one commit (``pg_moves``), the stamps asked together
one query (``pg_stamps``), a process's holders of a session's presentation share its lock
(``pg_locks``), a write of one statement runs without BEGIN and COMMIT around it, and a pooled
connection is not reset on every use.
"""

from __future__ import annotations

import functools
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar
from urllib.parse import urlsplit

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from bot.core.store.base import Store
from bot.core.store.core import Record, Tx
from bot.core.store.pg_locks import PRESENT_LOCKS, PresentationLocks
from bot.core.store.pg_moves import MoveBatches
from bot.core.store.pg_stamps import StampReads
from bot.core.store.rows import DatabaseUnreachable, MoveWrite, PostRow, TimerRow, row_of

T = TypeVar("T")

SCHEMA_LOCK = PRESENT_LOCKS - 1  # an advisory lock key, beside the presentation locks


@functools.lru_cache(maxsize=512)
def to_dollar(sql: str) -> str:
    """``?`` parameters as PostgreSQL's ``$1, $2…`` (no statement here has a ``?`` in a
    string literal)."""
    counter = iter(range(1, 10_000))
    return re.sub(r"\?", lambda _: f"${next(counter)}", sql)


def _changed(status: str) -> int:
    """Rows changed, from a command status such as ``UPDATE 1`` or ``INSERT 0 3``."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


def redacted(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return parts._replace(netloc=netloc).geturl()


async def _kept(conn: asyncpg.Connection) -> None:
    """A connection given back to the pool is kept as it is: by default asyncpg resets it (a
    round trip per use, most of a read's cost), but nothing here leaves state on a pooled
    connection (no SET, no LISTEN; the advisory locks live on their own connection). asyncpg
    still rolls back a transaction left open."""


class _PgTx:
    def __init__(self, conn: asyncpg.Connection | PoolConnectionProxy) -> None:
        self._conn = conn

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        return _changed(await self._conn.execute(to_dollar(sql), *args))

    async def fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Record]:
        return [dict(r) for r in await self._conn.fetch(to_dollar(sql), *args)]


class PostgresStore(Store):
    dialect = "postgres"
    shared = True
    _for_update = " FOR UPDATE"
    _conflicts = (asyncpg.UniqueViolationError,)
    overdue_seconds = 2.0  # see sessions_with_posts_due

    def __init__(self, pool: asyncpg.Pool, locks: asyncpg.Connection, url: str) -> None:
        super().__init__()
        self._pool = pool
        self._url = url
        # Holds this process's advisory locks (the right to present), on a connection of its own.
        self._locks = PresentationLocks(locks, url, self.process_id)
        self.moves = MoveBatches(pool, self._failed_batch, self._wrote)
        self._stamps = StampReads(pool)

    @classmethod
    async def connect(
        cls, url: str, *, pool_size: int = 10, read_only: bool = False
    ) -> PostgresStore:
        """Connect (a pool, and one connection for the advisory locks) and migrate.
        ``read_only`` (a copy's source): every transaction read-only, nothing migrated."""
        settings = {"default_transaction_read_only": "on"} if read_only else None
        try:
            pool = await asyncpg.create_pool(
                url, min_size=1, max_size=pool_size, server_settings=settings, reset=_kept
            )
            locks = await asyncpg.connect(url)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise DatabaseUnreachable(
                f"cannot connect to PostgreSQL at {redacted(url)}: {exc}. Check that the server "
                "is running and the database_url (host, port, database, user, password)."
            ) from None
        store = cls(pool, locks, url)
        try:
            if read_only:
                await store._check_schema()
            else:
                await store._migrate()
        except BaseException:
            await store.close()
            raise
        return store

    async def close(self) -> None:
        await self._locks.close()
        await self._pool.close()

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Tx]:
        try:
            async with self._pool.acquire() as conn, conn.transaction():
                yield _PgTx(conn)
        except asyncpg.DiskFullError as exc:  # the server's disk: refused, one warning
            raise self._refused_for_space(exc) from None
        self._wrote()

    async def _write(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        # PostgreSQL groups the WAL flushes of concurrent commits itself.
        async with self._transaction() as tx:
            return await work(tx)

    async def _commit_move(self, move: MoveWrite) -> None:
        if move.results:  # a game's last move rates its players: the statements one by one
            await super()._commit_move(move)
        else:  # shares one statement (one round trip, one commit) with the moves waiting
            await self.moves.write(move)

    async def session_stamp(self, session_id: int) -> tuple[int, int] | None:
        return await self._stamps.read(session_id)  # with the others asked meanwhile

    def _failed_batch(self, exc: BaseException) -> BaseException:
        if isinstance(exc, asyncpg.DiskFullError):  # the server's disk: refused, one warning
            return self._refused_for_space(exc)
        return exc

    async def _fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Record]:
        try:
            async with self._pool.acquire() as conn:
                return [dict(r) for r in await conn.fetch(to_dollar(sql), *args)]
        except asyncpg.DiskFullError as exc:  # a claim (UPDATE … RETURNING) on a full disk
            raise self._refused_for_space(exc) from None

    async def _lock_schema(self, tx: Tx) -> None:
        await tx.fetch("SELECT pg_advisory_xact_lock(?)", (SCHEMA_LOCK,))

    async def _after_load(self, tx: Tx) -> None:
        for table in ("sessions", "outbox", "seasons"):  # their ids are identity columns
            await tx.fetch(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"COALESCE(MAX(id), 0) + 1, false) FROM {table}"
            )

    # -- writes of one statement: no transaction around them (BEGIN and COMMIT would be two more
    # round trips); one statement alone is atomic, and durable once answered.
    async def _alone(self, sql: str, args: Sequence[Any] = ()) -> list[asyncpg.Record]:
        try:
            async with self._pool.acquire() as conn:
                rows: list[asyncpg.Record] = await conn.fetch(to_dollar(sql), *args)
        except asyncpg.DiskFullError as exc:
            raise self._refused_for_space(exc) from None
        self._wrote()
        return rows

    async def _run(self, sql: str, args: Iterable[Any] = ()) -> int:
        try:
            async with self._pool.acquire() as conn:
                status = await conn.execute(to_dollar(sql), *tuple(args))
        except asyncpg.DiskFullError as exc:
            raise self._refused_for_space(exc) from None
        self._wrote()
        return _changed(status)

    async def set_table_message(self, session_id: int, message_id: int | None) -> int | None:
        rows = await self._alone(
            "UPDATE sessions SET table_message_id = ?, shown = shown + 1 WHERE id = ? "
            "RETURNING shown",
            (message_id, session_id),
        )
        return int(rows[0]["shown"]) if rows else None

    async def set_dm(
        self,
        session_id: int,
        user_id: str,
        *,
        channel_id: int | None,
        message_id: int | None,
        stamp: str | None,
        digest: str | None,
    ) -> int | None:
        rows = await self._alone(
            "WITH p AS (UPDATE players SET dm_channel_id = ?, dm_message_id = ?, dm_stamp = ?, "
            "dm_digest = ? WHERE session_id = ? AND user_id = ?) "
            "UPDATE sessions SET shown = shown + 1 WHERE id = ? RETURNING shown",
            (channel_id, message_id, stamp, digest, session_id, user_id, session_id),
        )
        return int(rows[0]["shown"]) if rows else None

    # -- claims ----------------------------------------------------------------------------------
    async def claim_due_timers(self, now: float) -> tuple[list[TimerRow], float | None]:
        rows = await self._fetch(
            "UPDATE timers SET claimed_until = ? WHERE (session_id, kind) IN ("
            "SELECT session_id, kind FROM timers WHERE due_at <= ? "
            "AND (claimed_until IS NULL OR claimed_until < ?) FOR UPDATE SKIP LOCKED) "
            "RETURNING session_id, kind, key, due_at",
            (now + self.claim_seconds, now, now),
        )
        due = sorted((row_of(TimerRow, r) for r in rows), key=lambda t: (t.due_at, t.session_id))
        # The next one: a timer not due yet, or one claimed by a process whose claim ends.
        upcoming = await self._one(
            "SELECT MIN(GREATEST(due_at, COALESCE(claimed_until, due_at))) AS due FROM timers "
            "WHERE due_at > ? OR claimed_until IS NOT NULL",
            (now,),
        )
        nxt = upcoming["due"] if upcoming else None
        return due, float(nxt) if nxt is not None else None

    async def claim_posts(self, session_id: int, now: float) -> list[PostRow]:
        # Most syncs find nothing to post: a plain read first, no transaction.
        if not await self._fetch(
            "SELECT id FROM outbox WHERE session_id = ? AND sent_at IS NULL LIMIT 1", (session_id,)
        ):
            return []
        # One statement: the rows locked (FOR UPDATE, no SKIP: a process claiming at the same
        # moment waits, then sees this one's claim), and claimed unless another process's claim
        # on one of them still runs; returned as they were.
        rows = await self._alone(
            "WITH r AS (SELECT * FROM outbox WHERE session_id = ? AND sent_at IS NULL "
            "ORDER BY id FOR UPDATE), "
            "other AS (SELECT EXISTS (SELECT 1 FROM r WHERE r.claimed_by <> ? "
            "AND COALESCE(r.claimed_until, 0) >= ?) AS taken), "
            "u AS (UPDATE outbox o SET claimed_by = ?, claimed_until = ? FROM r "
            "WHERE o.id = r.id AND NOT (SELECT taken FROM other)) "
            "SELECT r.* FROM r WHERE NOT (SELECT taken FROM other) ORDER BY r.id",
            (session_id, self.process_id, now, self.process_id, now + self.claim_seconds),
        )
        return [row_of(PostRow, dict(r)) for r in rows]

    async def sessions_with_posts_due(self, now: float) -> list[int]:
        # A fresh post is posted by the process that wrote it, at once; the others take it only
        # once it is overdue (that process died, or its try failed), not to race it for it.
        rows = await self._fetch(
            "SELECT DISTINCT session_id FROM outbox WHERE sent_at IS NULL AND ("
            "(claimed_by = ? AND next_attempt_at <= ?) OR next_attempt_at <= ?) "
            "AND (claimed_until IS NULL OR claimed_until < ? OR claimed_by = ?) "
            "ORDER BY session_id",
            (self.process_id, now, now - self.overdue_seconds, now, self.process_id),
        )
        return [int(r["session_id"]) for r in rows]

    async def acquire_presentation(self, session_id: int) -> tuple[bool, bool]:
        return await self._locks.acquire(session_id)

    async def release_presentation(self, session_id: int) -> None:
        await self._locks.release(session_id)

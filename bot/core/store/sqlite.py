"""The SQLite backend, the embedded default: one file, no server, one bot process.

One aiosqlite connection in WAL mode, and a second, read-only one for long reads. Writes of different sessions that arrive together share a
transaction (group commit: one COMMIT, one fsync). The bot's process is the database's only
owner (an OS lock), so it may serve sessions from memory and fire timers without claiming them.
"""

from __future__ import annotations

import asyncio
import errno
import fcntl
import logging
import os
import sqlite3
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from types import CoroutineType
from typing import Any, TypeVar

import aiosqlite

from bot.core.errors import StaleVersion, StorageFull
from bot.core.store.base import Store
from bot.core.store.core import Record, Tx
from bot.core.store.migrations import SCHEMA_VERSION
from bot.core.store.rows import (
    DatabaseInUse,
    DatabaseMissing,
    DatabaseReadOnly,
    MoveWrite,
    NewerDatabase,
)

T = TypeVar("T")

log = logging.getLogger(__name__)

# A group commit's callers resumed in one turn of the event loop, at least (see
# SqliteStore._tell).
TELL_AT_ONCE = 8
# SQLite's auto-checkpoint copies the WAL into the database inside a COMMIT, every move waiting
# meanwhile waiting for it (35-70 ms every 1,000 pages under load). The reader's thread copies it
# instead, in the background (PASSIVE: it never blocks the writer), at most every
# CHECKPOINT_EVERY seconds while moves are written; the writer's own checkpoint, past
# WAL_BACKSTOP_PAGES, then copies only what came since (and lets the WAL start over).
CHECKPOINT_EVERY = 0.25
WAL_BACKSTOP_PAGES = 4000


class _SqliteTx:
    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        cursor = await self._conn.execute(sql, tuple(args))
        return cursor.rowcount

    async def fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Record]:
        return [dict(r) for r in await self._conn.execute_fetchall(sql, tuple(args))]


class _RawTx:
    """A transaction's statements run straight on the sqlite3 connection, in the thread that
    holds the store's lock (see ``_flush``): they never wait for another thread."""

    def __init__(self, raw: sqlite3.Connection) -> None:
        self._raw = raw

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        return self._raw.execute(sql, tuple(args)).rowcount

    async def fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Record]:
        return [dict(r) for r in self._raw.execute(sql, tuple(args)).fetchall()]

    def run(self, sql: str, args: tuple[Any, ...]) -> int:
        """``execute`` called plainly (no coroutine): for a write that knows it runs here."""
        return self._raw.execute(sql, args).rowcount


def _run_now(coro: Coroutine[Any, Any, T]) -> T:
    """Run a write to its end without an event loop: its awaits are all ``_RawTx`` calls,
    which never suspend."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coro.close()
    raise RuntimeError("a store write awaited something other than its transaction")


class SqliteStore(Store):
    dialect = "sqlite"
    _conflicts = (sqlite3.IntegrityError,)

    def __init__(self, conn: aiosqlite.Connection, owner_lock: int | None = None) -> None:
        super().__init__()
        self._conn = conn
        self._tx = _SqliteTx(conn)
        # Long reads (a big server's /game stats, history pages) go through a second,
        # read-only connection: in WAL mode they read a snapshot without holding the writer's
        # lock, so moves keep committing meanwhile.
        self._reader: aiosqlite.Connection | None = None
        self._owner_lock = owner_lock  # the open lock file that makes this process the owner
        # One connection serves every session: a transaction must not interleave with another
        # one's statements (nor may a read see another's uncommitted rows), so every use of the
        # connection takes this lock, and a transaction holds it from BEGIN to COMMIT.
        self._lock = asyncio.Lock()
        self._pending: list[tuple[Callable[[_RawTx], Any], asyncio.Future[Any]]] = []
        self._flusher: asyncio.Task[None] | None = None
        # Committed writes whose callers are yet to be told, in order (see _tell).
        self._to_tell: deque[tuple[asyncio.Future[Any], tuple[Any, BaseException | None]]] = deque()
        self._telling = False
        self.checkpoint_every = CHECKPOINT_EVERY  # see _checkpoint_soon
        self._checkpointed_at = time.monotonic()
        self._checkpoint: asyncio.Task[None] | None = None
        self.checkpoints = 0  # background checkpoints done (for tests and benchmarks)

    @classmethod
    async def open(
        cls, path: Path | str, synchronous: str = "FULL", *, owner: bool = False
    ) -> SqliteStore:
        """Open (and migrate) the database. ``owner``: this process serves the sessions from
        memory and fires their timers, so it must be the only one: a second owner is refused
        (an OS lock on ``<path>.lock``, released when the process ends, even by kill -9), and
        a database it cannot write to is refused too, before anything else starts."""
        if synchronous not in ("FULL", "NORMAL", "OFF"):
            raise ValueError(f"bad synchronous mode {synchronous!r}")
        lock = _lock_owner(Path(path)) if owner else None
        try:
            conn = await _connect(str(path))
        except sqlite3.Error as exc:
            _unlock(lock)
            raise DatabaseReadOnly(f"cannot open the database {path}: {exc}") from None
        conn.row_factory = aiosqlite.Row
        store = cls(conn, lock)
        try:
            await conn.execute("PRAGMA journal_mode=WAL")
            await conn.execute(f"PRAGMA wal_autocheckpoint={WAL_BACKSTOP_PAGES}")
            await conn.execute("PRAGMA foreign_keys=ON")
            await conn.execute("PRAGMA busy_timeout=5000")
            await conn.execute(f"PRAGMA synchronous={synchronous}")
            await store._migrate()
            store._reader = await _open_reader(path)
            if owner:
                await store.set_meta("opened_at", repr(time.time()))
        except (sqlite3.OperationalError, StorageFull) as exc:
            await store.close()
            raise DatabaseReadOnly(read_only_message(path, exc)) from None
        except BaseException:
            await store.close()
            raise
        return store

    @classmethod
    async def open_read_only(cls, path: Path | str) -> SqliteStore:
        """Open a database only to read it (``migrate-db``'s source): never created, never
        written, its file left byte for byte as it was (SQLite's ``mode=ro``). A bot running on
        it is refused like a second owner. A database of an older schema is read from a copy in
        memory, migrated there."""
        path = Path(path)
        if not path.is_file():
            raise DatabaseMissing(
                f"there is no database at {path.resolve()}: check the path (sqlite:/// and the "
                "path: four slashes for an absolute one)"
            )
        lock = _lock_owner(path, read_only=True)
        # No WAL file beside it (its last owner closed it cleanly): nothing can change it while
        # this process holds the lock, so SQLite may read it as immutable and create no -wal or
        # -shm file beside it. With a WAL left (a bot killed), that is read too.
        wal = path.with_name(path.name + "-wal").exists()
        mode = "mode=ro" if wal else "mode=ro&immutable=1"
        try:
            conn = await _connect(f"{path.resolve().as_uri()}?{mode}", uri=True)
        except sqlite3.Error as exc:
            _unlock(lock)
            raise DatabaseReadOnly(f"cannot read the database {path}: {exc}") from None
        conn.row_factory = aiosqlite.Row
        store = cls(conn, lock)
        try:
            try:
                version = await store.schema_version()
            except sqlite3.DatabaseError as exc:  # no schema_version table, or not SQLite
                raise DatabaseMissing(f"{path} is not a cafebot database ({exc})") from None
            if version > SCHEMA_VERSION:
                raise NewerDatabase(
                    f"This database has schema version {version}, newer than this cafebot "
                    f"understands ({SCHEMA_VERSION}). Upgrade cafebot instead of downgrading."
                )
            if version < SCHEMA_VERSION:
                memory = await _connect(":memory:")
                await conn.backup(memory)
                await conn.close()
                memory.row_factory = aiosqlite.Row
                store._conn, store._tx = memory, _SqliteTx(memory)
                await store._migrate()
        except BaseException:
            await store.close()
            raise
        return store

    async def close(self) -> None:
        # Each connection is a thread that keeps the process alive until it is closed: both
        # are closed, whatever the other did.
        try:
            if self._reader is not None:
                reader, self._reader = self._reader, None
                if self._checkpoint is not None:
                    await asyncio.wait({self._checkpoint})  # it ends on its own, soon
                await reader.close()
        finally:
            try:
                await self._conn.close()
            finally:
                _unlock(self._owner_lock)
                self._owner_lock = None

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Tx]:
        async with self._lock:
            try:
                await self._conn.execute("BEGIN IMMEDIATE")
                try:
                    yield self._tx
                    await self._conn.execute("COMMIT")
                except BaseException:
                    if self._conn.in_transaction:  # SQLite may have rolled it back already
                        await self._conn.execute("ROLLBACK")
                    raise
            except sqlite3.OperationalError as exc:
                if not _disk_full(exc):
                    raise
                raise self._refused_for_space(exc) from None
        self._wrote()

    async def _write(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        """Run ``work`` in a transaction shared with the writes queued meanwhile (group commit:
        one COMMIT, one fsync for all). Each caller returns only after the COMMIT. A write that
        raises must raise before it writes anything (see commit_state); it alone fails. Any
        other failure rolls the whole group back and fails every write in it."""
        future: asyncio.Future[T] = self._queue(work)
        return await future

    def _queue(self, work: Callable[[_RawTx], Any]) -> asyncio.Future[Any]:
        """Queue ``work`` for the next group: a coroutine function (a Tx's awaits) or, for a
        write that knows it runs in the group (see _commit_move), a plain function."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending.append((work, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        return future

    async def _commit_move(self, move: MoveWrite) -> None:
        if move.results:  # a game's last move rates its players: the generic path
            await super()._commit_move(move)
        else:  # its statements called straight from the group, with no coroutine each
            await self._queue(lambda tx: self._write_move_now(move, tx.run))

    async def _run(self, sql: str, args: Iterable[Any] = ()) -> int:
        params = tuple(args)
        # A plain function, called from the group: no coroutine for the statement.
        count: int = await self._queue(lambda tx: tx.run(sql, params))
        return count

    async def _flush(self) -> None:
        while self._pending:
            group, self._pending = self._pending, []
            try:
                async with self._lock:
                    # The group's statements run here, in this thread: a few µs of SQLite's
                    # work each, where a trip to the database thread cost far more (a thread
                    # woken, the GIL handed back and forth at every statement). Only the
                    # COMMIT, whose fsync waits for the disk, goes to the database thread: one
                    # trip a group. aiosqlite has no public call for this.
                    outcomes = _write_group(self._conn._conn, [work for work, _ in group])
                    await self._to_the_end(self._commit_group, len(group))
            except BaseException as exc:
                error = self._refused_for_space(exc) if _disk_full(exc) else exc
                outcomes = [(None, error)] * len(group)
            else:
                self._wrote()
                self._checkpoint_soon()
            self._tell([future for _, future in group], outcomes)

    def _commit_group(self, size: int) -> None:
        """In the database thread: the COMMIT of a group of ``size`` writes (its fsync, and
        SQLite's own checkpoint when one is due), rolled back if it fails. (The size is for
        the benches that time each commit: bench/watched_bot.py, bench/convoy.py.)"""
        raw: sqlite3.Connection = self._conn._conn
        try:
            raw.execute("COMMIT")
        except BaseException:
            _roll_back(raw)
            raise

    async def _to_the_end(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the database thread, awaited to its end even if the caller is
        cancelled meanwhile: the caller holds the lock, and the connection is in use until
        then (the next group's statements must not run beside it)."""
        trip = asyncio.ensure_future(self._conn._execute(fn, *args))  # type: ignore[no-untyped-call]
        try:
            return await asyncio.shield(trip)
        except asyncio.CancelledError:
            await asyncio.wait({trip})
            raise

    def _checkpoint_soon(self) -> None:
        """After a group commit: copy the WAL into the database in the reader's thread, unless
        a copy is under way or began less than ``checkpoint_every`` seconds ago."""
        if self._reader is None or (self._checkpoint is not None and not self._checkpoint.done()):
            return
        now = time.monotonic()
        if now - self._checkpointed_at < self.checkpoint_every:
            return
        self._checkpointed_at = now
        self._checkpoint = asyncio.create_task(self._checkpoint_wal(self._reader))

    async def _checkpoint_wal(self, reader: aiosqlite.Connection) -> None:
        try:
            await reader.execute_fetchall("PRAGMA wal_checkpoint(PASSIVE)")
        except (sqlite3.Error, ValueError) as exc:  # a full disk, a closing connection
            log.debug("background checkpoint: %s (the writer's own one will copy it)", exc)
        else:
            self.checkpoints += 1

    def _tell(
        self, futures: list[asyncio.Future[Any]], outcomes: list[tuple[Any, BaseException | None]]
    ) -> None:
        """Resume a group's callers a few at a time, a turn of the event loop apart, in the
        order they wrote (the next group commits meanwhile). Each caller goes on to answer its
        click: a group of fifty told at once drew fifty answers in one turn, ~50 ms in which
        the loop read no new click and sent no request; a few at a time, it reads between them.
        One queue for every group: groups committed while one is being told wait their turn."""
        self._to_tell.extend(zip(futures, outcomes, strict=True))
        if not self._telling:
            self._telling = True
            self._tell_some()

    def _tell_some(self) -> None:
        queue = self._to_tell
        # A quarter of the queue at least: a long queue is told in a few turns, not held back.
        for _ in range(min(len(queue), max(TELL_AT_ONCE, len(queue) // 4))):
            future, (result, error) = queue.popleft()
            if future.done():
                continue
            if error is None:
                future.set_result(result)
            else:
                future.set_exception(error)
        if queue:  # after the callers just told have run
            asyncio.get_running_loop().call_soon(self._tell_some)
        else:
            self._telling = False

    async def _fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Record]:
        # Here, in this thread, as a group's statements are (see _flush): an indexed read is a
        # few µs of SQLite's work, its trip to the database thread several times that. A
        # long read goes through the reader (_read).
        async with self._lock:
            return [dict(r) for r in self._conn._conn.execute(sql, tuple(args)).fetchall()]

    async def _read(self, sql: str, args: Sequence[Any] = ()) -> list[Record]:
        if self._reader is None:
            return await self._fetch(sql, args)
        return [dict(r) for r in await self._reader.execute_fetchall(sql, tuple(args))]


def _write_group(
    raw: sqlite3.Connection, works: list[Callable[[_RawTx], Any]]
) -> list[tuple[Any, BaseException | None]]:
    """Open the group's transaction and run its writes, uncommitted: a write that raises
    StaleVersion (before writing anything) alone fails; any other error rolls the group back
    and fails them all."""
    tx = _RawTx(raw)
    raw.execute("BEGIN IMMEDIATE")
    try:
        outcomes: list[tuple[Any, BaseException | None]] = []
        for work in works:
            try:
                done = work(tx)
                if type(done) is CoroutineType:  # (a plain function's work is done already)
                    done = _run_now(done)
                outcomes.append((done, None))
            except StaleVersion as exc:
                outcomes.append((None, exc))
    except BaseException:
        _roll_back(raw)
        raise
    return outcomes


def _roll_back(raw: sqlite3.Connection) -> None:
    if raw.in_transaction:  # SQLite may have rolled it back already
        raw.execute("ROLLBACK")


async def _connect(database: str, *, uri: bool = False) -> aiosqlite.Connection:
    """The store's connection: its own thread (aiosqlite's) runs the COMMITs and rare
    transactions, the event loop's thread runs group commits' statements and short reads,
    never both at once (the store's lock)."""
    return await aiosqlite.connect(database, uri=uri, isolation_level=None, check_same_thread=False)


async def _open_reader(path: Path | str) -> aiosqlite.Connection:
    reader = await aiosqlite.connect(str(path), isolation_level=None)
    reader.row_factory = aiosqlite.Row
    await reader.execute("PRAGMA query_only=ON")
    await reader.execute("PRAGMA busy_timeout=5000")
    return reader


def _disk_full(exc: BaseException) -> bool:
    """SQLite's "database or disk is full" (SQLITE_FULL: the disk, or max_page_count), or the
    OS's ENOSPC itself."""
    if isinstance(exc, sqlite3.Error):
        return getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
    return isinstance(exc, OSError) and exc.errno == errno.ENOSPC


def _lock_owner(path: Path, *, read_only: bool = False) -> int | None:
    """Hold ``<path>.lock`` (an OS lock): none but this process may own the database now.
    ``read_only``: a reader that finds no lock file and may not create one goes on without
    (no bot can be running there: a bot would have created it)."""
    lock_path = path.with_name(path.name + ".lock")
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        # A file or folder this process may not write (0444, another user's, a read-only
        # mount): a lock held on a read-only descriptor still excludes the others.
        try:
            fd = os.open(lock_path, os.O_RDONLY)
        except OSError:
            if read_only:
                return None
            raise DatabaseReadOnly(read_only_message(path, exc)) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise DatabaseInUse(
            f"another cafebot process is already running on {path}. Run one process per "
            "SQLite database (stop the other one first); several processes need PostgreSQL."
        ) from None
    return fd


def _unlock(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)  # closing the descriptor releases the lock


def read_only_message(path: Path | str, exc: BaseException) -> str:
    """What to say of a database this process cannot write: read-only (the file, its folder or
    the disk), or something else SQLite said (e.g. a full disk)."""
    path = Path(path)
    if _read_only(path):
        return (
            f"this database is read-only: cafebot cannot write to its database {path} (the file "
            "or its folder is not writable by this process's user, or the disk is mounted "
            "read-only): check their owner and permissions"
        )
    return (
        f"cafebot cannot write to its database {path} ({exc}): check the file's and its "
        "folder's permissions and free disk space."
    )


def _read_only(path: Path) -> bool:
    folder = path.parent if str(path.parent) else Path(".")
    if path.exists() and not os.access(path, os.W_OK):
        return True
    if not os.access(folder, os.W_OK):
        return True
    if not path.exists():
        return False
    try:  # root passes os.access: try it (an immutable file, a read-only mount)
        with open(path, "ab"):
            pass
    except OSError:
        return True
    return False

"""The store's base: what a backend provides (a read, a transaction, a write that may be
committed together with others, its dialect) and the few steps every part of the store
builds on (one row read, one statement written, the guarded version bump, posts put in the
outbox, a full disk's episode).
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import socket
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, ClassVar, Protocol, TypeVar

from bot.core.errors import StaleWrite, StorageFull
from bot.core.store.rows import NewPost

T = TypeVar("T")
Record = dict[str, Any]
log = logging.getLogger(__name__)

# The guarded version bump's statement, by the columns it sets with it (see StoreCore._bump).
_BUMPS: dict[tuple[str, ...], str] = {}


class Tx(Protocol):
    """One open transaction of a backend."""

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        """Run a statement; returns the number of rows it changed."""
        ...

    async def fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Record]: ...


class StoreCore(ABC):
    """The primitives of a backend, and what the parts of :class:`Store` share."""

    dialect: ClassVar[str]

    # Several processes use this database at once: cached sessions must be checked, and timers,
    # posts and table edits claimed (see the overrides of the PostgreSQL backend).
    shared: ClassVar[bool] = False

    # How long a claimed timer or post stays with the process that claimed it: one that dies
    # holding a claim delays that timer or post by at most this.
    claim_seconds: ClassVar[float] = 15.0

    _for_update: ClassVar[str] = ""  # locks the rows a read-then-write transaction reads

    # What the backend raises when an INSERT breaks a UNIQUE index (e.g. a second open lobby
    # in a channel, a second undo request of a session).
    _conflicts: ClassVar[tuple[type[BaseException], ...]] = ()

    def __init__(self) -> None:
        # Names this process in the claims it holds (unique even when a process id is reused).
        self.process_id = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        # Sessions whose outbox holds nothing unsent, as this process last read it: the table
        # sync asks after every move, and mostly there is nothing. Only a store with one
        # writer may trust it (every insert goes through _insert_posts, under the same lock
        # as the read; an insert forgets the session first, even if it then rolls back).
        self._outbox_empty: set[int] = set()
        self._full = False  # in a disk-full episode: its warning is logged, not the next ones

    # -- a full disk -----------------------------------------------------------------------------
    def _refused_for_space(self, exc: BaseException) -> StorageFull:
        """A write refused because the disk is full: one warning per episode (a later write
        that succeeds ends it), no traceback; the caller raises what this returns."""
        if not self._full:
            self._full = True
            log.warning(
                "the database's disk is full (%s): writes are refused, nothing is lost; moves "
                "go on once there is room",
                exc,
            )
        return StorageFull(str(exc))

    def _wrote(self) -> None:
        """A write was committed: a disk-full episode is over."""
        if self._full:
            self._full = False
            log.info("the database can be written again: the disk-full episode is over")

    # -- what a backend provides -----------------------------------------------------------------
    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def _fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Record]:
        """A read outside any transaction."""

    async def _read(self, sql: str, args: Sequence[Any] = ()) -> list[Record]:
        """A long read (a big server's /game stats, history pages): what was committed when it
        began, without holding up writes (SQLite: a read-only connection of its own)."""
        return await self._fetch(sql, args)

    @abstractmethod
    def _transaction(self) -> AbstractAsyncContextManager[Tx]:
        """A transaction of its own, committed on leaving the block (rolled back on an error)."""

    @abstractmethod
    async def _write(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        """Run ``work`` in a transaction and return its result once committed. A backend may
        commit it together with other writes; ``work`` that raises must raise before it writes
        anything (the guarded UPDATE comes first), and then it alone fails."""

    async def _lock_schema(self, tx: Tx) -> None:
        """Keep other processes from migrating at the same time (within ``tx``)."""
        return None  # SQLite: BEGIN IMMEDIATE already does

    async def _after_load(self, tx: Tx) -> None:
        """After rows were inserted with their ids: new rows must get ids after them."""
        return None  # SQLite: a rowid is always past the largest

    # -- steps the parts share -------------------------------------------------------------------
    async def _one(self, sql: str, args: Sequence[Any] = ()) -> Record | None:
        rows = await self._fetch(sql, args)
        return rows[0] if rows else None

    async def _run(self, sql: str, args: Iterable[Any] = ()) -> int:
        """One statement, committed with whatever else is being written."""
        params = tuple(args)

        async def work(tx: Tx) -> int:
            return await tx.execute(sql, params)

        return await self._write(work)

    async def _bump(self, tx: Tx, session_id: int, version: int, **cols: Any) -> None:
        bumped(await tx.execute(*bump_statement(session_id, version, cols)))

    async def _insert_posts(self, tx: Tx, session_id: int, posts: list[NewPost]) -> None:
        for sql, args in self._post_statements(session_id, posts):
            await tx.execute(sql, args)

    def _post_statements(self, session_id: int, posts: list[NewPost]) -> list[Statement]:
        """The INSERTs that put ``posts`` in the outbox (the session's outbox is then not
        known to be empty, even if the transaction rolls back)."""
        if not posts:
            return []
        self._outbox_empty.discard(session_id)
        now = time.time()
        return [
            (
                "INSERT INTO outbox (session_id, target, payload, created_at, next_attempt_at) "
                "VALUES (?, ?, ?, ?, ?)",
                # "hold": the post waits for later posts to join it
                (session_id, post.target, json.dumps(post.payload), now, now + hold),
            )
            for post in posts
            for hold in [float(post.payload.get("hold", 0.0))]
        ]


Statement = tuple[str, tuple[Any, ...]]


def bumped(count: int) -> None:
    """After a ``bump_statement`` ran: it changed ``count`` rows, one unless the write is
    stale (the stored version was another)."""
    if count != 1:
        raise StaleWrite()


def bump_statement(session_id: int, version: int, cols: dict[str, Any]) -> Statement:
    """The guarded version bump that sets ``cols``: it changes one row, or none when the stored
    version is not ``version`` (then the write is stale)."""
    names = tuple(cols)
    sql = _BUMPS.get(names)
    if sql is None:  # a handful of sets of columns, all named in the code: kept
        sets = "".join(f"{name} = ?, " for name in names)
        sql = _BUMPS[names] = (
            f"UPDATE sessions SET {sets}version = version + 1, updated_at = ? "
            "WHERE id = ? AND version = ?"
        )
    return sql, (*cols.values(), time.time(), session_id, version)

"""SQLite storage for sessions, seats, the append-only action log and timers.

One aiosqlite connection in WAL mode. Every write that changes a session's state is one
transaction guarded by ``version`` (``UPDATE … WHERE version = ?``), so a stale writer is refused
instead of overwriting a newer state. Schema changes are numbered migrations; a database written
by newer code is refused rather than damaged.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import aiosqlite

from bot.core.errors import NotAllowed, StaleVersion

MIGRATIONS: list[str] = [
    # 1: the first schema
    """
    CREATE TABLE sessions (
        id INTEGER PRIMARY KEY,
        guild_id INTEGER,
        channel_id INTEGER NOT NULL,
        game_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('lobby', 'active', 'finished', 'abandoned')),
        host_id TEXT NOT NULL,
        options TEXT NOT NULL,
        seed INTEGER NOT NULL,
        state TEXT,
        version INTEGER NOT NULL DEFAULT 0,
        outcome TEXT,
        table_message_id INTEGER,
        announced INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE UNIQUE INDEX sessions_one_open_per_channel
        ON sessions(channel_id) WHERE status IN ('lobby', 'active');
    CREATE INDEX sessions_guild ON sessions(guild_id, status);
    CREATE TABLE players (
        session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        name TEXT NOT NULL,
        dm_channel_id INTEGER,
        dm_message_id INTEGER,
        dm_stamp TEXT,
        dm_digest TEXT,
        PRIMARY KEY (session_id, user_id),
        UNIQUE (session_id, seat)
    );
    CREATE TABLE actions (
        session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        player TEXT NOT NULL,
        action TEXT NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('player', 'timeout')),
        created_at REAL NOT NULL,
        PRIMARY KEY (session_id, seq)
    );
    CREATE TABLE timers (
        session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('deadline', 'reminder')),
        key TEXT NOT NULL,
        due_at REAL NOT NULL,
        PRIMARY KEY (session_id, kind)
    );
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    # 2: the outbox. What a change must post (announcements, notices, reminders) is written in
    # the change's own transaction and marked sent once Discord has answered. `announced` now
    # counts the announcements already put in the outbox. `note` says why a session was closed
    # out of the ordinary (e.g. abandoned while damaged).
    """
    CREATE TABLE outbox (
        id INTEGER PRIMARY KEY,
        session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        target TEXT NOT NULL,
        payload TEXT NOT NULL,
        created_at REAL NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at REAL NOT NULL,
        sent_at REAL,
        message_id INTEGER,
        failure TEXT
    );
    CREATE INDEX outbox_unsent ON outbox(next_attempt_at) WHERE sent_at IS NULL;
    ALTER TABLE sessions ADD COLUMN note TEXT;
    CREATE INDEX sessions_table_message ON sessions(table_message_id);
    """,
    # 3: rematches. A lobby opened by a finished game's Rematch button names that game; one
    # rematch per game (a second press finds the first).
    """
    ALTER TABLE sessions ADD COLUMN rematch_of INTEGER REFERENCES sessions(id);
    CREATE UNIQUE INDEX sessions_rematch ON sessions(rematch_of) WHERE rematch_of IS NOT NULL;
    """,
    # 4: a player's games across servers (/game mine) are found by user, newest last.
    """
    CREATE INDEX players_user ON players(user_id, session_id);
    """,
    # 5: /game history pages through a server's ended games, newest first; an undo is an
    # entry of the action log naming the move it takes back (the log stays append-only).
    """
    CREATE INDEX sessions_guild_ended ON sessions(guild_id, updated_at);
    ALTER TABLE actions ADD COLUMN undoes INTEGER;
    """,
    # 6: results, one row per player of a finished game, written with the move that ends it
    # (and backfilled from the stored outcomes): /game stats aggregates them in SQL. The
    # indexes cover the aggregates (a server's board, by game or not; one player's record).
    """
    CREATE TABLE results (
        session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL,
        guild_id INTEGER,
        game_id TEXT NOT NULL,
        score INTEGER NOT NULL,
        won INTEGER NOT NULL CHECK (won IN (0, 1)),
        cooperative INTEGER NOT NULL CHECK (cooperative IN (0, 1)),
        finished_at REAL NOT NULL,
        PRIMARY KEY (session_id, user_id)
    );
    CREATE INDEX results_board
        ON results(guild_id, game_id, user_id, won, score, cooperative);
    CREATE INDEX results_player
        ON results(guild_id, user_id, game_id, won, score, cooperative);
    CREATE INDEX sessions_guild_game ON sessions(guild_id, status, game_id);
    """,
    # 7: undo by consent. A player's request to take back their last move waits here for the
    # others' answers (one request per session); by ``due_at`` without an objection, it is
    # granted. The undo itself is an entry of the action log (``actions.undoes``).
    """
    CREATE TABLE undo_requests (
        session_id INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        player TEXT NOT NULL,
        agreed TEXT NOT NULL DEFAULT '',
        asked_at REAL NOT NULL,
        due_at REAL NOT NULL
    );
    CREATE INDEX undo_requests_due ON undo_requests(due_at);
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)


class StorageUnusable(Exception):
    """The database cannot be used as it is; ``str()`` is one line saying why and what to do."""


class NewerDatabase(StorageUnusable):
    pass


class DatabaseInUse(StorageUnusable):
    pass


class DatabaseReadOnly(StorageUnusable):
    pass


class SessionStatus(StrEnum):
    LOBBY = "lobby"
    ACTIVE = "active"
    FINISHED = "finished"
    ABANDONED = "abandoned"

    @property
    def is_open(self) -> bool:
        """Still going (a lobby or a game in play): the channel is taken."""
        return self in (SessionStatus.LOBBY, SessionStatus.ACTIVE)


@dataclass
class SessionRow:
    id: int
    guild_id: int | None
    channel_id: int
    game_id: str
    status: SessionStatus
    host_id: str
    options: str
    seed: int
    state: str | None
    version: int
    outcome: str | None
    table_message_id: int | None
    announced: int  # announcements of the state already put in the outbox
    created_at: float
    updated_at: float
    note: str | None = None
    rematch_of: int | None = None  # the finished game whose Rematch button opened this lobby


@dataclass
class PlayerRow:
    session_id: int
    user_id: str
    seat: int
    name: str
    dm_channel_id: int | None
    dm_message_id: int | None
    dm_stamp: str | None
    dm_digest: str | None


@dataclass
class ActionRow:
    session_id: int
    seq: int
    player: str
    action: str
    source: str
    created_at: float
    undoes: int | None = None  # an undo: the seq of the move it takes back


@dataclass
class TimerRow:
    session_id: int
    kind: str
    key: str
    due_at: float


@dataclass
class UndoRequestRow:
    session_id: int
    seq: int  # the move to take back
    player: str  # who asked (it is their move)
    agreed: str  # the players who agreed so far, comma-separated
    asked_at: float
    due_at: float  # granted then, unless someone objected

    @property
    def agreed_by(self) -> list[str]:
        return [p for p in self.agreed.split(",") if p]


@dataclass
class NewAction:
    player: str
    action: dict[str, Any]
    source: str = "player"
    undoes: int | None = None


@dataclass
class NewResult:
    """One player's result in a finished game (a cooperative game: won = the table won)."""

    user_id: str
    score: int
    won: bool
    cooperative: bool = False


@dataclass
class StatRow:
    """Aggregated results: of one player (a leaderboard line) or of one game (a record line)."""

    key: str  # the user id, or the game id
    games: int
    wins: int
    best: int
    average: float
    cooperative: bool = False  # a cooperative game's (its wins are table wins)


CHANNEL = "channel"  # an outbox target: the session's channel (else "user:<id>", a DM)


@dataclass
class NewPost:
    """Something a change must post, written to the outbox in the change's transaction."""

    payload: dict[str, Any]  # {"announcement": {...}} or {"notice": text, "ping": [ids]}, …
    target: str = CHANNEL


@dataclass
class PostRow:
    id: int
    session_id: int
    target: str
    payload: str
    created_at: float
    attempts: int
    next_attempt_at: float
    sent_at: float | None
    message_id: int | None
    failure: str | None


class Store:
    """The only code that talks SQL."""

    def __init__(self, conn: aiosqlite.Connection, owner_lock: int | None = None) -> None:
        self._conn = conn
        # Long reads (a big server's /game stats, history pages) go through a second,
        # read-only connection: in WAL mode they read a snapshot without holding the writer's
        # lock, so moves keep committing meanwhile.
        self._reader: aiosqlite.Connection | None = None
        self._owner_lock = owner_lock  # the open lock file that makes this process the owner
        # One connection serves every session: a transaction must not interleave with another
        # one's statements (nor may a read see another's uncommitted rows), so every use of the
        # connection takes this lock, and a transaction holds it from BEGIN to COMMIT.
        self._lock = asyncio.Lock()
        self._pending: list[
            tuple[Callable[[aiosqlite.Connection], Awaitable[None]], asyncio.Future[None]]
        ] = []
        self._flusher: asyncio.Task[None] | None = None

    @classmethod
    async def open(
        cls, path: Path | str, synchronous: str = "FULL", *, owner: bool = False
    ) -> Store:
        """Open (and migrate) the database. ``owner``: this process serves the sessions from
        memory and fires their timers, so it must be the only one: a second owner is refused
        (an OS lock on ``<path>.lock``, released when the process ends, even by kill -9), and
        a database it cannot write to is refused too, before anything else starts."""
        if synchronous not in ("FULL", "NORMAL", "OFF"):
            raise ValueError(f"bad synchronous mode {synchronous!r}")
        lock = _lock_owner(Path(path)) if owner else None
        try:
            conn = await aiosqlite.connect(str(path), isolation_level=None)
        except sqlite3.Error as exc:
            _unlock(lock)
            raise DatabaseReadOnly(f"cannot open the database {path}: {exc}") from None
        conn.row_factory = aiosqlite.Row
        store = cls(conn, lock)
        try:
            await conn.execute("PRAGMA journal_mode=WAL")
            await conn.execute("PRAGMA foreign_keys=ON")
            await conn.execute("PRAGMA busy_timeout=5000")
            await conn.execute(f"PRAGMA synchronous={synchronous}")
            await store._migrate()
            store._reader = await _open_reader(path)
            if owner:
                await store.set_meta("opened_at", repr(time.time()))
        except sqlite3.OperationalError as exc:
            await store.close()
            raise DatabaseReadOnly(
                f"cafebot cannot write to its database {path} ({exc}): check the file's and its "
                "folder's permissions and free disk space."
            ) from None
        except BaseException:
            await store.close()
            raise
        return store

    async def close(self) -> None:
        if self._reader is not None:
            await self._reader.close()
            self._reader = None
        await self._conn.close()
        _unlock(self._owner_lock)
        self._owner_lock = None

    async def _migrate(self) -> None:
        await self._conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"
        )
        async with self._conn.execute("SELECT version FROM schema_version") as cur:
            row = await cur.fetchone()
        current = int(row[0]) if row else 0
        if current > SCHEMA_VERSION:
            raise NewerDatabase(
                f"This database has schema version {current}, newer than this cafebot "
                f"understands ({SCHEMA_VERSION}). Upgrade cafebot instead of downgrading."
            )
        for number in range(current, SCHEMA_VERSION):
            async with self.transaction():
                for statement in _split_sql(MIGRATIONS[number]):
                    await self._conn.execute(statement)
                backfill = BACKFILLS.get(number + 1)
                if backfill is not None:
                    await backfill(self._conn)
                await self._conn.execute("DELETE FROM schema_version")
                await self._conn.execute(
                    "INSERT INTO schema_version (version) VALUES (?)", (number + 1,)
                )

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        async with self._lock:
            await self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                await self._conn.execute("ROLLBACK")
                raise
            else:
                await self._conn.execute("COMMIT")

    async def _group_commit(self, write: Callable[[aiosqlite.Connection], Awaitable[None]]) -> None:
        """Run ``write`` in a transaction shared with the writes queued meanwhile (group commit:
        one COMMIT, one fsync for all). Each caller returns only after the COMMIT. A write that
        raises must raise before it writes anything (see commit_state); it alone fails. Any
        other failure rolls the whole group back and fails every write in it."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((write, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        await future

    async def _flush(self) -> None:
        while self._pending:
            group, self._pending = self._pending, []
            outcomes: list[BaseException | None] = []
            try:
                async with self.transaction() as db:
                    for write, _ in group:
                        try:
                            await write(db)
                            outcomes.append(None)
                        except StaleVersion as exc:
                            outcomes.append(exc)
            except BaseException as exc:
                outcomes = [exc] * len(group)
            for (_, future), outcome in zip(group, outcomes, strict=True):
                if future.done():
                    continue
                if outcome is None:
                    future.set_result(None)
                else:
                    future.set_exception(outcome)

    async def _write(self, sql: str, args: Iterable[Any] = ()) -> None:
        """One statement, committed with whatever else is being written (group commit)."""
        params = tuple(args)

        async def write(db: aiosqlite.Connection) -> None:
            await db.execute(sql, params)

        await self._group_commit(write)

    # -- reads -----------------------------------------------------------------------------------
    # execute_fetchall is one trip to the database thread (execute + fetch + close are three).
    async def _one(self, sql: str, args: Iterable[Any] = ()) -> aiosqlite.Row | None:
        rows = await self._all(sql, args)
        return rows[0] if rows else None

    async def _all(self, sql: str, args: Iterable[Any] = ()) -> list[aiosqlite.Row]:
        async with self._lock:
            return list(await self._conn.execute_fetchall(sql, tuple(args)))

    async def _read(self, sql: str, args: Iterable[Any] = ()) -> list[aiosqlite.Row]:
        """A long read, on the read-only connection (what was committed when it began)."""
        if self._reader is None:
            return await self._all(sql, args)
        return list(await self._reader.execute_fetchall(sql, tuple(args)))

    async def get_session(self, session_id: int) -> SessionRow | None:
        row = await self._one("SELECT * FROM sessions WHERE id = ?", (session_id,))
        return _session_row(row) if row else None

    async def open_session_in_channel(self, channel_id: int) -> SessionRow | None:
        """The open session of a channel, or of the table whose thread the channel is (a game's
        thread is opened on its table message and has the message's id)."""
        row = await self._one(
            "SELECT * FROM sessions WHERE (channel_id = ? OR table_message_id = ?) "
            "AND status IN ('lobby', 'active') ORDER BY channel_id = ? DESC LIMIT 1",
            (channel_id, channel_id, channel_id),
        )
        return _session_row(row) if row else None

    async def latest_session_in_channel(self, channel_id: int) -> SessionRow | None:
        row = await self._one(
            "SELECT * FROM sessions WHERE channel_id = ? OR table_message_id = ? "
            "ORDER BY id DESC LIMIT 1",
            (channel_id, channel_id),
        )
        return _session_row(row) if row else None

    async def sessions_with_status(self, *statuses: str) -> list[SessionRow]:
        marks = ",".join("?" for _ in statuses)
        rows = await self._all(f"SELECT * FROM sessions WHERE status IN ({marks})", statuses)
        return [_session_row(r) for r in rows]

    async def ended_in_guild(
        self, guild_id: int, *, offset: int = 0, limit: int = 10
    ) -> tuple[list[SessionRow], int]:
        """A page of the server's games that were played and ended (finished or abandoned;
        not lobbies closed before the start), newest first, and how many there are."""
        where = "WHERE guild_id = ? AND status IN ('finished', 'abandoned') AND state IS NOT NULL"
        rows = await self._read(
            f"SELECT * FROM sessions {where} ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?",
            (guild_id, limit, offset),
        )
        counted = await self._read(f"SELECT COUNT(*) FROM sessions {where}", (guild_id,))
        return [_session_row(r) for r in rows], int(counted[0][0])

    async def rematch_of(self, session_id: int) -> SessionRow | None:
        """The lobby (or game) a finished game's Rematch button opened, if any."""
        row = await self._one("SELECT * FROM sessions WHERE rematch_of = ?", (session_id,))
        return _session_row(row) if row else None

    # -- statistics: aggregated in SQL over the results' covering indexes --------------------------
    async def leaderboard(
        self, guild_id: int, game_id: str | None = None, limit: int = 10
    ) -> list[StatRow]:
        """The server's best players (of one game, or of all): most wins, then the best win
        rate, then the most games."""
        game = "AND game_id = ? " if game_id is not None else ""
        args: tuple[Any, ...] = (guild_id, game_id) if game_id is not None else (guild_id,)
        rows = await self._read(
            "SELECT user_id, COUNT(*) AS games, SUM(won) AS wins, MAX(score) AS best, "
            "AVG(score) AS average, MAX(cooperative) FROM results "
            f"WHERE guild_id = ? {game}GROUP BY user_id "
            "ORDER BY SUM(won) DESC, 1.0 * SUM(won) / COUNT(*) DESC, COUNT(*) DESC, user_id "
            "LIMIT ?",
            (*args, limit),
        )
        return [_stat_row(r) for r in rows]

    async def player_record(
        self, guild_id: int, user_id: str, game_id: str | None = None
    ) -> list[StatRow]:
        """One player's results in the server, per game (most played first)."""
        game = "AND game_id = ? " if game_id is not None else ""
        args: tuple[Any, ...] = (guild_id, user_id) + ((game_id,) if game_id is not None else ())
        rows = await self._read(
            "SELECT game_id, COUNT(*) AS games, SUM(won) AS wins, MAX(score) AS best, "
            "AVG(score) AS average, MAX(cooperative) FROM results "
            f"WHERE guild_id = ? AND user_id = ? {game}"
            "GROUP BY game_id ORDER BY COUNT(*) DESC, game_id",
            args,
        )
        return [_stat_row(r) for r in rows]

    async def games_finished(self, guild_id: int) -> dict[str, int]:
        """How many games of each kind the server finished."""
        rows = await self._read(
            "SELECT game_id, COUNT(*) FROM sessions WHERE guild_id = ? AND status = 'finished' "
            "GROUP BY game_id",
            (guild_id,),
        )
        return {str(r[0]): int(r[1]) for r in rows}

    async def latest_names(self, user_ids: list[str]) -> dict[str, str]:
        """Each user's name as of their latest game."""
        names: dict[str, str] = {}
        for user_id in user_ids:
            rows = await self._read(
                "SELECT name FROM players WHERE user_id = ? ORDER BY session_id DESC LIMIT 1",
                (user_id,),
            )
            if rows:
                names[user_id] = str(rows[0][0])
        return names

    async def players(self, session_id: int) -> list[PlayerRow]:
        rows = await self._all(
            "SELECT * FROM players WHERE session_id = ? ORDER BY seat", (session_id,)
        )
        return [PlayerRow(**dict(r)) for r in rows]

    async def sessions_of_user(self, user_id: str) -> list[SessionRow]:
        rows = await self._all(
            "SELECT s.* FROM sessions s JOIN players p ON p.session_id = s.id "
            "WHERE p.user_id = ? AND s.status IN ('lobby', 'active') ORDER BY s.id",
            (user_id,),
        )
        return [_session_row(r) for r in rows]

    async def open_sessions_with_deadlines(
        self, user_id: str
    ) -> list[tuple[SessionRow, float | None]]:
        """The user's open sessions (any server), each with its step's deadline if any."""
        rows = await self._all(
            "SELECT s.*, t.due_at AS deadline FROM players p "
            "JOIN sessions s ON s.id = p.session_id "
            "LEFT JOIN timers t ON t.session_id = s.id AND t.kind = 'deadline' "
            "WHERE p.user_id = ? AND s.status IN ('lobby', 'active') ORDER BY s.id",
            (user_id,),
        )
        out: list[tuple[SessionRow, float | None]] = []
        for r in rows:
            values = dict(r)
            deadline = values.pop("deadline")
            out.append((_session_row_of(values), float(deadline) if deadline is not None else None))
        return out

    async def actions(self, session_id: int) -> list[ActionRow]:
        rows = await self._all(
            "SELECT * FROM actions WHERE session_id = ? ORDER BY seq", (session_id,)
        )
        return [ActionRow(**dict(r)) for r in rows]

    async def timers(self, session_id: int | None = None) -> list[TimerRow]:
        if session_id is None:
            rows = await self._all("SELECT * FROM timers ORDER BY due_at")
        else:
            rows = await self._all(
                "SELECT * FROM timers WHERE session_id = ? ORDER BY due_at", (session_id,)
            )
        return [TimerRow(**dict(r)) for r in rows]

    async def get_meta(self, key: str) -> str | None:
        row = await self._one("SELECT value FROM meta WHERE key = ?", (key,))
        return str(row[0]) if row else None

    # -- writes ----------------------------------------------------------------------------------
    async def set_meta(self, key: str, value: str) -> None:
        await self._write(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    async def create_session(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        game_id: str,
        host_id: str,
        host_name: str,
        options: dict[str, Any],
        seed: int,
        guests: Iterable[tuple[str, str]] = (),
        rematch_of: int | None = None,
    ) -> int:
        """A new lobby with its host in seat 0 and ``guests`` (user id, name) seated after."""
        now = time.time()
        try:
            return await self._insert_session(
                (guild_id, channel_id, game_id, host_id, json.dumps(options), seed, now, now),
                rematch_of,
                [(host_id, host_name), *guests],
            )
        except sqlite3.IntegrityError:
            # Another lobby was opened in the channel (or this rematch) at the same moment.
            raise NotAllowed(
                "Another game was just opened there — `/game status` shows it."
            ) from None

    async def _insert_session(
        self, values: tuple[Any, ...], rematch_of: int | None, seats: list[tuple[str, str]]
    ) -> int:
        async with self.transaction() as db:
            cur = await db.execute(
                "INSERT INTO sessions (guild_id, channel_id, game_id, status, host_id, options, "
                "seed, created_at, updated_at, rematch_of) "
                "VALUES (?, ?, ?, 'lobby', ?, ?, ?, ?, ?, ?)",
                (*values, rematch_of),
            )
            session_id = cur.lastrowid
            assert session_id is not None
            for seat, (user_id, name) in enumerate(seats):
                await db.execute(
                    "INSERT INTO players (session_id, user_id, seat, name) VALUES (?, ?, ?, ?)",
                    (session_id, user_id, seat, name),
                )
        return session_id

    async def _bump(
        self, db: aiosqlite.Connection, session_id: int, version: int, **cols: Any
    ) -> None:
        sets = ", ".join(f"{name} = ?" for name in cols)
        sql = (
            f"UPDATE sessions SET {sets}{', ' if sets else ''}version = version + 1, "
            "updated_at = ? WHERE id = ? AND version = ?"
        )
        cur = await db.execute(sql, (*cols.values(), time.time(), session_id, version))
        if cur.rowcount != 1:
            raise StaleVersion()

    async def update_lobby(
        self,
        session_id: int,
        version: int,
        *,
        add: tuple[str, str] | None = None,
        remove: str | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        async with self.transaction() as db:
            cols: dict[str, Any] = {}
            if options is not None:
                cols["options"] = json.dumps(options)
            await self._bump(db, session_id, version, **cols)
            if add is not None:
                row = await (
                    await db.execute(
                        "SELECT COALESCE(MAX(seat), -1) + 1 FROM players WHERE session_id = ?",
                        (session_id,),
                    )
                ).fetchone()
                seat = int(row[0]) if row else 0
                await db.execute(
                    "INSERT INTO players (session_id, user_id, seat, name) VALUES (?, ?, ?, ?)",
                    (session_id, add[0], seat, add[1]),
                )
            if remove is not None:
                await db.execute(
                    "DELETE FROM players WHERE session_id = ? AND user_id = ?", (session_id, remove)
                )

    async def commit_state(
        self,
        session_id: int,
        version: int,
        *,
        state: str,
        status: str,
        new_actions: list[NewAction],
        outcome: str | None = None,
        timers: list[TimerRow] | None = None,
        keep_timers: bool = False,
        posts: list[NewPost] | None = None,
        announced: int | None = None,
        results: list[NewResult] | None = None,
        settle_undo: bool = False,
    ) -> None:
        """Write a new state, append its actions and posts and replace the timers, atomically;
        returns once committed (durable). Concurrent calls for different sessions share a
        commit. ``results``: the game ended with these (for /game stats); ``settle_undo``:
        the session's undo request is settled by this change."""

        async def write(db: aiosqlite.Connection) -> None:
            # The guarded UPDATE comes first: a stale version fails before anything is written.
            cols: dict[str, Any] = {"state": state, "status": status, "outcome": outcome}
            if announced is not None:
                cols["announced"] = announced
            await self._bump(db, session_id, version, **cols)
            await self._insert_posts(db, session_id, posts or [])
            now = time.time()
            for a in new_actions:  # the next seq is computed in the INSERT: one trip each
                await db.execute(
                    "INSERT INTO actions (session_id, seq, player, action, source, created_at, "
                    "undoes) SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ? FROM actions "
                    "WHERE session_id = ?",
                    (
                        session_id,
                        a.player,
                        json.dumps(a.action),
                        a.source,
                        now,
                        a.undoes,
                        session_id,
                    ),
                )
            if settle_undo:
                await db.execute("DELETE FROM undo_requests WHERE session_id = ?", (session_id,))
            for r in results or []:
                await db.execute(
                    "INSERT INTO results (session_id, user_id, guild_id, game_id, score, won, "
                    "cooperative, finished_at) SELECT id, ?, guild_id, game_id, ?, ?, ?, ? "
                    "FROM sessions WHERE id = ?",
                    (r.user_id, r.score, int(r.won), int(r.cooperative), now, session_id),
                )
            if not keep_timers:
                await db.execute("DELETE FROM timers WHERE session_id = ?", (session_id,))
                for t in timers or []:
                    await db.execute(
                        "INSERT INTO timers (session_id, kind, key, due_at) VALUES (?, ?, ?, ?)",
                        (session_id, t.kind, t.key, t.due_at),
                    )

        await self._group_commit(write)

    async def set_status(
        self,
        session_id: int,
        version: int,
        status: str,
        *,
        note: str | None = None,
        posts: list[NewPost] | None = None,
    ) -> None:
        async with self.transaction() as db:
            cols: dict[str, Any] = {"status": status}
            if note is not None:
                cols["note"] = note
            await self._bump(db, session_id, version, **cols)
            if status in ("finished", "abandoned"):
                await db.execute("DELETE FROM timers WHERE session_id = ?", (session_id,))
                await db.execute("DELETE FROM undo_requests WHERE session_id = ?", (session_id,))
            await self._insert_posts(db, session_id, posts or [])

    async def _insert_posts(
        self, db: aiosqlite.Connection, session_id: int, posts: list[NewPost]
    ) -> None:
        now = time.time()
        for post in posts:
            await db.execute(
                "INSERT INTO outbox (session_id, target, payload, created_at, next_attempt_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (session_id, post.target, json.dumps(post.payload), now, now),
            )

    async def post_and_delete_timer(
        self, session_id: int, kind: str, key: str, posts: list[NewPost]
    ) -> None:
        """Replace a fired timer by what it must post, in one transaction (a reminder is
        either still due or in the outbox, never lost between the two)."""

        async def write(db: aiosqlite.Connection) -> None:
            await db.execute(
                "DELETE FROM timers WHERE session_id = ? AND kind = ? AND key = ?",
                (session_id, kind, key),
            )
            await self._insert_posts(db, session_id, posts)

        await self._group_commit(write)

    # -- undo requests ---------------------------------------------------------------------------
    async def undo_request(self, session_id: int) -> UndoRequestRow | None:
        row = await self._one("SELECT * FROM undo_requests WHERE session_id = ?", (session_id,))
        return UndoRequestRow(**dict(row)) if row else None

    async def undo_requests_due(self, now: float) -> list[UndoRequestRow]:
        rows = await self._all(
            "SELECT * FROM undo_requests WHERE due_at <= ? ORDER BY due_at", (now,)
        )
        return [UndoRequestRow(**dict(r)) for r in rows]

    async def next_undo_due(self) -> float | None:
        row = await self._one("SELECT MIN(due_at) FROM undo_requests")
        return float(row[0]) if row and row[0] is not None else None

    async def ask_undo(self, request: UndoRequestRow, posts: list[NewPost]) -> None:
        """Store a request (refused if the session has one already) and what it posts."""
        async with self.transaction() as db:
            try:
                await db.execute(
                    "INSERT INTO undo_requests (session_id, seq, player, agreed, asked_at, "
                    "due_at) VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        request.session_id,
                        request.seq,
                        request.player,
                        request.agreed,
                        request.asked_at,
                        request.due_at,
                    ),
                )
            except sqlite3.IntegrityError:
                raise NotAllowed(
                    "Someone's undo is already being asked at this table: wait until it is settled."
                ) from None
            await self._insert_posts(db, request.session_id, posts)

    async def agree_undo(self, session_id: int, seq: int, agreed: list[str]) -> None:
        await self._write(
            "UPDATE undo_requests SET agreed = ? WHERE session_id = ? AND seq = ?",
            (",".join(agreed), session_id, seq),
        )

    async def drop_undo(self, session_id: int, posts: list[NewPost]) -> None:
        """The request is settled without an undo (refused, or no longer possible)."""

        async def write(db: aiosqlite.Connection) -> None:
            await db.execute("DELETE FROM undo_requests WHERE session_id = ?", (session_id,))
            await self._insert_posts(db, session_id, posts)

        await self._group_commit(write)

    # -- the outbox ------------------------------------------------------------------------------
    async def unsent_posts(self, session_id: int) -> list[PostRow]:
        rows = await self._all(
            "SELECT * FROM outbox WHERE session_id = ? AND sent_at IS NULL ORDER BY id",
            (session_id,),
        )
        return [PostRow(**dict(r)) for r in rows]

    async def sessions_with_posts_due(self, now: float) -> list[int]:
        rows = await self._all(
            "SELECT DISTINCT session_id FROM outbox WHERE sent_at IS NULL AND next_attempt_at <= ?",
            (now,),
        )
        return [int(r[0]) for r in rows]

    async def next_post_due(self) -> float | None:
        row = await self._one("SELECT MIN(next_attempt_at) FROM outbox WHERE sent_at IS NULL")
        return float(row[0]) if row and row[0] is not None else None

    async def mark_posted(
        self, post_id: int, message_id: int | None, *, failure: str | None = None
    ) -> None:
        """Done with a post: sent (with its message), or given up (``failure`` says why)."""
        await self._write(
            "UPDATE outbox SET sent_at = ?, message_id = ?, failure = ? WHERE id = ?",
            (time.time(), message_id, failure, post_id),
        )

    async def retry_post_later(self, post_id: int, at: float, failure: str) -> None:
        await self._write(
            "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, failure = ? "
            "WHERE id = ?",
            (at, failure, post_id),
        )

    async def posts(self, session_id: int) -> list[PostRow]:
        """Every post of a session, sent or not (for tests and inspection)."""
        rows = await self._all(
            "SELECT * FROM outbox WHERE session_id = ? ORDER BY id", (session_id,)
        )
        return [PostRow(**dict(r)) for r in rows]

    async def delete_timer(self, session_id: int, kind: str, key: str) -> None:
        await self._write(
            "DELETE FROM timers WHERE session_id = ? AND kind = ? AND key = ?",
            (session_id, kind, key),
        )

    async def shift_timers(self, session_ids: list[int], after: float, by: float) -> None:
        """Push back timers of these sessions that were still pending at ``after`` by ``by``."""
        if not session_ids or by <= 0:
            return
        marks = ",".join("?" for _ in session_ids)
        async with self.transaction() as db:
            await db.execute(
                f"UPDATE timers SET due_at = due_at + ? WHERE due_at > ? "
                f"AND session_id IN ({marks})",
                (by, after, *session_ids),
            )

    # Presentation bookkeeping: these do not change game state, so they do not bump the version.
    async def set_table_message(self, session_id: int, message_id: int | None) -> None:
        await self._write(
            "UPDATE sessions SET table_message_id = ? WHERE id = ?", (message_id, session_id)
        )

    async def enqueue_announcements(
        self, session_id: int, version: int, first: int, announcements: list[dict[str, Any]]
    ) -> None:
        """Put announcements ``first``… of a stored state in the outbox (a database written
        before the outbox existed may hold some not yet posted)."""
        async with self.transaction() as db:
            await self._bump(db, session_id, version, announced=first + len(announcements))
            await self._insert_posts(
                db, session_id, [NewPost({"announcement": a}) for a in announcements]
            )

    async def set_dm(
        self,
        session_id: int,
        user_id: str,
        *,
        channel_id: int | None,
        message_id: int | None,
        stamp: str | None,
        digest: str | None,
    ) -> None:
        await self._write(
            "UPDATE players SET dm_channel_id = ?, dm_message_id = ?, dm_stamp = ?, dm_digest = ? "
            "WHERE session_id = ? AND user_id = ?",
            (channel_id, message_id, stamp, digest, session_id, user_id),
        )

    async def raw_execute(self, sql: str, args: Iterable[Any] = ()) -> None:
        """For tests that damage a database on purpose."""
        await self._write(sql, args)


def _stat_row(row: aiosqlite.Row) -> StatRow:
    return StatRow(
        key=str(row[0]),
        games=int(row[1]),
        wins=int(row[2]),
        best=int(row[3]),
        average=float(row[4]),
        cooperative=bool(row[5]),
    )


async def _backfill_results(db: aiosqlite.Connection) -> None:
    """Migration 6: the results of the games finished before it (outcomes parsed here, in
    Python: no database's JSON functions needed)."""
    rows = await db.execute_fetchall(
        "SELECT id, outcome, updated_at FROM sessions WHERE status = 'finished' "
        "AND outcome IS NOT NULL"
    )
    for session_id, outcome_json, finished_at in rows:
        try:
            outcome = json.loads(outcome_json)
            scores = {str(p): int(s) for p, s in outcome["scores"].items()}
            winners = {str(p) for p in outcome.get("winners", [])}
            cooperative = int(bool(outcome.get("cooperative", False)))
        except (ValueError, KeyError, TypeError, AttributeError):
            continue  # a damaged outcome counts for nothing
        for user_id, score in scores.items():
            await db.execute(
                "INSERT INTO results (session_id, user_id, guild_id, game_id, score, won, "
                "cooperative, finished_at) SELECT id, ?, guild_id, game_id, ?, ?, ?, ? "
                "FROM sessions WHERE id = ?",
                (user_id, score, int(user_id in winners), cooperative, finished_at, session_id),
            )


# Python steps of migrations (backfills), by migration number: run after its SQL, in its
# transaction.
BACKFILLS: dict[int, Callable[[aiosqlite.Connection], Awaitable[None]]] = {
    6: _backfill_results,
}


async def _open_reader(path: Path | str) -> aiosqlite.Connection:
    reader = await aiosqlite.connect(str(path), isolation_level=None)
    reader.row_factory = aiosqlite.Row
    await reader.execute("PRAGMA query_only=ON")
    await reader.execute("PRAGMA busy_timeout=5000")
    return reader


def _lock_owner(path: Path) -> int:
    lock_path = path.with_name(path.name + ".lock")
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise DatabaseReadOnly(f"cannot create the lock file {lock_path}: {exc}") from None
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


def _session_row(row: aiosqlite.Row) -> SessionRow:
    return _session_row_of(dict(row))


def _session_row_of(values: dict[str, Any]) -> SessionRow:
    values["status"] = SessionStatus(values["status"])
    return SessionRow(**values)


def _split_sql(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]

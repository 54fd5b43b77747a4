"""The storage interface, and the SQL every backend shares.

Sessions, seats, the append-only action log, timers and the outbox. Every write that changes a
session's state is one transaction guarded by ``version`` (``UPDATE … WHERE version = ?``), so a
stale writer is refused (:class:`StaleWrite`) instead of overwriting a newer state; the session
service then reads the session again and decides anew. Schema changes are the numbered
migrations of :mod:`bot.core.store.migrations`; a database written by newer code is refused.

A backend gives three primitives (a read, a transaction, and a write that may be committed
together with others) and its dialect; the statements are written once, with ``?`` parameters.
A backend that several processes share (``shared``) also overrides the claims: timers and
outbox rows taken by one process for a lease, and the right to show a session in Discord.
"""

from __future__ import annotations

import functools
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

from bot.core.errors import NotAllowed, StaleWrite, StorageFull
from bot.core.store import rating_sql
from bot.core.store.migrations import MIGRATIONS, SCHEMA_VERSION
from bot.core.store.rows import (
    ActionRow,
    LevelLine,
    MoveWrite,
    NewAction,
    NewerDatabase,
    NewPost,
    NewResult,
    PlayerRow,
    PostRow,
    RatingChange,
    RatingLine,
    SeasonRow,
    SessionRow,
    StatRow,
    TimerRow,
    UndoRequestRow,
    row_of,
    session_row,
)

T = TypeVar("T")
Record = dict[str, Any]
log = logging.getLogger(__name__)
# The tables a copy moves (migrate-db), in the order foreign keys allow.
DATA_TABLES = (
    "sessions",
    "players",
    "actions",
    "timers",
    "outbox",
    "results",
    "result_totals",
    "undo_requests",
    "seasons",
    "ratings",
    "levels",
    "rating_changes",
    "meta",
)


class Tx(Protocol):
    """One open transaction of a backend."""

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        """Run a statement; returns the number of rows it changed."""
        ...

    async def fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Record]: ...


class Store(ABC):
    """The only code that talks SQL."""

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

    # -- the schema ------------------------------------------------------------------------------
    async def _migrate(self) -> None:
        async with self._transaction() as tx:
            await self._lock_schema(tx)
            await tx.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            rows = await tx.fetch("SELECT version FROM schema_version")
            current = int(rows[0]["version"]) if rows else 0
            if current > SCHEMA_VERSION:
                raise NewerDatabase(
                    f"This database has schema version {current}, newer than this cafebot "
                    f"understands ({SCHEMA_VERSION}). Upgrade cafebot instead of downgrading."
                )
            for number in range(current, SCHEMA_VERSION):
                for statement in MIGRATIONS[number].statements(self.dialect):
                    await tx.execute(statement)
                backfill = BACKFILLS.get(number + 1)
                if backfill is not None:
                    await backfill(tx)
            if current < SCHEMA_VERSION:
                await tx.execute("DELETE FROM schema_version")
                await tx.execute(
                    "INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,)
                )

    async def _check_schema(self) -> None:
        """For a database only read: it must be of this cafebot's schema (nothing migrated)."""
        version = await self.schema_version()
        if version != SCHEMA_VERSION:
            raise NewerDatabase(
                f"This database has schema version {version}, this cafebot {SCHEMA_VERSION}: "
                "start this cafebot on it once (it upgrades an older one), stop it, then copy."
            )

    async def schema_version(self) -> int:
        rows = await self._fetch("SELECT version FROM schema_version")
        return int(rows[0]["version"]) if rows else 0

    # -- reads -----------------------------------------------------------------------------------
    async def _one(self, sql: str, args: Sequence[Any] = ()) -> Record | None:
        rows = await self._fetch(sql, args)
        return rows[0] if rows else None

    async def get_session(self, session_id: int) -> SessionRow | None:
        row = await self._one("SELECT * FROM sessions WHERE id = ?", (session_id,))
        return session_row(row) if row else None

    async def session_stamp(self, session_id: int) -> tuple[int, int] | None:
        """(version, shown) of a session as stored: whether a cached copy is still current."""
        row = await self._one("SELECT version, shown FROM sessions WHERE id = ?", (session_id,))
        return (int(row["version"]), int(row["shown"])) if row else None

    async def open_session_in_channel(self, channel_id: int) -> SessionRow | None:
        """The open session of a channel, or of the table whose thread the channel is (a game's
        thread is opened on its table message and has the message's id)."""
        row = await self._one(
            "SELECT * FROM sessions WHERE (channel_id = ? OR table_message_id = ?) "
            "AND status IN ('lobby', 'active') ORDER BY (channel_id = ?) DESC LIMIT 1",
            (channel_id, channel_id, channel_id),
        )
        return session_row(row) if row else None

    async def latest_session_in_channel(self, channel_id: int) -> SessionRow | None:
        row = await self._one(
            "SELECT * FROM sessions WHERE channel_id = ? OR table_message_id = ? "
            "ORDER BY id DESC LIMIT 1",
            (channel_id, channel_id),
        )
        return session_row(row) if row else None

    async def sessions_with_status(self, *statuses: str) -> list[SessionRow]:
        marks = ",".join("?" for _ in statuses)
        rows = await self._fetch(
            f"SELECT * FROM sessions WHERE status IN ({marks}) ORDER BY id", statuses
        )
        return [session_row(r) for r in rows]

    async def backlog(self, *open_statuses: str) -> tuple[int, int]:
        """(sessions of these statuses, posts not yet sent): the operator's gauges."""
        marks = ",".join("?" for _ in open_statuses)
        row = await self._one(
            f"SELECT (SELECT COUNT(*) FROM sessions WHERE status IN ({marks})) AS open_count, "
            "(SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL) AS unsent_count",
            open_statuses,
        )
        assert row is not None
        return int(row["open_count"]), int(row["unsent_count"])

    async def session_heads(self, *statuses: str) -> list[tuple[int, str, int]]:
        """(id, game, version) of the sessions with these statuses, oldest first: what a
        start-up looks at before it loads any (not their states)."""
        marks = ",".join("?" for _ in statuses)
        rows = await self._fetch(
            f"SELECT id, game_id, version FROM sessions WHERE status IN ({marks}) ORDER BY id",
            statuses,
        )
        return [(int(r["id"]), str(r["game_id"]), int(r["version"])) for r in rows]

    async def sessions_seating(self, prefix: str, *statuses: str) -> list[int]:
        """The sessions with these statuses that seat a player whose id starts with
        ``prefix`` (e.g. bot players'), oldest first."""
        marks = ",".join("?" for _ in statuses)
        rows = await self._fetch(
            "SELECT DISTINCT s.id FROM sessions s JOIN players p ON p.session_id = s.id "
            f"WHERE s.status IN ({marks}) AND p.user_id LIKE ? ORDER BY s.id",
            (*statuses, prefix.replace("%", "").replace("_", "") + "%"),
        )
        return [int(r["id"]) for r in rows]

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
        counted = await self._read(f"SELECT COUNT(*) AS n FROM sessions {where}", (guild_id,))
        return [session_row(r) for r in rows], int(counted[0]["n"])

    async def rematch_of(self, session_id: int) -> SessionRow | None:
        """The lobby (or game) a finished game's Rematch button opened, if any."""
        row = await self._one("SELECT * FROM sessions WHERE rematch_of = ?", (session_id,))
        return session_row(row) if row else None

    # -- statistics: the win board from the totals, a record aggregated over results ------------
    async def leaderboard(
        self, guild_id: int, game_id: str | None = None, limit: int = 10
    ) -> list[StatRow]:
        """The server's best players (of one game, or of all): most wins, then the best win
        rate, then the most games. Read from the totals kept with the results, in the order of
        their index: what aggregating the server's results would give, without reading them."""
        rows = await self._read(
            "SELECT user_id AS stat_key, games, wins, best, score_sum, cooperative "
            "FROM result_totals WHERE guild_id = ? AND game_id = ? "
            f"ORDER BY {TOTALS_ORDER} LIMIT ?",
            (guild_id, ALL_GAMES if game_id is None else game_id, limit),
        )
        return [_totals_row(r) for r in rows]

    async def player_record(
        self, guild_id: int, user_id: str, game_id: str | None = None
    ) -> list[StatRow]:
        """One player's results in the server, per game (most played first), aggregated over
        the results' covering index (a player's rows are few)."""
        game = "AND game_id = ? " if game_id is not None else ""
        args: tuple[Any, ...] = (guild_id, user_id) + ((game_id,) if game_id is not None else ())
        rows = await self._read(
            f"SELECT game_id AS stat_key, {_AGGREGATES} FROM results "
            f"WHERE guild_id = ? AND user_id = ? {game}"
            "GROUP BY game_id ORDER BY COUNT(*) DESC, game_id",
            args,
        )
        return [_stat_row(r) for r in rows]

    # -- ratings and seasons ---------------------------------------------------------------------
    async def rating_board(
        self, guild_id: int, game_id: str, season_id: int, limit: int = 10
    ) -> list[RatingLine]:
        """A game's best rated players of the server (in a season, or 0: all time), by
        ordinal (one read of the ratings_board index)."""
        rows = await self._read(
            "SELECT player, mu, sigma, ordinal, games FROM ratings WHERE guild_id = ? "
            "AND season_id = ? AND game_id = ? AND games > 0 "
            "ORDER BY ordinal DESC, player LIMIT ?",
            (guild_id, season_id, game_id, limit),
        )
        return [row_of(RatingLine, r) for r in rows]

    async def rating_history(
        self, guild_id: int, game_id: str, player: str, season_id: int, limit: int = 10
    ) -> list[RatingChange]:
        """A player's latest rating changes in a game, newest first."""
        rows = await self._read(
            "SELECT session_id, mu_before, sigma_before, mu, sigma, finished_at "
            "FROM rating_changes WHERE guild_id = ? AND game_id = ? AND player = ? "
            "AND season_id = ? ORDER BY finished_at DESC, session_id DESC LIMIT ?",
            (guild_id, game_id, player, season_id, limit),
        )
        return [row_of(RatingChange, r) for r in rows]

    async def rating_of(
        self, guild_id: int, game_id: str, player: str, season_id: int
    ) -> RatingLine | None:
        row = await self._one(
            "SELECT player, mu, sigma, ordinal, games FROM ratings WHERE guild_id = ? "
            "AND season_id = ? AND game_id = ? AND player = ?",
            (guild_id, season_id, game_id, player),
        )
        return row_of(RatingLine, row) if row else None

    async def level_board(
        self, guild_id: int, game_id: str, season_id: int, limit: int = 10
    ) -> list[LevelLine]:
        """A cooperative game's board: the highest level each player cleared (in a season, or
        0: all time)."""
        rows = await self._read(
            "SELECT player, level, games FROM levels WHERE guild_id = ? AND season_id = ? "
            "AND game_id = ? ORDER BY level DESC, games DESC, player LIMIT ?",
            (guild_id, season_id, game_id, limit),
        )
        return [row_of(LevelLine, r) for r in rows]

    async def rebuild_ratings(self) -> int:
        """Every rating, and the win totals, again from the results; returns how many games
        were rated."""
        async with self._transaction() as tx:
            await _refill_totals(tx)
            return await rating_sql.rebuild(tx)

    async def open_season(self, guild_id: int) -> SeasonRow | None:
        row = await self._one(
            "SELECT * FROM seasons WHERE guild_id = ? AND ended_at IS NULL", (guild_id,)
        )
        return row_of(SeasonRow, row) if row else None

    async def last_season(self, guild_id: int) -> SeasonRow | None:
        row = await self._one(
            "SELECT * FROM seasons WHERE guild_id = ? ORDER BY id DESC LIMIT 1", (guild_id,)
        )
        return row_of(SeasonRow, row) if row else None

    async def start_season(self, guild_id: int, name: str, started_by: str) -> SeasonRow:
        """A new season (refused while one is open in the server)."""
        try:
            async with self._transaction() as tx:
                rows = await tx.fetch(
                    "INSERT INTO seasons (guild_id, name, started_by, started_at) "
                    "VALUES (?, ?, ?, ?) RETURNING *",
                    (guild_id, name, started_by, time.time()),
                )
        except self._conflicts:
            raise NotAllowed(
                "A season is already running here: `/game season end` ends it first."
            ) from None
        return row_of(SeasonRow, rows[0])

    async def end_season(
        self, guild_id: int, channel_id: int
    ) -> tuple[SeasonRow, int | None] | None:
        """End the server's open season (None: there was none) and, in the same transaction,
        put its final table in the outbox, to be posted in ``channel_id`` once (a crash before
        it is sent sends it after the restart). The outbox is per session: the post goes with
        the server's latest game (of that channel if any); returned with the season (None: the
        server never played, there is nothing to post)."""
        async with self._transaction() as tx:
            rows = await tx.fetch(
                "UPDATE seasons SET ended_at = ? WHERE guild_id = ? AND ended_at IS NULL "
                "RETURNING *",
                (time.time(), guild_id),
            )
            if not rows:
                return None
            season = row_of(SeasonRow, rows[0])
            anchor = await tx.fetch(
                "SELECT id FROM sessions WHERE guild_id = ? "
                "ORDER BY (channel_id = ?) DESC, id DESC LIMIT 1",
                (guild_id, channel_id),
            )
            if not anchor:
                return season, None
            session_id = int(anchor[0]["id"])
            final = await rating_sql.season_table(tx, guild_id, season.id)
            final["name"] = season.name
            await self._insert_posts(
                tx, session_id, [NewPost({"season": final}, target=f"channel:{channel_id}")]
            )
        return season, session_id

    async def games_finished(self, guild_id: int) -> dict[str, int]:
        """How many games of each kind the server finished."""
        rows = await self._read(
            "SELECT game_id, COUNT(*) AS n FROM sessions WHERE guild_id = ? AND status = 'finished' "
            "GROUP BY game_id",
            (guild_id,),
        )
        return {str(r["game_id"]): int(r["n"]) for r in rows}

    async def latest_names(self, user_ids: list[str]) -> dict[str, str]:
        """Each user's name as of their latest game."""
        names: dict[str, str] = {}
        for user_id in user_ids:
            rows = await self._read(
                "SELECT name FROM players WHERE user_id = ? ORDER BY session_id DESC LIMIT 1",
                (user_id,),
            )
            if rows:
                names[user_id] = str(rows[0]["name"])
        return names

    async def players(self, session_id: int) -> list[PlayerRow]:
        rows = await self._fetch(
            "SELECT * FROM players WHERE session_id = ? ORDER BY seat", (session_id,)
        )
        return [row_of(PlayerRow, r) for r in rows]

    async def sessions_of_user(self, user_id: str) -> list[SessionRow]:
        rows = await self._fetch(
            "SELECT s.* FROM sessions s JOIN players p ON p.session_id = s.id "
            "WHERE p.user_id = ? AND s.status IN ('lobby', 'active') ORDER BY s.id",
            (user_id,),
        )
        return [session_row(r) for r in rows]

    async def active_versions_of(self, user_id: str) -> list[tuple[int, int]]:
        """(id, version) of the active sessions ``user_id`` is seated in (any server): no
        state read."""
        rows = await self._fetch(
            "SELECT s.id, s.version FROM players p JOIN sessions s ON s.id = p.session_id "
            "WHERE p.user_id = ? AND s.status = 'active' ORDER BY s.id",
            (user_id,),
        )
        return [(int(r["id"]), int(r["version"])) for r in rows]

    async def open_sessions_with_deadlines(
        self, user_id: str
    ) -> list[tuple[SessionRow, float | None]]:
        """The user's open sessions (any server), each with its step's deadline if any."""
        rows = await self._fetch(
            "SELECT s.*, t.due_at AS deadline FROM players p "
            "JOIN sessions s ON s.id = p.session_id "
            "LEFT JOIN timers t ON t.session_id = s.id AND t.kind = 'deadline' "
            "WHERE p.user_id = ? AND s.status IN ('lobby', 'active') ORDER BY s.id",
            (user_id,),
        )
        out: list[tuple[SessionRow, float | None]] = []
        for r in rows:
            deadline = r.pop("deadline")
            out.append((session_row(r), float(deadline) if deadline is not None else None))
        return out

    async def actions(self, session_id: int) -> list[ActionRow]:
        rows = await self._fetch(
            "SELECT * FROM actions WHERE session_id = ? ORDER BY seq", (session_id,)
        )
        return [row_of(ActionRow, r) for r in rows]

    async def timers(self, session_id: int | None = None) -> list[TimerRow]:
        if session_id is None:
            rows = await self._fetch("SELECT * FROM timers ORDER BY due_at, session_id, kind")
        else:
            rows = await self._fetch(
                "SELECT * FROM timers WHERE session_id = ? ORDER BY due_at, kind", (session_id,)
            )
        return [row_of(TimerRow, r) for r in rows]

    async def get_meta(self, key: str) -> str | None:
        row = await self._one("SELECT value FROM meta WHERE key = ?", (key,))
        return str(row["value"]) if row else None

    # -- claims (one owner: nothing to claim against; a shared backend overrides these) ----------
    async def claim_due_timers(self, now: float) -> tuple[list[TimerRow], float | None]:
        """The timers due at ``now``, taken by this process (no other fires them while the
        claim lasts), and when the next one falls due (None: no timer)."""
        # Two indexed reads (timers_due), not every timer: the scheduler asks after each step.
        rows = await self._fetch(
            "SELECT * FROM timers WHERE due_at <= ? ORDER BY due_at, session_id, kind", (now,)
        )
        upcoming = await self._one("SELECT MIN(due_at) AS due FROM timers WHERE due_at > ?", (now,))
        nxt = upcoming["due"] if upcoming else None
        return [row_of(TimerRow, r) for r in rows], float(nxt) if nxt is not None else None

    async def claim_posts(self, session_id: int, now: float) -> list[PostRow]:
        """The unsent posts of a session, oldest first, taken by this process: none while
        another process holds some of them (they go out in order, from one process)."""
        return await self.unsent_posts(session_id)

    async def acquire_presentation(self, session_id: int) -> tuple[bool, bool]:
        """Take the right to edit and post a session's messages (one process at a time):
        (held, taken over: another process presented it last, so what this one remembers of
        its messages is out of date)."""
        return True, False

    async def release_presentation(self, session_id: int) -> None:
        return None

    # -- writes ----------------------------------------------------------------------------------
    async def _run(self, sql: str, args: Iterable[Any] = ()) -> int:
        """One statement, committed with whatever else is being written."""
        params = tuple(args)

        async def work(tx: Tx) -> int:
            return await tx.execute(sql, params)

        return await self._write(work)

    async def set_meta(self, key: str, value: str) -> None:
        await self._run(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    async def metas(self, prefix: str) -> dict[str, str]:
        """Every meta entry whose key starts with ``prefix`` (a range of the key's index)."""
        end = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        rows = await self._fetch(
            "SELECT key, value FROM meta WHERE key >= ? AND key < ?", (prefix, end)
        )
        return {str(r["key"]): str(r["value"]) for r in rows}

    async def set_metas(self, entries: dict[str, str | None]) -> None:
        """Set (or, with None, delete) several meta entries in one transaction."""
        if not entries:
            return
        async with self._transaction() as tx:
            for key, value in entries.items():
                if value is None:
                    await tx.execute("DELETE FROM meta WHERE key = ?", (key,))
                else:
                    await tx.execute(
                        "INSERT INTO meta (key, value) VALUES (?, ?) "
                        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                        (key, value),
                    )

    async def swap_meta(self, key: str, value: str) -> str | None:
        """Set ``key`` and return its previous value, atomically (of processes starting at
        once, one sees the old value, the others the new one)."""
        async with self._transaction() as tx:
            rows = await tx.fetch(f"SELECT value FROM meta WHERE key = ?{self._for_update}", (key,))
            await tx.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )
        return str(rows[0]["value"]) if rows else None

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
        values = (guild_id, channel_id, game_id, host_id, json.dumps(options), seed, now, now)
        try:
            async with self._transaction() as tx:
                rows = await tx.fetch(
                    "INSERT INTO sessions (guild_id, channel_id, game_id, status, host_id, "
                    "options, seed, created_at, updated_at, rematch_of) "
                    "VALUES (?, ?, ?, 'lobby', ?, ?, ?, ?, ?, ?) RETURNING id",
                    (*values, rematch_of),
                )
                session_id = int(rows[0]["id"])
                for seat, (user_id, name) in enumerate([(host_id, host_name), *guests]):
                    await tx.execute(
                        "INSERT INTO players (session_id, user_id, seat, name) VALUES (?, ?, ?, ?)",
                        (session_id, user_id, seat, name),
                    )
        except self._conflicts:
            # Another lobby was opened in the channel (or this rematch) at the same moment.
            raise NotAllowed(
                "Another game was just opened there — `/game status` shows it."
            ) from None
        return session_id

    async def _bump(self, tx: Tx, session_id: int, version: int, **cols: Any) -> None:
        sets = ", ".join(f"{name} = ?" for name in cols)
        sql = (
            f"UPDATE sessions SET {sets}{', ' if sets else ''}version = version + 1, "
            "updated_at = ? WHERE id = ? AND version = ?"
        )
        if await tx.execute(sql, (*cols.values(), time.time(), session_id, version)) != 1:
            raise StaleWrite()

    async def update_lobby(
        self,
        session_id: int,
        version: int,
        *,
        add: tuple[str, str] | None = None,
        remove: str | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        async with self._transaction() as tx:
            cols: dict[str, Any] = {}
            if options is not None:
                cols["options"] = json.dumps(options)
            await self._bump(tx, session_id, version, **cols)
            if add is not None:
                rows = await tx.fetch(
                    "SELECT COALESCE(MAX(seat), -1) + 1 AS seat FROM players WHERE session_id = ?",
                    (session_id,),
                )
                await tx.execute(
                    "INSERT INTO players (session_id, user_id, seat, name) VALUES (?, ?, ?, ?)",
                    (session_id, add[0], int(rows[0]["seat"]), add[1]),
                )
            if remove is not None:
                await tx.execute(
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
        returns once committed (durable). Concurrent calls for different sessions may share a
        commit. ``results``: the game ended with these (for /game stats); ``settle_undo``: the
        session's undo request is settled by this change."""
        await self._commit_move(
            MoveWrite(
                session_id=session_id,
                version=version,
                state=state,
                status=status,
                outcome=outcome,
                announced=announced,
                actions=new_actions,
                posts=posts or [],
                timers=None if keep_timers else (timers or []),
                settle_undo=settle_undo,
                results=results or [],
            )
        )

    async def _commit_move(self, move: MoveWrite) -> None:
        """A backend may write many moves at once (PostgreSQL: one statement for them all)."""
        await self._write(functools.partial(self._write_move, move))

    async def _write_move(self, move: MoveWrite, tx: Tx) -> None:
        session_id = move.session_id
        # The guarded UPDATE comes first: a stale version fails before anything is written.
        cols: dict[str, Any] = {"state": move.state, "status": move.status, "outcome": move.outcome}
        if move.announced is not None:
            cols["announced"] = move.announced
        await self._bump(tx, session_id, move.version, **cols)
        now = time.time()
        rated: rating_sql.Changes = {}
        for r in move.results:
            await _insert_result(tx, session_id, r, now)
        if move.results:
            await _add_to_totals(tx, session_id)
            rated = await rating_sql.rate_session(tx, session_id, self._for_update)
        await self._insert_posts(tx, session_id, _with_ratings(move.posts, rated))
        for a in move.actions:  # the next seq is computed in the INSERT: one trip each
            await tx.execute(
                "INSERT INTO actions (session_id, seq, player, action, source, created_at, "
                "undoes) SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ? FROM actions "
                "WHERE session_id = ?",
                (session_id, a.player, json.dumps(a.action), a.source, now, a.undoes, session_id),
            )
        if move.settle_undo:
            await tx.execute("DELETE FROM undo_requests WHERE session_id = ?", (session_id,))
        if move.timers is not None:
            await tx.execute("DELETE FROM timers WHERE session_id = ?", (session_id,))
            for t in move.timers:
                await tx.execute(
                    "INSERT INTO timers (session_id, kind, key, due_at) VALUES (?, ?, ?, ?)",
                    (session_id, t.kind, t.key, t.due_at),
                )

    async def set_status(
        self,
        session_id: int,
        version: int,
        status: str,
        *,
        note: str | None = None,
        posts: list[NewPost] | None = None,
    ) -> None:
        async with self._transaction() as tx:
            cols: dict[str, Any] = {"status": status}
            if note is not None:
                cols["note"] = note
            await self._bump(tx, session_id, version, **cols)
            if status in ("finished", "abandoned"):
                await tx.execute("DELETE FROM timers WHERE session_id = ?", (session_id,))
                await tx.execute("DELETE FROM undo_requests WHERE session_id = ?", (session_id,))
            await self._insert_posts(tx, session_id, posts or [])

    async def _insert_posts(self, tx: Tx, session_id: int, posts: list[NewPost]) -> None:
        if posts:
            self._outbox_empty.discard(session_id)
        now = time.time()
        for post in posts:
            hold = float(post.payload.get("hold", 0.0))  # waits for later posts to join it
            await tx.execute(
                "INSERT INTO outbox (session_id, target, payload, created_at, next_attempt_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (session_id, post.target, json.dumps(post.payload), now, now + hold),
            )

    async def post_and_delete_timer(
        self, session_id: int, kind: str, key: str, posts: list[NewPost]
    ) -> bool:
        """Replace a fired timer by what it must post, in one transaction (a reminder is
        either still due or in the outbox, never lost between the two). Deleting the row is
        the claim: when it is already gone (fired by another process), nothing is posted and
        this returns False."""

        async def work(tx: Tx) -> bool:
            deleted = await tx.execute(
                "DELETE FROM timers WHERE session_id = ? AND kind = ? AND key = ?",
                (session_id, kind, key),
            )
            if deleted:
                await self._insert_posts(tx, session_id, posts)
            return deleted > 0

        return await self._write(work)

    # -- undo requests ---------------------------------------------------------------------------
    async def undo_request(self, session_id: int) -> UndoRequestRow | None:
        row = await self._one("SELECT * FROM undo_requests WHERE session_id = ?", (session_id,))
        return row_of(UndoRequestRow, row) if row else None

    async def undo_requests_due(self, now: float) -> list[UndoRequestRow]:
        rows = await self._fetch(
            "SELECT * FROM undo_requests WHERE due_at <= ? ORDER BY due_at", (now,)
        )
        return [row_of(UndoRequestRow, r) for r in rows]

    async def next_undo_due(self) -> float | None:
        row = await self._one("SELECT MIN(due_at) AS due FROM undo_requests")
        return float(row["due"]) if row and row["due"] is not None else None

    async def ask_undo(self, request: UndoRequestRow, posts: list[NewPost]) -> None:
        """Store a request (refused if the session has one already) and what it posts."""
        try:
            async with self._transaction() as tx:
                await tx.execute(
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
                await self._insert_posts(tx, request.session_id, posts)
        except self._conflicts:
            raise NotAllowed(
                "Someone's undo is already being asked at this table: wait until it is settled."
            ) from None

    async def agree_undo(self, session_id: int, seq: int, user_id: str) -> list[str] | None:
        """Add ``user_id`` to those who agreed to the undo of move ``seq``, in one statement
        (two players agreeing at once, through two processes, are both counted). Returns who
        agreed so far; None when that request is over."""

        async def work(tx: Tx) -> list[str] | None:
            rows = await tx.fetch(
                "UPDATE undo_requests SET agreed = CASE WHEN agreed = '' THEN CAST(? AS TEXT) "
                "WHEN (',' || agreed || ',') LIKE ('%,' || CAST(? AS TEXT) || ',%') THEN agreed "
                "ELSE agreed || ',' || CAST(? AS TEXT) END WHERE session_id = ? AND seq = ? "
                "RETURNING agreed",
                (user_id, user_id, user_id, session_id, seq),
            )
            return [p for p in str(rows[0]["agreed"]).split(",") if p] if rows else None

        return await self._write(work)

    async def drop_undo(self, session_id: int, posts: list[NewPost]) -> bool:
        """The request is settled without an undo (refused, or no longer possible). Deleting
        the row is the claim: when it is already gone (settled by another process), nothing is
        posted and this returns False."""

        async def work(tx: Tx) -> bool:
            deleted = await tx.execute(
                "DELETE FROM undo_requests WHERE session_id = ?", (session_id,)
            )
            if deleted:
                await self._insert_posts(tx, session_id, posts)
            return deleted > 0

        return await self._write(work)

    # -- the outbox ------------------------------------------------------------------------------
    async def unsent_posts(self, session_id: int) -> list[PostRow]:
        if session_id in self._outbox_empty:
            return []
        rows = await self._fetch(
            "SELECT * FROM outbox WHERE session_id = ? AND sent_at IS NULL ORDER BY id",
            (session_id,),
        )
        if not rows and not self.shared:
            self._outbox_empty.add(session_id)
        return [row_of(PostRow, r) for r in rows]

    async def sessions_with_posts_due(self, now: float) -> list[int]:
        rows = await self._fetch(
            "SELECT DISTINCT session_id FROM outbox WHERE sent_at IS NULL AND next_attempt_at <= ? "
            "AND (claimed_until IS NULL OR claimed_until < ? OR claimed_by = ?) ORDER BY session_id",
            (now, now, self.process_id),
        )
        return [int(r["session_id"]) for r in rows]

    async def next_post_due(self) -> float | None:
        """When the next unsent post may be tried (by this process or, its claim over, any)."""
        row = await self._one(
            "SELECT MIN(CASE WHEN claimed_until > next_attempt_at AND claimed_by <> ? "
            "THEN claimed_until ELSE next_attempt_at END) AS due FROM outbox WHERE sent_at IS NULL",
            (self.process_id,),
        )
        return float(row["due"]) if row and row["due"] is not None else None

    async def mark_posted(
        self, post_ids: list[int], message_id: int | None, *, failure: str | None = None
    ) -> None:
        """Done with posts sent as one message (with its id), or given up (``failure`` says
        why): in one transaction, so a crash never leaves part of a message's posts unsent (they
        would go again as another message)."""
        now = time.time()

        async def work(tx: Tx) -> None:
            for post_id in post_ids:
                await tx.execute(
                    "UPDATE outbox SET sent_at = ?, message_id = ?, failure = ? WHERE id = ?",
                    (now, message_id, failure, post_id),
                )

        await self._write(work)

    async def retry_post_later(self, post_id: int, at: float, failure: str) -> None:
        await self._run(
            "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, failure = ? "
            "WHERE id = ?",
            (at, failure, post_id),
        )

    async def posts(self, session_id: int) -> list[PostRow]:
        """Every post of a session, sent or not (for tests and inspection)."""
        rows = await self._fetch(
            "SELECT * FROM outbox WHERE session_id = ? ORDER BY id", (session_id,)
        )
        return [row_of(PostRow, r) for r in rows]

    async def delete_timer(self, session_id: int, kind: str, key: str) -> None:
        shown = self.shared and kind == "deadline"

        async def work(tx: Tx) -> None:
            deleted = await tx.execute(
                "DELETE FROM timers WHERE session_id = ? AND kind = ? AND key = ?",
                (session_id, kind, key),
            )
            if deleted and shown:  # the table shows the deadline: see shift_timers
                await tx.execute(
                    "UPDATE sessions SET shown = shown + 1 WHERE id = ?", (session_id,)
                )

        await self._write(work)

    async def shift_timers(self, session_ids: list[int], after: float, by: float) -> None:
        """Push back timers of these sessions that were still pending at ``after`` by ``by``."""
        if not session_ids or by <= 0:
            return
        marks = ",".join("?" for _ in session_ids)
        async with self._transaction() as tx:
            await tx.execute(
                f"UPDATE timers SET due_at = due_at + ? WHERE due_at > ? "
                f"AND session_id IN ({marks})",
                (by, after, *session_ids),
            )
            if self.shared:
                # The deadlines a table shows changed without a new version: `shown` tells the
                # processes that cached them (the session service's deadline cache).
                await tx.execute(
                    f"UPDATE sessions SET shown = shown + 1 WHERE id IN ({marks})", session_ids
                )

    # Presentation bookkeeping: these do not change game state, so they do not bump the version
    # (they bump `shown`, so a process sharing the database reads them again).
    async def set_table_message(self, session_id: int, message_id: int | None) -> int | None:
        """Returns the new ``shown`` when the store is shared (else None)."""

        async def work(tx: Tx) -> int | None:
            rows = await tx.fetch(
                "UPDATE sessions SET table_message_id = ?, shown = shown + 1 WHERE id = ? "
                "RETURNING shown",
                (message_id, session_id),
            )
            return int(rows[0]["shown"]) if rows and self.shared else None

        return await self._write(work)

    async def enqueue_announcements(
        self, session_id: int, version: int, first: int, announcements: list[dict[str, Any]]
    ) -> None:
        """Put announcements ``first``… of a stored state in the outbox (a database written
        before the outbox existed may hold some not yet posted)."""
        async with self._transaction() as tx:
            await self._bump(tx, session_id, version, announced=first + len(announcements))
            await self._insert_posts(
                tx, session_id, [NewPost({"announcement": a}) for a in announcements]
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
    ) -> int | None:
        """Returns the new ``shown`` when the store is shared (else None)."""
        shared = self.shared

        async def work(tx: Tx) -> int | None:
            await tx.execute(
                "UPDATE players SET dm_channel_id = ?, dm_message_id = ?, dm_stamp = ?, "
                "dm_digest = ? WHERE session_id = ? AND user_id = ?",
                (channel_id, message_id, stamp, digest, session_id, user_id),
            )
            if not shared:  # one owner: nobody else caches this session
                return None
            rows = await tx.fetch(
                "UPDATE sessions SET shown = shown + 1 WHERE id = ? RETURNING shown", (session_id,)
            )
            return int(rows[0]["shown"]) if rows else None

        return await self._write(work)

    # -- copying a whole database (migrate-db) ---------------------------------------------------
    async def count_rows(self, table: str) -> int:
        row = await self._one(f"SELECT COUNT(*) AS n FROM {_data_table(table)}")
        return int(row["n"]) if row else 0

    async def dump_table(self, table: str) -> list[Record]:
        # Sessions in id order: a rematch names an older session (a foreign key).
        order = " ORDER BY id" if table in ("sessions", "outbox") else ""
        return await self._fetch(f"SELECT * FROM {_data_table(table)}{order}")

    async def load_tables(self, tables: dict[str, list[Record]]) -> None:
        """Insert these rows as they are (ids included), in one transaction."""
        self._outbox_empty.clear()
        async with self._transaction() as tx:
            for table, rows in tables.items():
                for row in rows:
                    columns = list(row)
                    await tx.execute(
                        f"INSERT INTO {_data_table(table)} ({', '.join(columns)}) "
                        f"VALUES ({', '.join('?' for _ in columns)})",
                        [row[c] for c in columns],
                    )
            await self._after_load(tx)

    async def _after_load(self, tx: Tx) -> None:
        """After rows were inserted with their ids: new rows must get ids after them."""
        return None  # SQLite: a rowid is always past the largest

    async def raw_execute(self, sql: str, args: Iterable[Any] = ()) -> None:
        """For tests that damage a database on purpose."""
        await self._run(sql, args)


_AGGREGATES = (
    "COUNT(*) AS games, SUM(won) AS wins, MAX(score) AS best, AVG(score) AS average, "
    "MAX(cooperative) AS cooperative"
)


# The win board's order (wins, win rate, games, user), as the result_totals_board index has it
# (the same expression, so the index serves the ORDER BY and the LIMIT stops the scan).
TOTALS_ORDER = "wins DESC, 1.0 * wins / games DESC, games DESC, user_id"
ALL_GAMES = "*"  # result_totals' game_id of a player's totals over every game
_TOTALS_COLUMNS = "guild_id, game_id, user_id, games, wins, best, score_sum, cooperative"
# A game's results added to its players' totals: each (server, game, player) and
# (server, '*', player) row created or added to, in user order (PostgreSQL: games ending at
# once lock their players' rows in the same order). A game without a server is on no board.
_ADD_TO_TOTALS = (
    f"INSERT INTO result_totals ({_TOTALS_COLUMNS}) "
    "SELECT guild_id, {game}, user_id, 1, won, score, score, cooperative FROM results "
    "WHERE session_id = ? AND guild_id IS NOT NULL ORDER BY user_id "
    "ON CONFLICT (guild_id, game_id, user_id) DO UPDATE SET "
    "games = result_totals.games + 1, wins = result_totals.wins + excluded.wins, "
    "best = CASE WHEN excluded.best > result_totals.best THEN excluded.best "
    "ELSE result_totals.best END, "
    "score_sum = result_totals.score_sum + excluded.score_sum, "
    "cooperative = CASE WHEN excluded.cooperative > result_totals.cooperative "
    "THEN excluded.cooperative ELSE result_totals.cooperative END"
)
# Every total from the results (migration 10 fills the table with the same statements).
_FILL_TOTALS = (
    f"INSERT INTO result_totals ({_TOTALS_COLUMNS}) "
    "SELECT guild_id, {game}, user_id, COUNT(*), SUM(won), MAX(score), SUM(score), "
    "MAX(cooperative) FROM results WHERE guild_id IS NOT NULL GROUP BY guild_id, {group}user_id"
)


async def _add_to_totals(tx: Tx, session_id: int) -> None:
    """The game's results rows (just written) counted in its players' totals."""
    for game in ("game_id", f"'{ALL_GAMES}'"):
        await tx.execute(_ADD_TO_TOTALS.format(game=game), (session_id,))


async def _refill_totals(tx: Tx) -> None:
    """The totals again from the results (rebuild-ratings): they must agree with them."""
    await tx.execute("DELETE FROM result_totals")
    await tx.execute(_FILL_TOTALS.format(game="game_id", group="game_id, "))
    await tx.execute(_FILL_TOTALS.format(game=f"'{ALL_GAMES}'", group=""))


def _totals_row(row: Record) -> StatRow:
    """A leaderboard line from a totals row; the average is the exact quotient, as AVG gives."""
    games = int(row["games"])
    return StatRow(
        key=str(row["stat_key"]),
        games=games,
        wins=int(row["wins"]),
        best=int(row["best"]),
        average=int(row["score_sum"]) / games,
        cooperative=bool(row["cooperative"]),
    )


def _stat_row(row: Record) -> StatRow:
    return StatRow(
        key=str(row["stat_key"]),
        games=int(row["games"]),
        wins=int(row["wins"]),
        best=int(row["best"]),
        average=float(row["average"]),
        cooperative=bool(row["cooperative"]),
    )


async def _insert_result(tx: Tx, session_id: int, r: NewResult, finished_at: float) -> None:
    """One player's result, in the season open in the session's server (if any)."""
    await tx.execute(
        "INSERT INTO results (session_id, user_id, guild_id, game_id, score, won, cooperative, "
        "finished_at, rated_as, level, season_id) SELECT id, ?, guild_id, game_id, ?, ?, ?, ?, "
        "?, ?, (SELECT s.id FROM seasons s WHERE s.guild_id = sessions.guild_id "
        "AND s.ended_at IS NULL) FROM sessions WHERE id = ?",
        (
            r.user_id,
            r.score,
            int(r.won),
            int(r.cooperative),
            finished_at,
            r.rated_as,
            r.level,
            session_id,
        ),
    )


def _with_ratings(posts: list[NewPost], rated: rating_sql.Changes) -> list[NewPost]:
    """The final post, with each rated player's rating before and after (as ordinals)."""
    if not rated:
        return posts
    changes = {key: [old.ordinal, new.ordinal] for key, (old, new) in rated.items()}
    return [
        NewPost({**p.payload, "result": {**p.payload["result"], "ratings": changes}}, p.target)
        if "result" in p.payload
        else p
        for p in posts
    ]


async def _backfill_results(tx: Tx) -> None:
    """Migration 7: the results of the games finished before it (outcomes parsed here, in
    Python: no database's JSON functions needed)."""
    rows = await tx.fetch(
        "SELECT id, outcome, updated_at FROM sessions WHERE status = 'finished' "
        "AND outcome IS NOT NULL ORDER BY id"
    )
    for row in rows:
        try:
            outcome = json.loads(row["outcome"])
            scores = {str(p): int(s) for p, s in outcome["scores"].items()}
            winners = {str(p) for p in outcome.get("winners", [])}
            cooperative = bool(outcome.get("cooperative", False))
        except (ValueError, KeyError, TypeError, AttributeError):
            continue  # a damaged outcome counts for nothing
        for user_id, score in scores.items():
            # Migration 7's columns only (migration 9 adds more, and backfills them).
            await tx.execute(
                "INSERT INTO results (session_id, user_id, guild_id, game_id, score, won, "
                "cooperative, finished_at) SELECT id, ?, guild_id, game_id, ?, ?, ?, ? "
                "FROM sessions WHERE id = ?",
                (
                    user_id,
                    score,
                    int(user_id in winners),
                    int(cooperative),
                    float(row["updated_at"]),
                    int(row["id"]),
                ),
            )


# Python steps of migrations (backfills), by migration number: run after its SQL, in its
# transaction.
BACKFILLS: dict[int, Callable[[Tx], Awaitable[None]]] = {
    7: _backfill_results,
    9: rating_sql.backfill,
}


def _data_table(name: str) -> str:
    if name not in DATA_TABLES:
        raise ValueError(f"not a cafebot table: {name!r}")
    return name

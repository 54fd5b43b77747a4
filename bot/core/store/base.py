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

The parts of :class:`Store`, each a class it inherits, one module each: ``core`` (the
primitives), ``reads``, ``writes``, ``pending`` (timers, posts, undo requests, claims) and
``standings``; here the schema and a whole database's copy.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from bot.core.store import rating_sql
from bot.core.store.core import Record, Tx
from bot.core.store.migrations import MIGRATIONS, SCHEMA_VERSION
from bot.core.store.pending import Pending
from bot.core.store.reads import Reads
from bot.core.store.rows import NewerDatabase
from bot.core.store.standings import Standings
from bot.core.store.writes import Writes

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


class Store(Reads, Writes, Pending, Standings):
    """The only code that talks SQL."""

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

    async def raw_execute(self, sql: str, args: Iterable[Any] = ()) -> None:
        """For tests that damage a database on purpose."""
        await self._run(sql, args)


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

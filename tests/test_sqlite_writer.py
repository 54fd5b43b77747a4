"""SQLite's writer off the event loop's critical path: a group commit's callers are resumed a few
at a time, a turn of the loop apart (not all in one turn), the WAL is copied into the
database in the reader's thread (not by a COMMIT that every waiting move waits for), and the
bot's process hands the GIL to the database's thread within half a millisecond; a move writes no
more of the session's row than it changes."""

from __future__ import annotations

import asyncio
import gc
import random
import shutil
import sqlite3
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest

from bot.app import GC_THRESHOLDS, SWITCH_INTERVAL, tune_process
from bot.core.sessions import SessionService
from bot.core.store.sqlite import TELL_AT_ONCE, WAL_BACKSTOP_PAGES, SqliteStore


async def test_a_group_s_callers_are_resumed_a_few_per_turn(tmp_path: Path) -> None:
    store = await SqliteStore.open(tmp_path / "t.sqlite3")
    try:
        await store.raw_execute("CREATE TABLE t (n INTEGER)")
        turn = 0

        def count_turns() -> None:  # one call per turn of the loop
            nonlocal turn
            turn += 1
            loop.call_soon(count_turns)

        loop = asyncio.get_running_loop()
        resumed: list[int] = []

        async def insert(n: int) -> None:
            await store._run("INSERT INTO t VALUES (?)", (n,))
            resumed.append(turn)

        loop.call_soon(count_turns)
        groups = TELL_AT_ONCE * 2 + 1
        await asyncio.gather(*(insert(n) for n in range(groups)))  # queued together: one group
        per_turn = Counter(resumed)
        assert sorted(per_turn.values(), reverse=True) == [TELL_AT_ONCE, TELL_AT_ONCE, 1]
        first = min(per_turn)
        assert sorted(per_turn) == [first, first + 1, first + 2]  # consecutive turns
        assert await store._fetch("SELECT COUNT(*) AS n FROM t") == [{"n": groups}]
    finally:
        await store.close()


async def test_the_wal_reaches_the_database_file_in_the_background(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    store = await SqliteStore.open(path)
    try:
        assert await store._fetch("PRAGMA wal_autocheckpoint") == [
            {"wal_autocheckpoint": WAL_BACKSTOP_PAGES}
        ]
        store.checkpoint_every = 0.0  # after every group commit
        await store.raw_execute("CREATE TABLE t (n INTEGER)")
        for n in range(3):
            assert store._checkpoint is not None
            await store._checkpoint  # the previous write's
            await store._run("INSERT INTO t VALUES (?)", (n,))
        assert store._checkpoint is not None
        await store._checkpoint
        assert store.checkpoints == 4
        # The database file alone (its WAL left behind) holds every row: nothing was left for
        # a writer's checkpoint to copy, and the writer's own starts only past the backstop.
        alone = tmp_path / "copy.sqlite3"
        shutil.copyfile(path, alone)
        copy = sqlite3.connect(alone)
        try:
            assert copy.execute("SELECT n FROM t ORDER BY n").fetchall() == [(0,), (1,), (2,)]
        finally:
            copy.close()
    finally:
        await store.close()


async def test_no_background_checkpoint_sooner_than_its_interval(tmp_path: Path) -> None:
    store = await SqliteStore.open(tmp_path / "t.sqlite3")
    try:
        store.checkpoint_every = 3600.0
        await store.raw_execute("CREATE TABLE t (n INTEGER)")
        for n in range(5):
            await store._run("INSERT INTO t VALUES (?)", (n,))
        assert store._checkpoint is None and store.checkpoints == 0
    finally:
        await store.close()


def test_the_bot_s_process_hands_the_gil_over_sooner() -> None:
    before, thresholds = sys.getswitchinterval(), gc.get_threshold()
    try:
        tune_process()  # what run_bot does first
        assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL)
        assert sys.getswitchinterval() < 0.005 / 5  # Python's default is 5 ms
        assert gc.get_threshold() == GC_THRESHOLDS
    finally:
        sys.setswitchinterval(before)
        gc.set_threshold(*thresholds)


async def test_a_move_leaves_the_status_and_its_indexes_alone(tmp_path: Path) -> None:
    """A move that keeps the game going does not write its status again (SQLite would rewrite
    the three indexes on it, each a page more in the WAL); the move that ends it does."""
    store = await SqliteStore.open(tmp_path / "t.sqlite3")
    service = SessionService(store)
    try:
        ids = ["1", "2", "3"]
        s = await service.create(
            game_id="cafe-carnage", channel_id=1, guild_id=1, host_id="1", host_name="H", seed=7
        )
        for pid in ids[1:]:
            await service.join(s.id, pid, pid)
        s = await service.start(s.id, "1")
        updates: list[str] = []

        def trace(sql: str) -> None:
            if sql.startswith("UPDATE sessions SET state"):
                updates.append(sql.split(" WHERE ")[0])

        raw = store._conn._conn
        await store._conn._execute(raw.set_trace_callback, trace)
        rng = random.Random(7)
        while s.status == "active":
            assert s.state is not None
            player = rng.choice(sorted(s.game.active_players(s.state)))
            action = rng.choice(list(s.game.legal_actions(s.state, player)))
            s = (await service.act(s.id, player, action)).session
        await store._conn._execute(raw.set_trace_callback, None)
        assert len(updates) > 10
        assert not any("status" in u or "outcome" in u for u in updates[:-1])
        assert "status = 'finished'" in updates[-1] and "outcome = '{" in updates[-1]
        row = await store.get_session(s.id)
        assert row is not None and row.status == "finished" and row.outcome == s.row.outcome
        assert await service.replay(s.id) == s.state
    finally:
        await store.close()


async def test_a_group_s_statements_run_on_the_loop_and_only_its_commit_in_the_thread(
    tmp_path: Path,
) -> None:
    """A trip to the database thread per statement cost a thread's wake-up and the GIL handed
    back and forth; a group's statements (and short reads) run on the loop's side, and the
    database thread takes only the COMMIT, whose fsync waits for the disk."""
    store = await SqliteStore.open(tmp_path / "t.sqlite3")
    try:
        await store.raw_execute("CREATE TABLE t (n INTEGER)")
        ran: list[tuple[str, int]] = []
        raw = store._conn._conn
        await store._conn._execute(
            raw.set_trace_callback, lambda sql: ran.append((sql, threading.get_ident()))
        )
        loop_thread = threading.get_ident()
        await asyncio.gather(*(store._run("INSERT INTO t VALUES (?)", (n,)) for n in range(5)))
        assert await store._fetch("SELECT COUNT(*) AS n FROM t") == [{"n": 5}]
        await store._conn._execute(raw.set_trace_callback, None)
        where = {sql.split()[0]: thread for sql, thread in ran}
        assert [sql.split()[0] for sql, _ in ran] == ["BEGIN", *["INSERT"] * 5, "COMMIT", "SELECT"]
        assert where["BEGIN"] == where["INSERT"] == where["SELECT"] == loop_thread
        assert where["COMMIT"] != loop_thread
    finally:
        await store.close()


async def test_a_move_called_plainly_writes_what_its_coroutine_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move without results is a plain function the group calls (no coroutine per statement):
    it writes what the coroutine path (a game's last move's) writes, and a stale one in the same
    group is refused alone, with nothing written."""
    from bot.core.errors import StaleWrite
    from bot.core.store.writes import Writes
    from tests.test_pg_batches import a_move, written
    from tests.test_store import started

    store = await SqliteStore.open(tmp_path / "t.sqlite3")
    service = SessionService(store)
    try:
        reference, a, b, c = [await started(service, channel=700 + n) for n in range(4)]
        await Writes._commit_move(store, a_move(reference))  # the coroutine, run by the group
        expected = await written(service, reference.id)
        before = await written(service, b.id)

        def no_coroutine(*args: object) -> None:
            raise AssertionError("a move without results went through _write_move")

        monkeypatch.setattr(store, "_write_move", no_coroutine)
        results = await asyncio.gather(
            store._commit_move(a_move(a)),
            store._commit_move(a_move(b, version=b.version - 1)),
            store._commit_move(a_move(c)),
            return_exceptions=True,
        )
        assert results[0] is None and results[2] is None
        assert isinstance(results[1], StaleWrite)
        assert await written(service, a.id) == expected == await written(service, c.id)
        assert await written(service, b.id) == before
    finally:
        await store.close()

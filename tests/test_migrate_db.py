"""`python -m bot migrate-db`: an existing SQLite database copied to PostgreSQL, checked by
replaying every session, and the games going on there."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.core.migrate import _copy_and_check
from bot.core.sessions import SessionService
from bot.core.store import SessionStatus, open_store
from bot.core.store.sqlite import SqliteStore
from tests.pg_server import PostgresServer
from tests.test_store import play_random, started


async def make_source(path: Path) -> dict[str, int]:
    """A database as a bot leaves it: a finished game, one in play (timers, posts), a lobby,
    an abandoned game."""
    store = await SqliteStore.open(path)
    service = SessionService(store)
    finished = await play_random(service, await started(service, channel=1), seed=1)
    playing = await play_random(service, await started(service, channel=2), seed=2, limit=7)
    lobby = await service.create(
        game_id="monster-cafe", channel_id=3, guild_id=1, host_id="9", host_name="H", seed=3
    )
    gone = await started(service, channel=4)
    await service.abandon(gone.id, gone.row.host_id, may_manage=False)
    await store.set_meta("last_alive", "1800000000.0")
    await store.close()
    assert finished.status == "finished" and playing.status == "active"
    return {"finished": finished.id, "playing": playing.id, "lobby": lobby.id}


def test_sqlite_to_postgres_copies_checks_and_plays_on(
    tmp_path: Path, pg_server: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "cafebot.sqlite3"
    ids = asyncio.run(make_source(source))
    target = asyncio.run(pg_server.new_database())
    assert main(["migrate-db", "--from", f"sqlite:///{source}", "--to", target]) == 0
    out = capsys.readouterr().out
    assert "copied 4 sessions" in out
    assert "3 session(s) replayed to their stored state, 1 lobby(ies)" in out

    async def play_on() -> None:
        store = await open_store(target)
        try:
            service = SessionService(store)
            s = await service.load(ids["playing"])
            assert {t.kind for t in await store.timers(s.id)} == {"deadline", "reminder"}
            s = await play_random(service, s, seed=5)
            assert s.status is SessionStatus.FINISHED
            assert await service.replay(s.id) == s.state
            fresh = await service.create(
                game_id="cafe-carnage", channel_id=2, guild_id=1, host_id="1", host_name="H"
            )
            assert fresh.id == 5  # ids go on after the copied ones
            assert await store.get_meta("last_alive") == "1800000000.0"
        finally:
            await store.close()

    asyncio.run(play_on())
    # Copying again into the same database is refused: it is not empty any more.
    assert main(["migrate-db", "--from", f"sqlite:///{source}", "--to", target]) == 2
    assert "already holds 5 session(s)" in capsys.readouterr().err


def test_a_running_bot_or_a_bad_url_is_refused(
    tmp_path: Path, pg_server: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "cafebot.sqlite3"
    asyncio.run(make_source(source))
    target = asyncio.run(pg_server.new_database())

    async def while_owned() -> int:
        owner = await SqliteStore.open(source, owner=True)  # the bot is still running on it
        try:
            return await asyncio.to_thread(
                main, ["migrate-db", "--from", f"sqlite:///{source}", "--to", target]
            )
        finally:
            await owner.close()

    assert asyncio.run(while_owned()) == 2
    assert "another cafebot process is already running" in capsys.readouterr().err
    assert main(["migrate-db", "--from", str(source), "--to", target]) == 2
    assert "expected sqlite:///" in capsys.readouterr().err


def test_a_copy_that_lost_a_row_is_reported(tmp_path: Path, pg_server: PostgresServer) -> None:
    """The check can fail: a copy that drops the last action of the game in play."""
    source_path = tmp_path / "cafebot.sqlite3"
    ids = asyncio.run(make_source(source_path))

    async def copy_losing_a_row() -> list[str]:
        source = await open_store(f"sqlite:///{source_path}")
        target = await open_store(await pg_server.new_database())
        load = target.load_tables

        async def lossy(tables: dict[str, list[dict[str, object]]]) -> None:
            actions = tables["actions"]
            last = max(
                (a for a in actions if a["session_id"] == ids["playing"]),
                key=lambda a: int(str(a["seq"])),
            )
            await load({**tables, "actions": [a for a in actions if a is not last]})

        target.load_tables = lossy  # type: ignore[method-assign]
        try:
            return (await _copy_and_check(source, target, print)).problems
        finally:
            await source.close()
            await target.close()

    problems = asyncio.run(copy_losing_a_row())
    assert any(p.startswith("actions:") for p in problems)
    assert f"session #{ids['playing']} replays to another state" in problems


def source_files(path: Path) -> dict[str, bytes]:
    """The bytes of a SQLite database and of its WAL files, by name (those present)."""
    names = [path.name, path.name + "-wal", path.name + "-shm"]
    return {n: (path.parent / n).read_bytes() for n in names if (path.parent / n).exists()}


def test_a_missing_source_is_refused_and_not_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue: a missing source was created empty, and "the copy is complete" said, exit 0."""
    missing = tmp_path / "missing.sqlite3"
    target = tmp_path / "target.sqlite3"
    code = main(["migrate-db", "--from", f"sqlite:///{missing}", "--to", f"sqlite:///{target}"])
    captured = capsys.readouterr()
    assert code == 2, captured.out
    assert f"no database at {missing}" in captured.err
    assert "Traceback" not in captured.err and "complete" not in captured.out
    assert not missing.exists()
    assert not list(tmp_path.glob("missing.sqlite3*")), "nothing is created beside it either"


def test_the_source_is_left_byte_identical_by_a_copy_and_by_a_refused_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue: every run, even a refused one, rewrote the source's meta.opened_at."""
    source = tmp_path / "cafebot.sqlite3"
    asyncio.run(make_source(source))
    before = source_files(source)
    assert before.keys() == {source.name}
    target = tmp_path / "copy.sqlite3"
    args = ["migrate-db", "--from", f"sqlite:///{source}", "--to", f"sqlite:///{target}"]
    assert main(args) == 0
    assert "3 session(s) replayed to their stored state" in capsys.readouterr().out
    assert source_files(source) == before
    assert main(args) == 2  # refused: the target is not empty any more
    assert "already holds 4 session(s)" in capsys.readouterr().err
    assert source_files(source) == before


def test_a_source_of_an_older_schema_is_migrated_in_memory_and_left_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "old.sqlite3"
    asyncio.run(make_source(source))

    async def make_older() -> None:  # as schema version 7 left it: no undo requests yet
        store = await SqliteStore.open(source)
        await store.raw_execute("DROP TABLE undo_requests")
        for statement in (  # nor seasons and ratings (migration 9), nor totals (10); and
            # the history index that 11 drops is still there
            "CREATE INDEX sessions_guild_ended ON sessions(guild_id, updated_at)",
            "DROP TABLE result_totals",
            "DROP TABLE rating_changes",
            "DROP TABLE ratings",
            "DROP TABLE seasons",
            "DROP INDEX results_rating_order",
            "DROP TABLE levels",
            "ALTER TABLE results DROP COLUMN rated_as",
            "ALTER TABLE results DROP COLUMN season_id",
            "ALTER TABLE results DROP COLUMN level",
        ):
            await store.raw_execute(statement)
        await store.raw_execute("UPDATE schema_version SET version = 7")
        await store.close()

    asyncio.run(make_older())
    before = source_files(source)
    target = tmp_path / "copy.sqlite3"
    args = ["migrate-db", "--from", f"sqlite:///{source}", "--to", f"sqlite:///{target}"]
    assert main(args) == 0, capsys.readouterr().err
    assert "3 session(s) replayed to their stored state" in capsys.readouterr().out
    assert source_files(source) == before


def test_a_postgres_source_is_only_read(
    tmp_path: Path, pg_server: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """A PostgreSQL source is read in read-only transactions: copied back to SQLite, checked,
    and as it was (the copy could not write to it if it tried)."""
    source = tmp_path / "cafebot.sqlite3"
    asyncio.run(make_source(source))
    middle = asyncio.run(pg_server.new_database())
    assert main(["migrate-db", "--from", f"sqlite:///{source}", "--to", middle]) == 0
    capsys.readouterr()

    async def dump() -> dict[str, list[dict[str, object]]]:
        store = await open_store(middle)
        try:
            return {t: await store.dump_table(t) for t in ("sessions", "actions", "meta")}
        finally:
            await store.close()

    before = asyncio.run(dump())
    back = tmp_path / "back.sqlite3"
    assert main(["migrate-db", "--from", middle, "--to", f"sqlite:///{back}"]) == 0
    assert "3 session(s) replayed to their stored state" in capsys.readouterr().out
    assert asyncio.run(dump()) == before

    async def write_to_source() -> None:
        store = await open_store(middle, read_only=True)
        try:
            await store.set_meta("opened_at", "1")
        finally:
            await store.close()

    with pytest.raises(Exception, match="read-only transaction"):
        asyncio.run(write_to_source())

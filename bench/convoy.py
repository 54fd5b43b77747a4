"""SQLite's group commit while the event loop is busy: how long a commit takes in the database
thread at Python's default switch interval (5 ms) and at the bot's (``bot.app.SWITCH_INTERVAL``).

The database thread gives the GIL up for its COMMIT and must take it back after; while the
loop runs clicks (Python all along), each take waits for the switch interval. (A group's
statements run on the loop's side, see ``SqliteStore._flush``: they wait for no GIL.) 100 writers each
write a move (an UPDATE of a 5 KB row, two INSERTs, a SELECT: a move's statements) then spend
1 ms of CPU on the loop (the click's answer), 40 times. Runs alternate between the two intervals
(each in its own process, a file on the disk, synchronous=FULL as the bot), and the medians of
each figure are printed. Run by hand:

    .venv/bin/python bench/convoy.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WRITERS, MOVES, CLICK_CPU = 100, 40, 0.001


async def one_run(interval: float, folder: Path) -> dict[str, float]:
    from bot.core.store.core import Tx
    from bot.core.store.sqlite import SqliteStore

    sys.setswitchinterval(interval)
    store = await SqliteStore.open(folder / "convoy.sqlite3")
    await store.raw_execute("CREATE TABLE log (n INTEGER, s TEXT)")
    await store.raw_execute("CREATE TABLE state (n INTEGER PRIMARY KEY, s TEXT)")
    for n in range(WRITERS):
        await store.raw_execute("INSERT INTO state VALUES (?, ?)", (n, "x" * 5000))
    commits: list[tuple[float, int]] = []
    commit_group = SqliteStore._commit_group

    def timed(self: SqliteStore, size: int) -> None:
        began = time.perf_counter()
        try:
            commit_group(self, size)
        finally:
            commits.append((time.perf_counter() - began, size))

    SqliteStore._commit_group = timed  # type: ignore[method-assign]

    async def move(tx: Tx, n: int) -> None:
        await tx.execute("UPDATE state SET s = ? WHERE n = ?", ("y" * 5000, n))
        await tx.execute("INSERT INTO log VALUES (?, ?)", (n, "a" * 100))
        await tx.execute("INSERT INTO log VALUES (?, ?)", (n, "b" * 100))
        await tx.fetch("SELECT n FROM state WHERE n = ?", (n,))

    async def writer(n: int) -> None:
        for _ in range(MOVES):
            await store._write(lambda tx: move(tx, n))
            began = time.perf_counter()
            while time.perf_counter() - began < CLICK_CPU:  # the click's answer, on the loop
                pass

    started, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(writer(n) for n in range(WRITERS)))
    elapsed = time.perf_counter() - started
    await store.close()
    took = sorted(ms * 1000 for ms, _ in commits)
    return {
        "moves/s": WRITERS * MOVES / elapsed,
        "group": statistics.mean(size for _, size in commits),
        "p50": took[len(took) // 2],
        "p90": took[int(0.9 * len(took))],
        "max": took[-1],
        "cpu": time.process_time() - cpu,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--interval", type=float, help=argparse.SUPPRESS)  # one run, as a child
    args = parser.parse_args()
    if args.interval is not None:
        with tempfile.TemporaryDirectory(prefix="cafebot-convoy-", dir=".") as folder:
            print(json.dumps(asyncio.run(one_run(args.interval, Path(folder)))))
        return
    from bot.app import SWITCH_INTERVAL

    intervals = (0.005, SWITCH_INTERVAL)
    runs: dict[float, list[dict[str, float]]] = {i: [] for i in intervals}
    for k in range(args.rounds):
        for interval in intervals if k % 2 == 0 else intervals[::-1]:
            out = subprocess.run(
                [sys.executable, __file__, "--interval", str(interval)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            runs[interval].append(json.loads(out.strip().splitlines()[-1]))
    print(f"{args.rounds} rounds, medians; a group commit's time in the database thread (ms)")
    for interval in intervals:
        figures = {
            key: statistics.median(r[key] for r in runs[interval]) for key in runs[interval][0]
        }
        print(
            f"switch interval {interval * 1000:.1f} ms: {figures['moves/s']:.0f} moves/s, "
            f"{figures['group']:.1f} moves a group, commit p50 {figures['p50']:.1f} p90 "
            f"{figures['p90']:.1f} max {figures['max']:.1f}, CPU {figures['cpu']:.2f} s"
        )


if __name__ == "__main__":
    main()

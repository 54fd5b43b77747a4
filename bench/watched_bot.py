"""The bot as ``python -m bot`` runs it, its event loop watched for stalls (bench/bot.py
``--watch``): what made a click wait when the loop had the CPU to answer it at once.

- **lag**: a ticker asks to wake every 5 ms and records how late it woke (a histogram, and each
  stall of 20 ms or more with its time);
- **turns**: the loop's turns by the CPU its thread spent in them (a histogram: the figure load
  from other processes cannot inflate), and every turn whose callbacks ran for 20 ms or more
  or took 5 ms of CPU, with how many ran and (``BENCH_WATCH=detail``) which, by the coroutine
  each resumed;
- **gc**: every collection of the cycle collector (generation 0, 1 or 2), its length (and its
  thread's CPU in it), when it ended and how many objects it freed (``detail``: and what it
  walked, by type): a pause of the loop wherever it lands;
- **commits**: every SQLite group commit (its moves, its time in the database thread, and
  whether it checkpointed the WAL into the database file).

``BENCH_GC=t0,t1,t2`` runs the bot with those collector thresholds instead of its own, its own
young passes due at t0 too (a policy tried before it is made the bot's; bench/bot.py ``--gc``);
``BENCH_GC_SWEEP=s`` sweeps its old generation every s seconds instead of every 5 minutes
(``--gc-sweep``).

Times are ``time.monotonic()``, the clock the emulator's loop runs on: bench/bot.py lines them up
with its slow clicks. Each SIGUSR1 (the bench's ``counters_now``) writes what was seen since the
last one to ``<stats_path>.watch.<n>.json`` and starts again, so the bench reads its measured
phase alone. The same ``LoopWatch`` watches the bench's own loop (the emulator's).

    BENCH_WATCH=1 CAFEBOT_STATS_PATH=… .venv/bin/python bench/watched_bot.py
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

TICK = 0.005  # the ticker's period
STALL = 0.020  # a wake this late, or a turn this long, is a stall
LONG_CPU = 0.005  # a turn that took this much of the loop's CPU is named too (detail)
BINS_MS = (1, 2, 5, 10, 20, 50, 100, 200)  # the lag histogram's upper bounds (and over)


def bin_of(ms: float) -> str:
    for bound in BINS_MS:
        if ms < bound:
            return f"<{bound}"
    return f">={BINS_MS[-1]}"


def resumed_at(callback: Any) -> str:
    """Where a callback resumes: the innermost coroutine a task's step wakes, else its name."""
    task = getattr(callback, "__self__", None)
    if isinstance(task, asyncio.Task):
        coro: Any = task.get_coro()
        names: list[str] = []
        while coro is not None:
            code = getattr(coro, "cr_code", None) or getattr(coro, "gi_code", None)
            if code is None:
                break
            names.append(code.co_qualname)
            coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
        # the innermost, and the outermost frame of ours below discord.py's event runner
        ours = [n for n in names[:-1] if not n.startswith(("Client.", "_run_event"))]
        return f"{names[-1]} < {ours[0]}" if ours else (names[-1] if names else "?")
    return getattr(callback, "__qualname__", type(callback).__name__)


class LoopWatch:
    """Stalls of the running loop; see the module's docstring."""

    def __init__(self, detail: bool = False) -> None:
        self.detail = detail
        self.reset()
        self._ticker: asyncio.Task[None] | None = None
        self._in_turn = 0.0  # callbacks' time in the current turn
        self._handles = 0
        self._named: list[tuple[str, float]] = []
        self._gc_started = self._gc_cpu = 0.0
        self._gc_walked = -1

    def reset(self) -> None:
        self.started = time.monotonic()
        self.lag: Counter[str] = Counter()
        self.turn_cpu: Counter[str] = Counter()  # the loop's turns by their CPU ms
        self.stalls: list[tuple[float, float]] = []  # (when the wake was due, ms late)
        self.turns: list[dict[str, Any]] = []
        # (end, generation, ms, collected, walked: the objects it looked at, -1 unless detail,
        # CPU ms of its thread)
        self.gcs: list[tuple[float, int, float, int, int, float]] = []
        self.commits: list[tuple[float, int, float, bool]] = []  # (end, moves, ms, checkpoint)
        self.gc_kinds: Counter[str] = Counter()  # detail: what the collections walked, by type

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        self._ticker = loop.create_task(self._tick())
        self._patch_turns(loop)
        gc.callbacks.append(self._gc)

    def install_once(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._ticker is None:
            self.install(loop)

    async def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + TICK
            await asyncio.sleep(TICK)
            late = (loop.time() - due) * 1000
            self.lag[bin_of(late)] += 1
            if late >= STALL * 1000:
                self.stalls.append((due, late))

    def _patch_turns(self, loop: asyncio.AbstractEventLoop) -> None:
        run_once: Callable[[], None] = loop._run_once  # type: ignore[attr-defined]
        watch = self

        def turn() -> None:
            watch._in_turn, watch._handles, watch._named = 0.0, 0, []
            cpu = time.thread_time()
            run_once()
            cpu = (time.thread_time() - cpu) * 1000  # the loop's own CPU: what load can't add
            watch.turn_cpu[bin_of(cpu)] += 1
            if watch._in_turn >= STALL or cpu >= LONG_CPU * 1000:
                top: Counter[str] = Counter()
                count: Counter[str] = Counter()
                for name, seconds in watch._named:
                    top[name] += seconds * 1000
                    count[name] += 1
                watch.turns.append(
                    {
                        "end": time.monotonic(),
                        "ms": watch._in_turn * 1000,
                        "cpu": cpu,
                        "handles": watch._handles,
                        "top": [(n, round(ms, 1), count[n]) for n, ms in top.most_common(6)],
                    }
                )

        loop._run_once = turn  # type: ignore[attr-defined]
        original = asyncio.events.Handle._run

        def run(handle: asyncio.Handle) -> None:
            name = resumed_at(handle._callback) if watch.detail else ""  # type: ignore[attr-defined]
            began = time.perf_counter()
            original(handle)
            took = time.perf_counter() - began
            watch._in_turn += took
            watch._handles += 1
            if watch.detail:
                watch._named.append((name, took))

        asyncio.events.Handle._run = run  # type: ignore[method-assign]

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        generation = info["generation"]
        if phase == "start":
            if self.detail:  # counted before the clock starts: not in the pause
                kinds: Counter[str] = Counter()
                for g in range(generation + 1):
                    kinds.update(type(o).__qualname__ for o in gc.get_objects(g))
                self._gc_walked = kinds.total()
                self.gc_kinds.update(kinds)
            self._gc_started = time.perf_counter()
            self._gc_cpu = time.thread_time()
        else:
            ms = (time.perf_counter() - self._gc_started) * 1000
            cpu = (time.thread_time() - self._gc_cpu) * 1000  # what load from others can't add
            self.gcs.append(
                (time.monotonic(), generation, ms, info["collected"], self._gc_walked, cpu)
            )

    def commit(self, moves: int, seconds: float, checkpoint: bool) -> None:
        self.commits.append((time.monotonic(), moves, seconds * 1000, checkpoint))

    def report(self) -> dict[str, Any]:
        return {
            "started": self.started,
            "ended": time.monotonic(),
            "lag": dict(self.lag),
            "turn_cpu": dict(self.turn_cpu),
            "stalls": self.stalls,
            "turns": self.turns,
            "gcs": self.gcs,
            "gc_kinds": self.gc_kinds.most_common(12),
            "commits": self.commits,
        }


def watch_commits(watch: LoopWatch) -> None:
    """Time each SQLite group commit in its thread, and see whether it checkpointed (the
    database file itself was written: SQLite's auto-checkpoint runs inside a COMMIT)."""
    from bot.core.store.sqlite import SqliteStore

    original = SqliteStore._commit_group
    files: dict[int, str] = {}  # the database's file, by store

    def commit_group(self: SqliteStore, size: int) -> None:
        path = files.get(id(self))
        if path is None:
            path = files[id(self)] = self._conn._conn.execute("PRAGMA database_list").fetchone()[2]
        before = os.stat(path).st_mtime_ns if path else 0
        began = time.perf_counter()
        try:
            original(self, size)
        finally:
            took = time.perf_counter() - began
            after = os.stat(path).st_mtime_ns if path else 0
            watch.commit(size, took, after != before)

    SqliteStore._commit_group = commit_group  # type: ignore[method-assign]


def main() -> int:
    # BENCH_BOT_ROOT: the bot of another checkout (bench/bot.py --bot-root), watched alike.
    sys.path.insert(
        0, os.environ.get("BENCH_BOT_ROOT") or str(Path(__file__).resolve().parent.parent)
    )
    from bot.app import CafeBot, run_bot
    from bot.core.config import load_settings

    watch = LoopWatch(detail=os.environ.get("BENCH_WATCH") == "detail")
    watch_commits(watch)
    dumps = 0
    setup_hook, write_stats = CafeBot.setup_hook, CafeBot.write_stats

    thresholds = os.environ.get("BENCH_GC")
    sweep_every = os.environ.get("BENCH_GC_SWEEP")
    if thresholds:  # the bot's own young passes at the first one too
        from bot.core import collector

        collector.YOUNG_DUE = int(thresholds.split(",")[0])
    if sweep_every:  # the bot's full passes this often (s), to watch them in a short run
        from bot.core import collector

        collector.FULL_EVERY = float(sweep_every)

    async def watched_setup(self: CafeBot) -> None:
        if thresholds:  # after run_bot's own (tune_process)
            gc.set_threshold(*(int(t) for t in thresholds.split(",")))
        watch.install(asyncio.get_running_loop())
        await setup_hook(self)

    def watched_stats(self: CafeBot) -> None:
        nonlocal dumps
        path = self.settings.stats_path
        if path is not None:  # before the stats file, which the bench waits for
            out = path.with_name(f"{path.name}.watch.{dumps}.json")
            out.write_text(json.dumps(watch.report()), encoding="utf-8")
            dumps += 1
        watch.reset()
        write_stats(self)

    CafeBot.setup_hook = watched_setup  # type: ignore[method-assign]
    CafeBot.write_stats = watched_stats  # type: ignore[method-assign]
    return run_bot(load_settings())


if __name__ == "__main__":
    sys.exit(main())

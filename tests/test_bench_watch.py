"""bench/watched_bot.py's collector record and bench/bot.py's reading of it: every collection,
young ones too (the open loop's tail was made of generation-0 passes the watch did not show)."""

from __future__ import annotations

import gc

from bench.bot import gc_line, in_flight_at_gc
from bench.watched_bot import LoopWatch


class Cycle:
    def __init__(self) -> None:
        self.me = self


def test_the_watch_records_a_young_collection_and_what_it_freed() -> None:
    watch = LoopWatch()
    gc.callbacks.append(watch._gc)
    try:
        for _ in range(100):
            Cycle()  # unreachable at once, freed only by the collector
        gc.collect(0)
    finally:
        gc.callbacks.remove(watch._gc)
    young = [g for g in watch.report()["gcs"] if g[1] == 0]
    assert len(young) == 1
    end, _, ms, collected, walked, cpu = young[0]
    assert collected >= 100
    assert walked == -1  # counted only in detail
    assert ms >= 0 and cpu >= 0 and watch.started <= end


def test_slow_clicks_are_lined_up_with_the_collections_they_waited_for() -> None:
    # (end, generation, ms, collected, walked, CPU ms): the gen-0 one ran from 10.010 to 10.030
    gcs: list[list[float]] = [[10.030, 0, 20.0, 5, -1, 19.0], [20.0, 1, 4.0, 0, -1, 3.0]]
    clicks = [
        (10.000, 0.015),  # in flight when it began
        (10.020, 0.060),  # dispatched during it
        (10.031, 0.060),  # after it
        (19.990, 0.020),  # during the gen-1 one
        (5.000, 0.060),
    ]
    assert in_flight_at_gc(gcs, clicks) == 3
    assert in_flight_at_gc(gcs[:1], clicks) == 2
    assert gc_line(gcs) == ("gen 0 1 × ≤ 20.0 ms (Σ 20, CPU 19), gen 1 1 × ≤ 4.0 ms (Σ 4, CPU 3)")
    assert gc_line([]) == "none"

"""Where hard bots think: worker processes that yield the CPU to play.

A search holds the GIL for its whole budget, so in a thread it would starve the event loop (the
clicks); it runs in a worker process instead. The workers run at the lowest priority there is
(Linux's ``SCHED_IDLE``: a core the clicks want is theirs at once; elsewhere nice 19), and the
pool leaves a core free. A decision's deadline is set by the clock when the bot asks for it, so
a search that waited in the pool's queue, or got no CPU on a busy machine, still answers with
its best so far when the budget is spent.

This module imports only the standard library at its top: a worker lowers its priority
(:func:`think_nicely`) before it imports the games and the search.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import resource
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

log = logging.getLogger(__name__)
FALLBACK_NICENESS = 19  # where SCHED_IDLE is missing: the lowest nice level


def think_nicely() -> None:
    """A worker's start: the lowest priority, so that a search only ever takes a core nothing
    else wants (the bot's clicks, the database, other processes)."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):  # not Linux, or refused: the nicest niceness instead
        os.nice(FALLBACK_NICENESS - os.nice(0))


def usable_cores() -> int:
    """The cores this process may run on (its affinity, where known)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def pool_size(wanted: int, cores: int | None = None) -> int:
    """At most one worker fewer than the cores (one stays the bot's), and at least one."""
    free = (usable_cores() if cores is None else cores) - 1
    return max(1, min(wanted, free))


def thinking_pool(workers: int) -> ProcessPoolExecutor:
    """Worker processes for hard bots' searches (:func:`pool_size` of them). A forkserver
    starts them: the bot's process has threads (SQLite's), which a plain fork would copy
    mid-flight."""
    size = pool_size(workers)
    if size < workers:
        log.info(
            "hard bots think in %d worker process(es), not %d: one core stays free", size, workers
        )
    return ProcessPoolExecutor(
        max_workers=size,
        mp_context=multiprocessing.get_context("forkserver"),
        initializer=think_nicely,
    )


def cpu_seconds() -> float:
    """This process's CPU time so far (user + system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def think(
    game_id: str,
    seen_json: str,
    player: str,
    options_json: str,
    seed: int,
    deadline: float,
    simulations: int,
) -> tuple[list[dict[str, Any]], bool, int, float]:
    """A hard bot's plan, in a worker process: the search from the seat's view (JSON) until the
    clock (``time.monotonic``, the same in every process) reaches ``deadline`` or
    ``simulations`` ran; one simulation at least, so a deadline already past still answers
    (the normal move, when the search could not compare the plans). The plan's moves (JSON),
    whether its plans were compared (:class:`bot.core.levels.Plan`), how many simulations ran
    and the CPU seconds it took."""
    from bot.core.levels import hard_plan, normal_strategy  # at the worker's low priority
    from bot.core.seats import robot_number
    from games import REGISTRY

    started = cpu_seconds()
    game = REGISTRY[game_id]
    seen = game.load_state(seen_json)
    options = game.parse_options(json.loads(options_json))
    _, normal = normal_strategy(game, player, robot_number(player))
    plan = hard_plan(
        game,
        seen,
        player,
        options=options,
        policy=normal,
        seed=seed,
        simulations=simulations,
        stop=lambda: time.monotonic() >= deadline,
    )
    moves = [move.model_dump(mode="json") for move in plan.moves]
    return moves, plan.compared, plan.simulations, cpu_seconds() - started

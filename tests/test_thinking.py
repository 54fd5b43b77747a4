"""Hard bots think without stalling play: their workers run at idle priority, the pool leaves a
core free, and a search starved of CPU (or queued too long) still moves at its budget."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from bot.core import robots as robots_module
from bot.core.robots import Robots
from bot.core.seat_view import as_seen_by
from bot.core.sessions import SessionService
from bot.core.thinking import pool_size, think, thinking_pool
from games import REGISTRY
from games.engine import new_game

HOST = "1001"


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="SCHED_IDLE is Linux's")
def test_a_worker_thinks_at_idle_priority() -> None:
    pool = thinking_pool(1)
    try:
        # Read back in the worker itself: the policy its searches run under.
        assert pool.submit(os.sched_getscheduler, 0).result(timeout=120) == os.SCHED_IDLE
    finally:
        pool.shutdown()
    assert os.sched_getscheduler(0) != os.SCHED_IDLE  # the bot's own process is left alone


def test_the_pool_leaves_a_core_to_the_bot() -> None:
    assert pool_size(4, cores=2) == 1
    assert pool_size(4, cores=1) == 1  # one core: one worker all the same (it yields)
    assert pool_size(2, cores=8) == 2
    assert pool_size(16, cores=8) == 7


def test_a_search_past_its_deadline_still_plays_a_legal_move() -> None:
    """A search that got no CPU until its budget was spent (queued, or starved by the clicks)
    answers at once: one simulation, not the hundred thousand it was allowed."""
    game = REGISTRY["cafe-carnage"]
    state = new_game(game, ["1", "2", "bot-1"], game.parse_options({}), 11)
    seen = as_seen_by(game, state, "bot-1", 5)
    assert len(game.legal_actions(seen, "bot-1")) > 1
    raw, ran, cpu = think(
        game.id,
        seen.model_dump_json(),
        "bot-1",
        "{}",
        5,
        time.monotonic() - 1.0,  # the budget ran out before it started
        100_000,
    )
    assert ran <= 1
    assert cpu >= 0
    assert game.is_legal(state, "bot-1", game.parse_action(raw))


async def test_a_hard_bot_whose_search_never_answers_moves_in_time(
    service: SessionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pool's only worker is taken: the bot waits its budget (and a grace), then plays the
    normal move itself, so the table never waits for its clock."""
    monkeypatch.setattr(robots_module, "THINK_GRACE", 0.05)
    busy = ThreadPoolExecutor(1)
    release = threading.Event()
    busy.submit(release.wait)  # the worker is busy until the bot has moved
    robots = Robots(service, delay=0, think_seconds=0.01, executor=busy)
    try:
        s = await service.create(
            game_id="cafe-carnage", channel_id=7, guild_id=1, host_id=HOST, host_name="H", seed=5
        )
        s = await service.join(s.id, "1002", "G")
        s = await service.add_robot(s.id, HOST, "hard")
        await robots.start()
        s = await service.start(s.id, HOST)
        await robots.idle()
        # Its whole order (the picks, then confirm), each move without the search's answer.
        assert robots.moves_played > 1
        assert robots.unthought == robots.moves_played and robots.simulations == 0
        s = await service.load(s.id)
        assert s.state is not None
        assert "bot-1" not in s.game.active_players(s.state)  # it has ordered
        moves = [a for a in await service.store.actions(s.id) if a.player == "bot-1"]
        assert len(moves) == robots.moves_played
        assert all(a.source == "player" for a in moves)  # its own moves, not its clock's
    finally:
        release.set()
        await robots.stop()
        busy.shutdown()

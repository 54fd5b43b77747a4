"""Hard bots think without stalling play: their workers run at idle priority, the pool leaves a
core free, and a search starved of CPU (or queued too long) still moves at its budget."""

from __future__ import annotations

import json
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from bot.core import robots as robots_module
from bot.core.robots import Robots, strategy_for
from bot.core.seat_view import as_seen_by
from bot.core.sessions import Change, Session, SessionService
from bot.core.thinking import pool_size, think, thinking_pool
from games import REGISTRY
from games.cafe_carnage.state import CafeState
from games.engine import new_game
from games.rng import Rng

HOST = "1001"
FRIEND = "1002"


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
    raw, compared, ran, cpu = think(
        game.id,
        seen.model_dump_json(),
        "bot-1",
        "{}",
        5,
        time.monotonic() - 1.0,  # the budget ran out before it started
        100_000,
    )
    assert ran <= 1 and not compared  # the normal player's move: its order goes on
    assert cpu >= 0
    assert len(raw) == 1 and game.is_legal(state, "bot-1", game.parse_action(raw[0]))


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
        # Its whole order (the picks, then confirm) in one run, the normal player's.
        assert robots.moves_played > 1
        assert robots.unthought == 1 and robots.simulations == robots.searches == 0
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


async def play_round_of_people(service: SessionService, session_id: int) -> None:
    """The people at the table order as the normal player would, one move at a time, to the
    round's end (not on into the next round: the hard seat plays its own run there)."""
    s = await service.load(session_id)
    assert isinstance(s.state, CafeState)
    this_round = s.state.round
    for person in (HOST, FRIEND):
        _, normal = strategy_for(s.game, person)
        while (
            isinstance(s.state, CafeState)
            and s.state.round == this_round
            and person in s.game.active_players(s.state)
        ):
            move = normal(s.state, person, Rng(seed=s.version))
            s = (await service.act(session_id, person, move)).session


async def hard_carnage(service: SessionService, robots: Robots, channel: int = 7) -> Session:
    s = await service.create(
        game_id="cafe-carnage",
        channel_id=channel,
        guild_id=1,
        host_id=HOST,
        host_name="H",
        seed=5,
    )
    s = await service.join(s.id, FRIEND, "G")
    s = await service.add_robot(s.id, HOST, "hard")
    await robots.start()
    return await service.start(s.id, HOST)


async def test_a_hard_seat_plays_its_planned_order_in_one_transaction(
    service: SessionService,
) -> None:
    """Café Carnage: a hard seat searches whole orders once a round and plays the best (picks,
    ballot, Confirm) as one run: one search, one transaction and one change a round, each move
    its own log entry, the game replaying to the stored state. (Each move was searched and
    written alone: five searches and five transactions a round.)"""
    # A budget counted in simulations, never cut by the clock: 12 a move, so 60 for an order
    # of five moves (enough to try each of its 24 orders).
    with ThreadPoolExecutor(1) as pool:
        robots = Robots(service, delay=0, think_seconds=600, think_simulations=12, executor=pool)
        try:
            s = await hard_carnage(service, robots)
            changes: list[Change] = []
            service.subscribe(lambda c: changes.append(c) if c.session_id == s.id else None)
            for round_number in (1, 2):
                before = (await service.load(s.id)).version
                changes.clear()
                await robots.idle()
                s = await service.load(s.id)
                assert s.state is not None and "bot-1" not in s.game.active_players(s.state)
                assert robots.searches == round_number and robots.unthought == 0
                assert robots.simulations == 60 * round_number
                assert s.version == before + 1 and len(changes) == 1  # one transaction
                moves = [a for a in await service.store.actions(s.id) if a.player == "bot-1"]
                assert json.loads(moves[-1].action)["type"] == "confirm"
                assert len(moves) == robots.moves_played >= 4 * round_number
                assert await service.replay(s.id) == s.state
                await play_round_of_people(service, s.id)  # the round ends: the next begins
        finally:
            await robots.stop()


async def test_a_plan_whose_next_move_no_longer_fits_is_searched_again(
    service: SessionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each move of a plan is checked again before it is played: one that no longer fits
    (here: a dish the seat was never offered) ends the run, and the seat thinks again on the
    table as it is; its order is still made, every move legal."""

    def garbled(*args: Any) -> tuple[list[dict[str, Any]], bool, int, float]:
        moves, compared, ran, cpu = think(*args)
        if len(moves) > 1:
            moves[1] = {"type": "pick", "card": "not-a-dish"}
        return moves, compared, ran, cpu

    monkeypatch.setattr(robots_module, "think", garbled)
    with ThreadPoolExecutor(1) as pool:
        robots = Robots(service, delay=0, think_seconds=600, think_simulations=12, executor=pool)
        try:
            s = await hard_carnage(service, robots)
            await robots.idle()
            s = await service.load(s.id)
            assert s.state is not None and "bot-1" not in s.game.active_players(s.state)
            moves = [a for a in await service.store.actions(s.id) if a.player == "bot-1"]
            assert json.loads(moves[-1].action)["type"] == "confirm"
            assert all("not-a-dish" not in a.action for a in moves)
            # One move a search (the plan's first), then the last one's plan: Confirm alone.
            assert robots.searches == len(moves) == robots.moves_played > 2
            assert await service.replay(s.id) == s.state
        finally:
            await robots.stop()

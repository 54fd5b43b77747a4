"""Bot players: seats played by a game's own strategy, so three friends can play a 5-player game.

A bot player is a seat whose user id is not a Discord snowflake but ``bot-N``. The host seats
one in the lobby (:meth:`SessionService.add_robot`); from then on :class:`Robots` watches the
session service's change events and, whenever a bot seat is awaited, plays its strategy's move
after a short, human-looking pause, through :meth:`SessionService.act_with` like any click
(checked by the same engine, durable before it counts). The strategy decides from the seat's own
view only (:mod:`bot.core.seat_view`). Front ends never DM or ping a bot seat.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from bot.core.errors import StorageFull, UserError
from bot.core.levels import Level, Plan, easy_strategy, normal_strategy, plan_moves
from bot.core.seat_view import as_seen_by
from bot.core.seats import is_robot, robot_level, robot_number
from bot.core.sessions import Change, Session, SessionService
from bot.core.store import SessionStatus
from bot.core.tasks import cancel_and_wait
from bot.core.thinking import think, thinking_pool
from games.engine import Game, GameState, IllegalAction, PlayerId, Strategy, apply
from games.rng import Rng

log = logging.getLogger(__name__)
START_CHECKS_AT_ONCE = 8  # at a start, sessions looked at at once (see Robots._look_at)
DISK_FULL_RETRY = 5.0  # a bot player's move refused for a full disk is tried again after this


def strategy_for(game: Game[Any, Any], user_id: str) -> tuple[str, Strategy]:
    """The ``normal`` level's player of a bot seat (see :func:`bot.core.levels.normal_strategy`)."""
    return normal_strategy(game, user_id, robot_number(user_id))


def decide(
    game: Game[Any, Any],
    state: GameState,
    player: PlayerId,
    seed: int,
    level: Level = Level.NORMAL,
) -> BaseModel:
    """The move of bot seat ``player`` at ``level`` (easy or normal: the hard level thinks in
    a worker process, :meth:`Robots._think`), from what that seat may see."""
    if level is Level.EASY:
        strategy = easy_strategy(game)
    else:
        _, strategy = strategy_for(game, player)
    seen = as_seen_by(game, state, player, seed)
    return strategy(seen, player, Rng(seed=seed))


def decision_seed(s: Session, player: PlayerId) -> int:
    """The same session, version and seat always decide alike (replays, tests)."""
    text = f"{s.row.seed}:{s.version}:{player}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:7], "big")


class _NotAwaited(Exception):
    """The seat is no longer awaited (someone else moved first, the game ended)."""


class _StalePlan(Exception):
    """A thought's first move is no longer legal (the table moved on while it thought)."""


class _PlanDone(Exception):
    """A run has played its plan (or the plan's next move no longer fits): it ends there."""


@dataclass(frozen=True)
class Thought:
    """A hard bot's plan, thought out on the session at ``version``."""

    version: int
    plan: Plan


class _Following:
    """Where a run is in a thought's plan. The run's next call comes with the state the last
    move left: its next move is the plan's next; any other state (a write retried on the stored
    state) starts from the plan's first move."""

    def __init__(self, thought: Thought) -> None:
        self.thought = thought
        self.index = -1  # the move last chosen
        self.after: GameState | None = None  # the state it leaves

    def next_move(self, s: Session, state: GameState, player: PlayerId) -> BaseModel | None:
        """The plan's move for ``state``; None past the end of a plan whose search compared
        nothing (the normal player goes on)."""
        moves = self.thought.plan.moves
        index = self.index + 1 if self.after is not None and state == self.after else 0
        self.index, self.after = index, None
        if index == 0:
            if self.thought.version != s.version and not s.game.is_legal(state, player, moves[0]):
                raise _StalePlan()
            return moves[0]
        if index >= len(moves):
            if self.thought.plan.compared:
                raise _PlanDone()  # searched again on the state the run leaves
            return None
        if not s.game.is_legal(state, player, moves[index]):
            raise _PlanDone()  # it no longer fits: searched again
        return moves[index]

    def chose(self, s: Session, state: GameState, player: PlayerId, move: BaseModel) -> None:
        """``move`` is played on ``state``: the run's next call comes with what it leaves."""
        try:
            self.after = apply(s.game, state, player, move)
        except IllegalAction:
            self.after = None  # refused: the rules say so to the run


# Past its budget, how long the bot waits at least for a search's answer (else as long as it
# pauses anyway) before it plays the normal move instead (a worker that got no CPU at all):
# the table never waits on a bot's thinking.
THINK_GRACE = 1.0


class Robots:
    """Plays every awaited bot seat of every open session, one task per seat."""

    # A seat's moves that change no view but its own are played in a run with the next one
    # (``act_with``'s ``private_run``); False: each in a transaction of its own (tests).
    PLAYS_RUNS = True

    def __init__(
        self,
        service: SessionService,
        *,
        delay: float,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        think_seconds: float = 0.3,
        think_simulations: int = 100_000,
        think_workers: int = 1,
        executor: Executor | None = None,
    ) -> None:
        self.service = service
        self.delay = delay
        self.sleep = sleep
        self.think_seconds = think_seconds
        self.think_simulations = think_simulations
        self.think_workers = think_workers
        self._executor = executor
        self._own_executor = executor is None
        self.searches = 0  # the hard bots' searches answered, in all (tests, benchmarks)
        self.simulations = 0  # their simulations
        self.think_cpu = 0.0  # the CPU seconds they took, in the workers (benchmarks)
        self.unthought = 0  # hard turns (runs) played without a search's answer in time
        self._random = random.Random()
        self._checks: dict[int, asyncio.Task[None]] = {}
        self._looking: asyncio.Task[None] | None = None  # the start's look at every session
        self._again: set[int] = set()
        self._moves: dict[tuple[int, str], asyncio.Task[None]] = {}
        self._running = False
        self.moves_played = 0
        service.subscribe(self.on_change)

    async def start(self) -> None:
        """Look at every open session with a bot seat: after a restart, awaited bot seats
        move again."""
        self._running = True
        ids = await self.service.open_sessions_with_robots()
        self._looking = asyncio.create_task(self._look_at(ids), name="cafebot-robots-start")

    async def _look_at(self, session_ids: list[int]) -> None:
        """A few at a time: thousands of checks at once would each load their game together."""
        for session_id in session_ids:
            while len(self._checks) >= START_CHECKS_AT_ONCE:
                await asyncio.wait(list(self._checks.values()), return_when=asyncio.FIRST_COMPLETED)
            self.request(session_id)

    async def stop(self) -> None:
        self._running = False
        await cancel_and_wait(self._looking)
        self._looking = None
        await cancel_and_wait(*self._checks.values(), *self._moves.values(), quiet=(Exception,))
        self._checks.clear()
        self._moves.clear()
        if self._own_executor and self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    async def idle(self) -> None:
        """Wait until no bot seat is awaited or about to move (tests)."""
        if self._looking is not None:
            await asyncio.gather(self._looking, return_exceptions=True)
        while self._checks or self._moves:
            await asyncio.gather(
                *self._checks.values(), *self._moves.values(), return_exceptions=True
            )

    def on_change(self, change: Change) -> None:
        if not change.robots:  # no bot seat awaited (a game of people only): nothing to do
            return
        awaited, session_id = change.awaited_robots, change.session_id
        if (
            awaited is not None
            and session_id not in self._checks
            and all((session_id, p) in self._moves for p in awaited)
        ):
            return  # each awaited bot seat's move is on its way: no load, no check
        self.request(session_id)

    def request(self, session_id: int) -> None:
        """A session changed: see whether a bot seat is awaited now."""
        if not self._running:
            return
        if session_id in self._checks:
            self._again.add(session_id)
            return
        self._checks[session_id] = asyncio.create_task(self._check(session_id))

    def pause(self) -> float:
        """A human-looking pause: around ``delay``, never the same twice."""
        return self.delay * self._random.uniform(0.6, 1.4)

    async def _check(self, session_id: int) -> None:
        try:
            while True:
                self._again.discard(session_id)
                try:
                    await self._schedule(session_id)
                except UserError:
                    pass  # gone or damaged: nothing to play
                except Exception:
                    log.exception("bot players of session %s", session_id)
                if session_id not in self._again:
                    break
        finally:
            self._checks.pop(session_id, None)

    async def _schedule(self, session_id: int) -> None:
        s = await self.service.load(session_id)
        if s.status is not SessionStatus.ACTIVE or s.state is None:
            return
        awaited = s.game.active_players(s.state)
        for player in s.state.players:
            key = (session_id, player)
            if is_robot(player) and player in awaited and key not in self._moves:
                self._moves[key] = asyncio.create_task(self._move(session_id, player))

    async def _move(self, session_id: int, player: PlayerId) -> None:
        moved = False
        try:
            loop = asyncio.get_running_loop()
            pause = self.pause()
            started = loop.time()
            thought = await self._think(session_id, player, pause)
            # The thinking is part of the pause: a hard bot is no slower than the others.
            await self.sleep(max(0.0, pause - (loop.time() - started)))
            stale = 0
            while True:
                try:
                    moved = await self._play(session_id, player, thought)
                    break
                except StorageFull:  # logged by the store, once: the move waits for room
                    await self.sleep(DISK_FULL_RETRY)
                except _StalePlan:
                    # The table moved on while it thought (a deadline began a new round): it
                    # thinks again, once; then the normal move.
                    stale += 1
                    thought = await self._think(session_id, player) if stale == 1 else None
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot player %s of session %s", player, session_id)
        finally:
            self._moves.pop((session_id, player), None)
        if moved:
            self.request(session_id)  # still awaited (a turn of several moves)? move again

    async def _think(self, session_id: int, player: PlayerId, pause: float = 0.0) -> Thought | None:
        """A hard seat's plan, searched in a worker process within the budget; None for the
        other levels, or when the search could not run or did not answer by the end of the
        bot's ``pause`` (a grace past the budget at least): the normal move is played then."""
        s = await self.service.load(session_id)
        seat = s.player(player)
        if seat is None or robot_level(seat.name) != Level.HARD:
            return None
        if s.status is not SessionStatus.ACTIVE or s.state is None:
            return None
        if player not in s.game.active_players(s.state):
            return None
        seed = decision_seed(s, player)
        seen = as_seen_by(s.game, s.state, player, seed)
        if self._executor is None:
            self._executor = thinking_pool(self.think_workers)
        # The budget runs from now, by the clock: a search queued behind others, or starved of
        # CPU by the clicks (its worker is at idle priority), answers with what it has by then.
        # A plan of several moves gets their budgets together (they are played in one run),
        # within the bot's pause: it never makes the table wait longer than it pauses anyway.
        depth = plan_moves(s.game, seen, player)
        budget = max(self.think_seconds, min(self.think_seconds * depth, pause))
        deadline = time.monotonic() + budget
        work = asyncio.get_running_loop().run_in_executor(
            self._executor,
            think,
            s.game.id,
            seen.model_dump_json(),
            player,
            json.dumps(s.options.model_dump(mode="json")),
            seed,
            deadline,
            self.think_simulations * depth,
        )
        try:
            # Its answer is awaited as long as the bot pauses anyway (the budget and a grace at
            # least): on a busy machine, the worker may get its CPU late.
            patience = max(pause, budget + THINK_GRACE)
            raw, compared, ran, cpu = await asyncio.wait_for(work, timeout=patience)
            moves = [s.game.parse_action(move) for move in raw]
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            # No CPU for the search all that time (a busy machine): the normal move, in time. The worker finds its deadline gone and answers at once when it runs.
            self.unthought += 1
            log.info("bot player %s of session %s: no time to think", player, session_id)
            return None
        except Exception as exc:
            log.warning("bot player %s of session %s could not think: %r", player, session_id, exc)
            return None
        if not moves:
            return None
        self.searches += 1
        self.simulations += ran
        self.think_cpu += cpu
        return Thought(s.version, Plan(moves, ran, compared))

    async def _play(
        self, session_id: int, player: PlayerId, thought: Thought | None = None
    ) -> bool:
        following = _Following(thought) if thought is not None else None

        def choose(s: Session) -> BaseModel:
            if s.status is not SessionStatus.ACTIVE or s.state is None:
                raise _NotAwaited()
            if player not in s.game.active_players(s.state):
                raise _NotAwaited()
            if following is not None:
                move = following.next_move(s, s.state, player)
                if move is None:  # past an uncompared plan: the normal player's turn goes on
                    move = self._level_move(s, player)
                following.chose(s, s.state, player, move)
                return move
            return self._level_move(s, player)

        try:
            # Its moves nobody else sees (picks in a simultaneous step) are played together,
            # up to one that others see: one pause, one transaction. A hard seat's are its
            # plan's, searched once.
            result = await self.service.act_with(
                session_id, player, choose, private_run=self.PLAYS_RUNS
            )
        except _NotAwaited:
            return False
        except UserError as exc:
            # The strategy chose a move the rules refuse (a bug in it): let the rules decide,
            # as for a player whose clock ran out, so the table is never stuck on a bot.
            log.warning("bot player %s of session %s: %s", player, session_id, exc.message)
            return await self._play_default(session_id, player)
        self.moves_played += len(result.applied)
        return True

    def _level_move(self, s: Session, player: PlayerId) -> BaseModel:
        """The seat's level's move, decided here (easy, or normal: a hard seat's without a
        plan)."""
        assert s.state is not None
        seat = s.player(player)
        level = Level(robot_level(seat.name)) if seat is not None else Level.NORMAL
        try:
            return decide(s.game, s.state, player, decision_seed(s, player), level)
        except Exception:
            # A strategy that fails (e.g. it reached for a hidden card and found a token):
            # the rules' default move, as for a player whose clock ran out.
            log.exception("the strategy of bot player %s failed", player)
            default: BaseModel = s.game.on_timeout(s.state, player)
            return default

    async def _play_default(self, session_id: int, player: PlayerId) -> bool:
        s = await self.service.load(session_id)
        if s.state is None or player not in s.game.active_players(s.state):
            return False
        try:
            move = s.game.on_timeout(s.state, player)
            await self.service.act(session_id, player, move, expected_version=s.version)
        except UserError as exc:
            log.warning("default move of bot player %s failed: %s", player, exc.message)
            return False
        self.moves_played += 1
        return True

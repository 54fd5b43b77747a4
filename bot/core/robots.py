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
import contextlib
import hashlib
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel

from bot.core.errors import StorageFull, UserError
from bot.core.seat_view import as_seen_by
from bot.core.seats import is_robot, robot_number
from bot.core.sessions import Change, Session, SessionService
from bot.core.store import SessionStatus
from games.engine import Game, GameState, PlayerId, Strategy
from games.rng import Rng

log = logging.getLogger(__name__)
DISK_FULL_RETRY = 5.0  # a bot player's move refused for a full disk is tried again after this


def strategy_for(game: Game[Any, Any], user_id: str) -> tuple[str, Strategy]:
    """The game's greedy player where it has one; else its named players in turn (so two bots
    at one table may play differently); else a random legal move."""
    named = {k: v for k, v in game.strategies().items() if k != "timeout"}
    if "greedy" in named:
        return "greedy", named["greedy"]
    if named:
        name = sorted(named)[(robot_number(user_id) - 1) % len(named)]
        return name, named[name]

    def random_move(state: Any, player: PlayerId, rng: Rng) -> BaseModel:
        moves: list[BaseModel] = list(game.legal_actions(state, player))
        return rng.choice(moves)

    return "random", random_move


def decide(game: Game[Any, Any], state: GameState, player: PlayerId, seed: int) -> BaseModel:
    """The move of bot seat ``player``, from what that seat may see."""
    _, strategy = strategy_for(game, player)
    seen = as_seen_by(game, state, player, seed)
    return strategy(seen, player, Rng(seed=seed))


def decision_seed(s: Session, player: PlayerId) -> int:
    """The same session, version and seat always decide alike (replays, tests)."""
    text = f"{s.row.seed}:{s.version}:{player}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:7], "big")


class _NotAwaited(Exception):
    """The seat is no longer awaited (someone else moved first, the game ended)."""


class Robots:
    """Plays every awaited bot seat of every open session, one task per seat."""

    def __init__(
        self,
        service: SessionService,
        *,
        delay: float,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.service = service
        self.delay = delay
        self.sleep = sleep
        self._random = random.Random()
        self._checks: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()
        self._moves: dict[tuple[int, str], asyncio.Task[None]] = {}
        self._running = False
        self.moves_played = 0
        service.subscribe(self.on_change)

    async def start(self) -> None:
        """Look at every open session: after a restart, awaited bot seats move again."""
        self._running = True
        for row in await self.service.open_sessions():
            self.request(row.id)

    async def stop(self) -> None:
        self._running = False
        tasks = [*self._checks.values(), *self._moves.values()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._checks.clear()
        self._moves.clear()

    async def idle(self) -> None:
        """Wait until no bot seat is awaited or about to move (tests)."""
        while self._checks or self._moves:
            await asyncio.gather(
                *self._checks.values(), *self._moves.values(), return_exceptions=True
            )

    def on_change(self, change: Change) -> None:
        if change.robots:  # a move in a game of humans only: nothing to look at
            self.request(change.session_id)

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
            await self.sleep(self.pause())
            while True:
                try:
                    moved = await self._play(session_id, player)
                    break
                except StorageFull:  # logged by the store, once: the move waits for room
                    await self.sleep(DISK_FULL_RETRY)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot player %s of session %s", player, session_id)
        finally:
            self._moves.pop((session_id, player), None)
        if moved:
            self.request(session_id)  # still awaited (a turn of several moves)? move again

    async def _play(self, session_id: int, player: PlayerId) -> bool:
        def choose(s: Session) -> BaseModel:
            if s.status is not SessionStatus.ACTIVE or s.state is None:
                raise _NotAwaited()
            if player not in s.game.active_players(s.state):
                raise _NotAwaited()
            try:
                return decide(s.game, s.state, player, decision_seed(s, player))
            except Exception:
                # A strategy that fails (e.g. it reached for a hidden card and found a token):
                # the rules' default move, as for a player whose clock ran out.
                log.exception("the strategy of bot player %s failed", player)
                default: BaseModel = s.game.on_timeout(s.state, player)
                return default

        try:
            await self.service.act_with(session_id, player, choose)
        except _NotAwaited:
            return False
        except UserError as exc:
            # The strategy chose a move the rules refuse (a bug in it): let the rules decide,
            # as for a player whose clock ran out, so the table is never stuck on a bot.
            log.warning("bot player %s of session %s: %s", player, session_id, exc.message)
            return await self._play_default(session_id, player)
        self.moves_played += 1
        return True

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

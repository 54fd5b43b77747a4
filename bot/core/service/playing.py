"""Playing: a move applied, a deadline's default moves played, a step skipped by the host, a
game replayed from its log."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pydantic import BaseModel

from bot.core.errors import DamagedSession, IllegalMove, NotAllowed, StaleVersion, StaleWrite
from bot.core.record import effective
from bot.core.runs import run_goes_on
from bot.core.seats import is_robot
from bot.core.service.model import ActResult, Session, names_of, notice
from bot.core.service.writing import Writing
from bot.core.stale import retry_stale_writes
from bot.core.store import NewAction, NewPost, SessionStatus
from games.engine import GameState, IllegalAction, apply, clock_key, new_game, play_timeout


class Playing(Writing):
    """The moves of a game in progress."""

    # -- playing ---------------------------------------------------------------------------------
    async def act(
        self,
        session_id: int,
        player: str,
        raw_action: dict[str, Any] | BaseModel,
        expected_version: int | None = None,
    ) -> ActResult:
        """Apply one move. Durable before it returns; refused moves change nothing."""

        def choose(s: Session) -> dict[str, Any] | BaseModel:
            if expected_version is not None and expected_version != s.version:
                raise StaleVersion()
            return raw_action

        return await self.act_with(session_id, player, choose)

    @retry_stale_writes
    async def act_with(
        self,
        session_id: int,
        player: str,
        choose: Callable[[Session], dict[str, Any] | BaseModel],
        *,
        private_run: bool = False,
    ) -> ActResult:
        """Like :meth:`act`, with the action chosen from the freshly loaded session under the
        lock (so a click is checked against exactly the state it will change).

        ``private_run`` (a bot seat): while the moves chosen change no view but the player's
        own and still await them (a bot's picks in a simultaneous step), ``choose`` is asked
        for the next one on the state they left, until a move others may see: the run is one
        transaction (each move its own log entry, in order) and one change to tell."""
        started = time.perf_counter()
        # Under the session's lock, which retry_stale_writes holds (not taken here again).
        s, unchecked = await self.load_to_change(session_id)
        try:
            state, action, new_state = self._decided(s, player, choose)
        except Exception:
            if unchecked and await self._stale_refusal(s):
                raise StaleWrite() from None  # decided on an old copy: again, on the stored
            raise
        game = s.game
        applied: list[tuple[str, BaseModel]] = [(player, action)]
        touched = game.views_touched(state, new_state, player)
        if private_run:
            new_state, touched = self._private_run(s, player, choose, new_state, touched, applied)
        log = [NewAction(p, _dump(a)) for p, a in applied]
        written = await self._commit(s, state, new_state, log)
        committed = written.session
        robots = _awaited_robots(committed)
        self._changed(
            session_id,
            None if touched is None else frozenset(touched),
            posted=written.posted,  # announcements, and a log line told alone
            timers=not written.timers_stand,
            version=committed.version,
            awaited_robots=robots,
        )
        if self.moved is not None:
            self.moved(game.id, time.perf_counter() - started)
        return ActResult(session=committed, applied=applied)

    def _private_run(
        self,
        s: Session,
        player: str,
        choose: Callable[[Session], dict[str, Any] | BaseModel],
        state: GameState,
        touched: set[str | None] | None,
        applied: list[tuple[str, BaseModel]],
    ) -> tuple[GameState, set[str | None] | None]:
        """The player's next moves after a private one, while each is private too and they
        are still awaited (the last may be seen by all: it ends the run). Each is chosen on
        the session as sequential moves would have left it (its version counted up, so a bot
        decides as it would have); one the rules or ``choose`` refuse ends the run there."""
        game, step = s.game, s
        while touched is not None and run_goes_on(game, state, player, touched, len(applied)):
            step = replace(step, row=replace(step.row, version=step.version + 1), state=state)
            try:
                _, action, after = self._decided(step, player, choose)
            except Exception:
                break  # e.g. nothing more to play: the moves so far stand
            more = game.views_touched(state, after, player)
            touched = None if more is None else touched | more
            applied.append((player, action))
            state = after
        return state, touched

    def _decided(
        self, s: Session, player: str, choose: Callable[[Session], dict[str, Any] | BaseModel]
    ) -> tuple[GameState, BaseModel, GameState]:
        """The move ``choose`` picks on ``s``, checked by the rules: (state, action, new state)."""
        raw_action = choose(s)
        state = self._require_playing(s)
        game = s.game
        try:
            action = (
                raw_action if isinstance(raw_action, BaseModel) else game.parse_action(raw_action)
            )
            return state, action, apply(game, state, player, action)
        except IllegalAction as exc:
            raise IllegalMove(exc.message) from None

    @retry_stale_writes
    async def fire_deadline(self, session_id: int, key: str) -> ActResult | None:
        """Play the default move of every player the timed step ``key`` still waits for."""
        async with self.lock(session_id):
            s = await self.load(session_id)
            if s.status is not SessionStatus.ACTIVE or s.state is None:
                return None
            game, state = s.game, s.state
            if clock_key(game, state) != key:
                return None  # the step moved on; the timer is stale
            applied: list[tuple[str, BaseModel]] = []
            auto: list[str] = []
            for player in [p for p in state.players if p in game.active_players(state)]:
                if player not in game.active_players(state):
                    continue
                try:
                    state, actions = play_timeout(game, state, player)
                except IllegalAction as exc:  # a game bug: keep the game alive, report it
                    raise DamagedSession(f"Default move failed: {exc.message}") from None
                if actions:
                    auto.append(player)
                    applied.extend((player, a) for a in actions)
            if not applied:
                await self.store.delete_timer(session_id, "deadline", key)
                self.timers_changed(session_id)
                return None
            log = [NewAction(p, _dump(a), "timeout") for p, a in applied]
            posts: list[NewPost] = []
            if auto and not game.announces_timeouts:
                # Neutral wording: the default differs by game (a move played for them, a level
                # kept, a tray locked as it is); each game's rules say which.
                posts.append(
                    notice(
                        f"⏰ Time's up for {names_of(auto)} — I decided for them as the rules say "
                        f"(`/game rules {game.id}`), and the game goes on."
                    )
                )
            committed = (await self._commit(s, s.state, state, log, posts)).session
        self._changed(session_id)
        return ActResult(session=committed, applied=applied, auto_played=auto)

    async def skip_step(self, session_id: int, user_id: str) -> ActResult:
        """The host ends a step the game lets them end early (a level pick): the absent
        players' default moves are played now, as at the deadline."""
        s = await self.load(session_id)
        state = self._require_playing(s)
        if user_id != s.row.host_id:
            raise NotAllowed("Only the host can go on without the others.")
        clock = s.game.clock(state)
        if clock is None or not clock.host_may_skip:
            raise NotAllowed("This step can't be skipped: everyone it waits for must play.")
        result = await self.fire_deadline(session_id, clock.key)
        if result is None:
            raise StaleVersion()
        return result

    async def replay(self, session_id: int) -> GameState:
        """Rebuild the state from the seed and the action log."""
        s = await self.load(session_id)
        if s.state is None:
            raise NotAllowed("That game has not started.")
        game = s.game
        state = new_game(game, s.player_ids, s.options, s.row.seed)
        for entry in effective(await self.store.actions(session_id)):
            action = game.parse_action(json.loads(entry.action))
            state = apply(game, state, entry.player, action)
        replayed: GameState = state
        return replayed


def _awaited_robots(s: Session) -> frozenset[str]:
    """The bot seats the session awaits: the bot players look at it only when one is (a move
    in a game without bot seats, or that awaits only people, costs them nothing)."""
    if s.state is None or s.status is not SessionStatus.ACTIVE:
        return frozenset()
    if not any(map(is_robot, s.state.players)):
        return frozenset()
    return frozenset(filter(is_robot, s.game.active_players(s.state)))


def _dump(action: BaseModel) -> str:
    """The action's JSON for the log, encoded once (not to a dict, then to text)."""
    return action.model_dump_json()

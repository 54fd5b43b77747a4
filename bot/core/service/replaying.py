"""Replaying an ended game move by move, from its stored record through the rules (for the
Replay screens); a finished game never changes, so the replays of the latest ones are kept."""

from __future__ import annotations

import json
from collections import OrderedDict

from pydantic import BaseModel

from bot.core.errors import DamagedSession, NotAllowed, NotFound
from bot.core.record import effective
from bot.core.replays import Replay
from bot.core.service.loading import Loading
from games import REGISTRY
from games.engine import IllegalAction, apply, new_game

REPLAYS_KEPT = 16  # a few replays are watched at once; each holds every state of its game


class Replaying(Loading):
    """Replays of ended games."""

    _replays: OrderedDict[int, Replay]

    async def replay_of(self, session_id: int, guild_id: int | None) -> Replay:
        """An ended game of this server, replayed (refused while it is played: the replay
        would show the game's secrets as they are now)."""
        if not hasattr(self, "_replays"):
            self._replays = OrderedDict()
        kept = self._replays.get(session_id)
        if kept is not None:
            self._replays.move_to_end(session_id)
            return kept
        row = await self.store.get_session(session_id)
        if row is None or row.guild_id != guild_id or row.game_id not in REGISTRY:
            raise NotFound(f"There is no game #{session_id} to replay here.")
        if row.status.is_open:
            raise NotAllowed("A game can be replayed once it has ended.")
        if row.state is None:
            raise NotAllowed(
                "That lobby closed before the game started: there is nothing to replay."
            )
        game = REGISTRY[row.game_id]
        players = await self.store.players(session_id)
        options = game.Options.model_validate_json(row.options)
        state = new_game(game, [p.user_id for p in players], options, row.seed)
        states = [state]
        moves: list[tuple[str, BaseModel]] = []
        try:
            for entry in effective(await self.store.actions(session_id)):
                action = game.parse_action(json.loads(entry.action))
                state = apply(game, state, entry.player, action)
                states.append(state)
                moves.append((entry.player, action))
        except IllegalAction as exc:
            raise DamagedSession(f"This game's record does not replay ({exc.message}).") from None
        replay = Replay(
            session_id, game, {p.user_id: p.name for p in players}, states, moves, row.status.value
        )
        self._replays[session_id] = replay
        if len(self._replays) > REPLAYS_KEPT:
            self._replays.popitem(last=False)
        return replay

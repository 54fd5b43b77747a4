"""The lobby: a game created (or a rematch), players and bot players seated, options set,
the game started, or abandoned."""

from __future__ import annotations

import json
from typing import Any

from bot.core.errors import DamagedSession, NotAllowed, NotFound, UserError
from bot.core.seats import LEVELS, free_robot_id, is_robot, robot_seat_name
from bot.core.service.model import TABLE, Session, notice
from bot.core.service.writing import Writing, _announcement_posts
from bot.core.stale import retry_stale_writes
from bot.core.state_json import state_text
from bot.core.store import SessionRow, SessionStatus
from games import REGISTRY
from games.engine import IllegalAction, new_game
from games.presentation import player as player_token


class Lobby(Writing):
    """From a new lobby to the game's start (or its end by abandon)."""

    # -- lobby -----------------------------------------------------------------------------------
    async def create(
        self,
        *,
        game_id: str,
        channel_id: int,
        guild_id: int | None,
        host_id: str,
        host_name: str,
        options: dict[str, Any] | None = None,
        seed: int | None = None,
    ) -> Session:
        game = REGISTRY.get(game_id)
        if game is None:
            raise NotFound(
                f"There is no game called {game_id!r}. Try one of: {', '.join(REGISTRY)}."
            )
        try:
            parsed = game.parse_options(options or {})
        except IllegalAction as exc:
            raise UserError(exc.message) from None
        existing = await self.store.open_session_in_channel(channel_id)
        if existing is not None:
            raise NotAllowed(
                f"This channel already has a game of {REGISTRY[existing.game_id].title} "
                f"(#{existing.id}). Finish or abandon it first, or start one in a thread."
            )
        session_id = await self.store.create_session(
            guild_id=guild_id,
            channel_id=channel_id,
            game_id=game_id,
            host_id=host_id,
            host_name=host_name,
            options=parsed.model_dump(mode="json"),
            seed=seed if seed is not None else self.new_seed(),
        )
        self._changed(session_id)
        return await self.load(session_id)

    async def rematch(self, session_id: int, user_id: str, name: str) -> tuple[Session, bool]:
        """A new lobby in a finished game's channel with its options and every one of its
        players seated, hosted by ``user_id`` (one of them). One per game: asked again, it is
        the lobby already opened. Returns the lobby and whether it was opened now."""
        async with self.lock(session_id):
            old = await self.store.get_session(session_id)
            if old is None:
                raise NotFound(f"There is no game #{session_id}.")
            existing = await self.store.rematch_of(session_id)
            if existing is not None:
                return await self.load(existing.id), False
            if old.status is not SessionStatus.FINISHED:
                raise NotAllowed("Only a finished game can be played again.")
            seated = await self.store.players(session_id)
            if user_id not in {p.user_id for p in seated}:
                raise NotAllowed(
                    "Only this game's players can call the rematch — `/game new` starts "
                    "another game."
                )
            game = REGISTRY.get(old.game_id)
            if game is None:
                raise DamagedSession(f"Game #{old.id} is of an unknown kind ({old.game_id!r}).")
            taken = await self.store.open_session_in_channel(old.channel_id)
            if taken is not None:
                title = REGISTRY[taken.game_id].title if taken.game_id in REGISTRY else "a game"
                raise NotAllowed(
                    f"<#{old.channel_id}> already has a game of {title} (#{taken.id}): finish "
                    "or abandon it first."
                )
            try:
                options = game.parse_options(json.loads(old.options))
            except (IllegalAction, ValueError):
                raise DamagedSession(f"Game #{old.id}'s options cannot be read.") from None
            new_id = await self.store.create_session(
                guild_id=old.guild_id,
                channel_id=old.channel_id,
                game_id=game.id,
                host_id=user_id,
                host_name=name[:32],
                options=options.model_dump(mode="json"),
                seed=self.new_seed(),
                guests=[(p.user_id, p.name) for p in seated if p.user_id != user_id],
                rematch_of=session_id,
            )
        self._changed(new_id)
        return await self.load(new_id), True

    @retry_stale_writes
    async def join(self, session_id: int, user_id: str, name: str) -> Session:
        async with self.lock(session_id):
            s = await self.load(session_id)
            self._require_lobby(s)
            if s.player(user_id):
                raise NotAllowed("You've already joined this table.")
            if len(s.players) >= s.game.max_players:
                raise NotAllowed(f"The table is full ({s.game.max_players} players).")
            with self._rewrite(session_id):
                await self.store.update_lobby(session_id, s.version, add=(user_id, name[:32]))
            self._changed(session_id, frozenset({TABLE}), posted=False)
            return await self.load(session_id)

    @retry_stale_writes
    async def leave(self, session_id: int, user_id: str) -> Session:
        async with self.lock(session_id):
            s = await self.load(session_id)
            self._require_lobby(s, "You can't leave once the game has started.")
            if not s.player(user_id):
                raise NotAllowed("You're not at this table.")
            if user_id == s.row.host_id:
                raise NotAllowed(
                    "You're the host: use `/game abandon` to close the lobby instead of leaving."
                )
            with self._rewrite(session_id):
                await self.store.update_lobby(session_id, s.version, remove=user_id)
            self._changed(session_id, frozenset({TABLE}), posted=False)
            return await self.load(session_id)

    @retry_stale_writes
    async def add_robot(self, session_id: int, user_id: str, level: str = "normal") -> Session:
        """The host seats a bot player at ``level`` (easy, normal or hard; see
        bot.core.robots)."""
        if level not in LEVELS:
            raise UserError(f"There is no bot level {level!r}: pick one of {', '.join(LEVELS)}.")
        async with self.lock(session_id):
            s = await self.load(session_id)
            self._require_lobby(s, "Bot players can only be seated in the lobby.")
            if user_id != s.row.host_id:
                raise NotAllowed("Only the host can add bot players.")
            if len(s.players) >= s.game.max_players:
                raise NotAllowed(f"The table is full ({s.game.max_players} players).")
            robot = free_robot_id(s.player_ids)
            with self._rewrite(session_id):
                await self.store.update_lobby(
                    session_id, s.version, add=(robot, robot_seat_name(robot, level))
                )
            self._changed(session_id)
            return await self.load(session_id)

    @retry_stale_writes
    async def remove_robot(self, session_id: int, user_id: str) -> Session:
        """The host takes back the bot player seated last."""
        async with self.lock(session_id):
            s = await self.load(session_id)
            self._require_lobby(s, "Bot players can only be removed in the lobby.")
            if user_id != s.row.host_id:
                raise NotAllowed("Only the host can remove bot players.")
            robots = [p for p in s.players if is_robot(p.user_id)]
            if not robots:
                raise NotAllowed("There is no bot player at this table.")
            last = max(robots, key=lambda p: p.seat)
            with self._rewrite(session_id):
                await self.store.update_lobby(session_id, s.version, remove=last.user_id)
            self._changed(session_id)
            return await self.load(session_id)

    @retry_stale_writes
    async def set_option(self, session_id: int, user_id: str, key: str, value: Any) -> Session:
        async with self.lock(session_id):
            s = await self.load(session_id)
            self._require_lobby(s, "Options can only be changed in the lobby.")
            if user_id != s.row.host_id:
                raise NotAllowed("Only the host can change the options.")
            if key not in s.game.Options.model_fields:
                raise UserError(f"{s.game.title} has no option {key!r}.")
            raw = s.options.model_dump(mode="json") | {key: value}
            try:
                parsed = s.game.parse_options(raw)
            except IllegalAction as exc:
                raise UserError(exc.message) from None
            with self._rewrite(session_id):
                await self.store.update_lobby(
                    session_id, s.version, options=parsed.model_dump(mode="json")
                )
            self._changed(session_id, frozenset({TABLE}), posted=False)
            return await self.load(session_id)

    @retry_stale_writes
    async def start(self, session_id: int, user_id: str) -> Session:
        async with self.lock(session_id):
            s = await self.load(session_id)
            self._require_lobby(s, "The game has already started.")
            if user_id != s.row.host_id:
                raise NotAllowed("Only the host can start the game.")
            game = s.game
            try:
                state = new_game(game, s.player_ids, s.options, s.row.seed)
            except IllegalAction as exc:
                raise NotAllowed(exc.message) from None
            with self._rewrite(session_id):
                await self.store.commit_state(
                    session_id,
                    s.version,
                    state=state_text(state),
                    status=SessionStatus.ACTIVE,
                    new_actions=[],
                    timers=self._timers(game, state),
                    posts=_announcement_posts(state, 0),
                    announced=len(state.announcements),
                )
            self._changed(session_id)
            return await self.load(session_id)

    @retry_stale_writes
    async def abandon(
        self, session_id: int, user_id: str, may_manage: bool, who: str = ""
    ) -> SessionRow:
        """Close a lobby or a game for good (the log is kept). Works on a session whose stored
        data cannot be loaded too: it is marked, not repaired."""
        async with self.lock(session_id):
            row = await self.store.get_session(session_id)
            if row is None:
                raise NotFound(f"There is no game #{session_id}.")
            if not row.status.is_open:
                raise NotAllowed("That game has already ended.")
            if user_id != row.host_id and not may_manage:
                raise NotAllowed("Only the host or someone with Manage Channels can abandon it.")
            note: str | None = None
            try:
                title = f"game of {(await self.load(session_id)).game.title}"
            except DamagedSession as exc:
                title, note = "game", f"abandoned while damaged: {exc.message}"[:500]
            text = f"🧹 {who or player_token(user_id)} abandoned this {title}. `/game new` starts another."
            with self._rewrite(session_id):
                await self.store.set_status(
                    session_id,
                    row.version,
                    SessionStatus.ABANDONED,
                    note=note,
                    posts=[notice(text)],
                )
            self._changed(session_id)
            stored = await self.store.get_session(session_id)
            assert stored is not None
            return stored

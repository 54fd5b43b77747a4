"""The session service: the only way game state changes.

Each call locks its session, loads it, asks the engine to check and apply the action, and writes
the new state, the action log entry and the timers in one SQLite transaction before it returns.
Nothing here knows about Discord; the bot and the simulator both drive games through it.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import BaseModel, ValidationError

from bot.core.errors import (
    DamagedSession,
    IllegalMove,
    NotAllowed,
    NotFound,
    StaleVersion,
    UserError,
)
from bot.core.stale import SessionLock, retry_stale_writes
from bot.core.store import (
    CHANNEL,
    NewAction,
    NewPost,
    PlayerRow,
    PostRow,
    SessionRow,
    SessionStatus,
    Store,
    TimerRow,
)
from games import REGISTRY
from games.engine import (
    Game,
    GameState,
    IllegalAction,
    Outcome,
    apply,
    clock_key,
    new_game,
    play_timeout,
)
from games.presentation import player as player_token


@dataclass
class Session:
    row: SessionRow
    players: list[PlayerRow]
    game: Game[Any, Any]
    options: BaseModel
    state: GameState | None

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def version(self) -> int:
        return self.row.version

    @property
    def status(self) -> SessionStatus:
        return self.row.status

    @property
    def player_ids(self) -> list[str]:
        return [p.user_id for p in self.players]

    def player(self, user_id: str) -> PlayerRow | None:
        return next((p for p in self.players if p.user_id == user_id), None)

    def names(self) -> dict[str, str]:
        return {p.user_id: p.name for p in self.players}

    def outcome(self) -> Outcome | None:
        if self.state is None:
            return None
        return self.game.outcome(self.state)


def notice(text: str, ping: list[str] | None = None) -> NewPost:
    """A short channel message (player tokens in ``text`` become names)."""
    return NewPost({"notice": text, "ping": ping or []})


def names_of(players: list[str]) -> str:
    return ", ".join(player_token(p) for p in players)


@dataclass
class ActResult:
    session: Session
    applied: list[tuple[str, BaseModel]] = field(default_factory=list)
    auto_played: list[str] = field(default_factory=list)  # players moved by a deadline


class SessionService:
    def __init__(
        self,
        store: Store,
        now: Callable[[], float] = time.time,
        new_seed: Callable[[], int] = lambda: secrets.randbits(62),
    ) -> None:
        self.store = store
        self.now = now
        self.new_seed = new_seed
        self._locks: dict[int, SessionLock] = {}
        self._listeners: list[Callable[[int], None]] = []
        # Sessions as last committed. A bot process that owns its database (SQLite) serves a
        # session from memory after the first load; with a shared database (``store.shared``)
        # the cached copy is served only while it is still the stored one. Every write checks
        # the stored version (UPDATE … WHERE version = ?), and a refused or failed write drops
        # the cached copy.
        self._cache: dict[int, Session] = {}

    def lock(self, session_id: int) -> SessionLock:
        return self._locks.setdefault(session_id, SessionLock())

    # -- change events ---------------------------------------------------------------------------
    def subscribe(self, listener: Callable[[int], None]) -> None:
        """Call ``listener(session_id)`` after every committed change of a session (the table
        sync and the scheduler listen; the service need not know them)."""
        self._listeners.append(listener)

    def _changed(self, session_id: int) -> None:
        for listener in self._listeners:
            listener(session_id)

    # -- reads for front ends --------------------------------------------------------------------
    async def deadline(self, session_id: int) -> TimerRow | None:
        """The deadline of the timed step in progress, if any."""
        timers = await self.store.timers(session_id)
        return next((t for t in timers if t.kind == "deadline"), None)

    async def open_sessions_of(self, user_id: str) -> list[SessionRow]:
        return await self.store.sessions_of_user(user_id)

    async def finished_in_guild(self, guild_id: int, limit: int = 10) -> list[SessionRow]:
        return await self.store.finished_in_guild(guild_id, limit=limit)

    async def open_sessions(self) -> list[SessionRow]:
        return await self.store.sessions_with_status(SessionStatus.LOBBY, SessionStatus.ACTIVE)

    async def names(self, session_id: int) -> dict[str, str]:
        return {p.user_id: p.name for p in await self.store.players(session_id)}

    # -- loading ---------------------------------------------------------------------------------
    async def load(self, session_id: int) -> Session:
        cached = self._cache.get(session_id)
        if cached is not None and (not self.store.shared or await self._still_stored(cached)):
            return cached
        row = await self.store.get_session(session_id)
        if row is None:
            raise NotFound(f"There is no game #{session_id}.")
        return await self._hydrate(row)

    async def reload(self, session_id: int) -> Session:
        """Read the session from the database again (after a write that bypassed the cache)."""
        self.forget(session_id)
        return await self.load(session_id)

    async def _still_stored(self, s: Session) -> bool:
        """Whether no other process changed the session, or what shows it, since it was cached."""
        return await self.store.session_stamp(s.id) == (s.row.version, s.row.shown)

    def forget(self, session_id: int) -> None:
        self._cache.pop(session_id, None)

    @contextlib.contextmanager
    def _rewrite(self, session_id: int) -> Iterator[None]:
        """A rare write (lobby, start, abandon): the next load reads the database again."""
        try:
            yield
        finally:
            self.forget(session_id)

    # Presentation bookkeeping: stored, and patched into the cached session.
    async def record_table_message(self, session_id: int, message_id: int | None) -> None:
        self._count_shown(session_id, await self.store.set_table_message(session_id, message_id))
        self._patch(session_id, table_message_id=message_id)

    # -- the outbox -------------------------------------------------------------------------------
    async def post_context(self, session_id: int) -> tuple[int, dict[str, str]]:
        """The channel and the players' names of a session, read without loading its game
        (so the posts of a session whose data is damaged still go out)."""
        row = await self.store.get_session(session_id)
        if row is None:
            raise NotFound(f"There is no game #{session_id}.")
        return row.channel_id, await self.names(session_id)

    async def unsent_posts(self, session_id: int) -> list[PostRow]:
        """The session's unsent posts, claimed for this process (another process sharing the
        database gets none of them while the claim lasts)."""
        return await self.store.claim_posts(session_id, self.now())

    async def mark_posted(
        self, post_id: int, message_id: int | None, *, failure: str | None = None
    ) -> None:
        await self.store.mark_posted(post_id, message_id, failure=failure)

    async def retry_post_later(self, post_id: int, at: float, failure: str) -> None:
        await self.store.retry_post_later(post_id, at, failure)

    async def sessions_with_posts_due(self) -> list[int]:
        return await self.store.sessions_with_posts_due(self.now())

    async def next_post_due(self) -> float | None:
        return await self.store.next_post_due()

    async def enqueue_unposted_announcements(self) -> int:
        """Announcements a database from before the outbox holds but never posted go to the
        outbox now (once: ``announced`` moves past them). Returns how many."""
        count = 0
        for row in await self.store.sessions_with_status(
            SessionStatus.ACTIVE, SessionStatus.FINISHED
        ):
            try:
                s = await self.load(row.id)
            except UserError:
                continue
            if s.state is None or s.row.announced >= len(s.state.announcements):
                continue
            async with self.lock(s.id):
                pending = [
                    a.model_dump(mode="json") for a in s.state.announcements[s.row.announced :]
                ]
                with self._rewrite(s.id):
                    await self.store.enqueue_announcements(
                        s.id, s.version, s.row.announced, pending
                    )
            count += len(pending)
            self._changed(s.id)
        return count

    async def remind(self, session_id: int, key: str, deadline: float) -> bool:
        """The reminder of step ``key`` is due: DM everyone the step still waits for (a channel
        ping for those whose DMs are closed), in the same transaction that deletes the timer."""
        s = await self.load(session_id)
        posts: list[NewPost] = []
        if s.state is not None and s.status is SessionStatus.ACTIVE:
            game = s.game
            for user_id in [p for p in s.state.players if p in game.active_players(s.state)]:
                text = (
                    f"⏰ **{game.title}** in <#{s.row.channel_id}> is waiting for your move — "
                    f"time runs out <t:{int(deadline)}:R>, then I'll decide for you as the rules "
                    f"say (`/game rules {game.id}`)."
                )
                fallback = (
                    f"⏰ Reminder: your move in {game.title} — time runs out <t:{int(deadline)}:R>."
                )
                posts.append(NewPost({"dm": text, "fallback": fallback}, target=f"user:{user_id}"))
        await self.store.post_and_delete_timer(session_id, "reminder", key, posts)
        if posts:
            self._changed(session_id)
        return bool(posts)

    async def record_dm(
        self,
        session_id: int,
        user_id: str,
        *,
        channel_id: int | None,
        message_id: int | None,
        stamp: str | None,
        digest: str | None,
    ) -> None:
        shown = await self.store.set_dm(
            session_id,
            user_id,
            channel_id=channel_id,
            message_id=message_id,
            stamp=stamp,
            digest=digest,
        )
        cached = self._count_shown(session_id, shown)
        if cached is not None:
            players = [
                replace(
                    p,
                    dm_channel_id=channel_id,
                    dm_message_id=message_id,
                    dm_stamp=stamp,
                    dm_digest=digest,
                )
                if p.user_id == user_id
                else p
                for p in cached.players
            ]
            self._cache[session_id] = replace(cached, players=players)

    def _count_shown(self, session_id: int, shown: int | None) -> Session | None:
        """After this process changed what shows a session (a shared store returns the new
        ``shown``): the cached copy, counted up, if nobody else changed it meanwhile; else it
        is dropped (read again next time)."""
        cached = self._cache.get(session_id)
        if cached is None or shown is None:
            return cached
        if shown != cached.row.shown + 1:
            self.forget(session_id)
            return None
        cached = replace(cached, row=replace(cached.row, shown=shown))
        self._cache[session_id] = cached
        return cached

    def _patch(self, session_id: int, **cols: Any) -> None:
        cached = self._cache.get(session_id)
        if cached is not None:
            self._cache[session_id] = replace(cached, row=replace(cached.row, **cols))

    async def _hydrate(self, row: SessionRow) -> Session:
        game = REGISTRY.get(row.game_id)
        if game is None:
            raise DamagedSession(f"Game #{row.id} is of an unknown kind ({row.game_id!r}).")
        try:
            options = game.Options.model_validate_json(row.options)
            state = game.load_state(row.state) if row.state is not None else None
        except (ValidationError, ValueError) as exc:
            raise DamagedSession(
                f"Game #{row.id}'s saved data is damaged and cannot be loaded ({type(exc).__name__})."
                " Nothing was changed; an admin can `/game abandon` it."
            ) from None
        players = await self.store.players(row.id)
        session = Session(row=row, players=players, game=game, options=options, state=state)
        self._cache[row.id] = session
        return session

    async def open_in_channel(self, channel_id: int) -> Session | None:
        row = await self.store.open_session_in_channel(channel_id)
        return await self.load(row.id) if row else None

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
            self._changed(session_id)
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
            self._changed(session_id)
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
                    state=state.model_dump_json(),
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

    async def open_row_in_channel(self, channel_id: int) -> SessionRow | None:
        """The open session of a channel as stored, even when its data cannot be loaded."""
        return await self.store.open_session_in_channel(channel_id)

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
    ) -> ActResult:
        """Like :meth:`act`, with the action chosen from the freshly loaded session under the
        lock (so a click is checked against exactly the state it will change)."""
        async with self.lock(session_id):
            s = await self.load(session_id)
            raw_action = choose(s)
            state = self._require_playing(s)
            game = s.game
            try:
                action = (
                    raw_action
                    if isinstance(raw_action, BaseModel)
                    else game.parse_action(raw_action)
                )
                new_state = apply(game, state, player, action)
            except IllegalAction as exc:
                raise IllegalMove(exc.message) from None
            committed = await self._commit(s, state, new_state, [NewAction(player, _dump(action))])
        self._changed(session_id)
        return ActResult(session=committed, applied=[(player, action)])

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
            committed = await self._commit(s, s.state, state, log, posts)
        self._changed(session_id)
        return ActResult(session=committed, applied=applied, auto_played=auto)

    async def _commit(
        self,
        s: Session,
        old: GameState,
        new: GameState,
        log: list[NewAction],
        posts: list[NewPost] | None = None,
    ) -> Session:
        """Write ``new``, its log entries and what it must post; return the session as now
        stored."""
        try:
            committed = await self._write_state(s, old, new, log, posts or [])
        except BaseException:
            self.forget(s.id)  # e.g. a stale version: read the truth next time
            raise
        latest = self._cache.get(s.id)
        if latest is not None and latest is not s and latest.version == s.version:
            # What shows the session was recorded while this wrote (a DM, by the sync worker):
            # keep it, or the cache would go back to the messages shown before.
            row = replace(
                committed.row,
                shown=latest.row.shown,
                table_message_id=latest.row.table_message_id,
            )
            committed = replace(committed, row=row, players=latest.players)
        self._cache[s.id] = committed
        return committed

    async def _write_state(
        self,
        s: Session,
        old: GameState,
        new: GameState,
        log: list[NewAction],
        posts: list[NewPost],
    ) -> Session:
        outcome = s.game.outcome(new)
        old_key = clock_key(s.game, old)
        same_step = outcome is None and old_key is not None and old_key == clock_key(s.game, new)
        state_json = new.model_dump_json()
        status = SessionStatus.FINISHED if outcome is not None else SessionStatus.ACTIVE
        outcome_json = outcome.model_dump_json() if outcome is not None else None
        await self.store.commit_state(
            s.id,
            s.version,
            state=state_json,
            status=status,
            new_actions=log,
            outcome=outcome_json,
            timers=[] if same_step else self._timers(s.game, new),  # [] once the game is over
            keep_timers=same_step,
            posts=_announcement_posts(new, s.row.announced) + posts,
            announced=len(new.announcements),
        )
        row = replace(
            s.row,
            state=state_json,
            status=status,
            outcome=outcome_json,
            version=s.version + 1,
            announced=len(new.announcements),
        )
        return replace(s, row=row, state=new)

    def _timers(self, game: Game[Any, Any], state: GameState) -> list[TimerRow]:
        clock = game.clock(state)
        if clock is None or game.outcome(state) is not None:
            return []
        now = self.now()
        timers = [TimerRow(0, "deadline", clock.key, now + clock.seconds)]
        if clock.remind:
            timers.append(TimerRow(0, "reminder", clock.key, now + clock.seconds / 2))
        return timers

    async def replay(self, session_id: int) -> GameState:
        """Rebuild the state from the seed and the action log."""
        s = await self.load(session_id)
        if s.state is None:
            raise NotAllowed("That game has not started.")
        game = s.game
        state = new_game(game, s.player_ids, s.options, s.row.seed)
        for entry in await self.store.actions(session_id):
            action = game.parse_action(json.loads(entry.action))
            state = apply(game, state, entry.player, action)
        replayed: GameState = state
        return replayed

    # -- guards ----------------------------------------------------------------------------------
    @staticmethod
    def _require_lobby(s: Session, message: str = "The game has already started.") -> None:
        if s.status is not SessionStatus.LOBBY:
            active = s.status is SessionStatus.ACTIVE
            raise NotAllowed(message if active else "That game has ended.")

    @staticmethod
    def _require_playing(s: Session) -> GameState:
        if s.status is SessionStatus.LOBBY or s.state is None:
            raise NotAllowed("The game hasn't started yet.")
        if s.status is not SessionStatus.ACTIVE:
            raise NotAllowed("That game has ended.")
        return s.state


def _announcement_posts(state: GameState, already: int) -> list[NewPost]:
    return [
        NewPost({"announcement": a.model_dump(mode="json")}, target=CHANNEL)
        for a in state.announcements[already:]
    ]


def _dump(action: BaseModel) -> dict[str, Any]:
    return action.model_dump(mode="json")

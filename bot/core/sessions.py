"""The session service: the only way game state changes.

Each call locks its session, loads it, asks the engine to check and apply the action, and writes
the new state, the action log entry and the timers in one transaction before it returns.
Nothing here knows about Discord; the bot and the simulator both drive games through it.
"""

from __future__ import annotations

import contextlib
import json
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
from bot.core.record import GameRecord, RecordedAction, commitment, effective
from bot.core.seats import free_robot_id, is_robot, robot_name
from bot.core.stale import SessionLock, retry_stale_writes
from bot.core.state_json import StateJson
from bot.core.store import (
    CHANNEL,
    NewAction,
    NewPost,
    NewResult,
    PlayerRow,
    PostRow,
    SessionRow,
    SessionStatus,
    StatRow,
    Store,
    TimerRow,
    UndoRequestRow,
)
from bot.core.undo import UndoPlan, plan_undo
from games import REGISTRY, rng
from games.engine import (
    Game,
    GameState,
    IllegalAction,
    Outcome,
    Undo,
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

    @property
    def commitment(self) -> str:
        """The SHA-256 of the game, its options and its seed: shown from the start, checked
        against the seed revealed at the end (see bot.core.record)."""
        return commitment(self.game.id, json.loads(self.row.options), self.row.seed)


LAST_POSTED_KEPT = 10_000  # sessions whose last post time is remembered (quick games are recent)


def notice(text: str, ping: list[str] | None = None) -> NewPost:
    """A short channel message (player tokens in ``text`` become names)."""
    return NewPost({"notice": text, "ping": ping or []})


def names_of(players: list[str]) -> str:
    return ", ".join(player_token(p) for p in players)


TABLE = None  # in Change.views: the public table


@dataclass(frozen=True)
class Change:
    """A committed change of a session, as its listeners hear of it."""

    session_id: int
    # Which views may show something new: players' private panels by id, the table as TABLE;
    # None: any of them (a lobby change, a deadline, a restart…).
    views: frozenset[str | None] | None = None
    posted: bool = True  # the change put something in the outbox
    timers: bool = True  # the change may have changed the session's timers or undo requests
    robots: bool = True  # a bot seat may be awaited now (False: the game seats none)
    # The session's version after the change (None: not said). A view drawn from this version
    # or a later one shows the change.
    version: int | None = None


@dataclass(frozen=True)
class SeatedGame:
    """One game a player is seated in, as /game mine lists it."""

    row: SessionRow
    title: str
    step: str  # the table's headline (player tokens in it), or the lobby's count
    awaited: list[str]  # whose move the table waits for (empty in a lobby)
    deadline: float | None  # when the step's time runs out
    yours: bool  # the table waits for this player
    names: dict[str, str] = field(default_factory=dict)  # the players' names by id

    @property
    def lobby(self) -> bool:
        return self.row.status is SessionStatus.LOBBY


@dataclass(frozen=True)
class HistoryPage:
    """One page of a server's ended games, newest first."""

    games: list[tuple[SessionRow, dict[str, str]]]  # each with its players' names
    page: int  # from 0
    pages: int
    total: int


@dataclass(frozen=True)
class Leaderboard:
    """A server's best players, of one game (``game_id``) or of all."""

    game_id: str | None
    lines: list[StatRow]  # key: the user id
    names: dict[str, str]
    finished: dict[str, int]  # games finished in the server, by game id


@dataclass(frozen=True)
class UndoAnswer:
    """What became of an undo: asked, or settled (taken back or not), with a line saying so."""

    text: str
    undone: bool = False
    settled: bool = True
    due: float | None = None  # a request waiting: granted then unless someone objects
    seq: int | None = None  # the move asked about


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
        new_seed: Callable[[], int] = rng.new_seed,
        undo_wait: float = 60.0,
        post_coalesce: float = 0.0,
    ) -> None:
        self.store = store
        self.now = now
        self.new_seed = new_seed
        self.undo_wait = undo_wait  # seconds the others have to object to an undo
        # Seconds a session's channel posts wait for later moves' posts to share their message,
        # when the session posted less than that ago (a quick game; 0: never wait).
        self.post_coalesce = post_coalesce
        self._last_posted: dict[int, float] = {}  # session → wall time of its last channel post
        self._locks: dict[int, SessionLock] = {}
        self._state_json = StateJson()  # each cached session's last state JSON, by field
        self._listeners: list[Callable[[Change], None]] = []
        # The deadline of each cached session's step; it goes with the cached session (a
        # process sharing the database that changes the timers changes the session's stamp).
        self._deadlines: dict[int, TimerRow | None] = {}
        # Sessions as last committed. A bot process that owns its database (SQLite) serves a
        # session from memory after the first load; with a shared database (``store.shared``)
        # the cached copy is served only while it is still the stored one. Every write checks
        # the stored version (UPDATE … WHERE version = ?), and a refused or failed write drops
        # the cached copy.
        self._cache: dict[int, Session] = {}

    def lock(self, session_id: int) -> SessionLock:
        return self._locks.setdefault(session_id, SessionLock())

    # -- change events ---------------------------------------------------------------------------
    def subscribe(self, listener: Callable[[Change], None]) -> None:
        """Call ``listener(change)`` after every committed change of a session (the table sync
        and the scheduler listen; the service need not know them)."""
        self._listeners.append(listener)

    def _changed(
        self,
        session_id: int,
        views: frozenset[str | None] | None = None,
        *,
        posted: bool = True,
        timers: bool = True,
        robots: bool = True,
        version: int | None = None,
    ) -> None:
        change = Change(session_id, views, posted, timers, robots, version)
        for listener in self._listeners:
            listener(change)

    # -- reads for front ends --------------------------------------------------------------------
    async def deadline(self, session_id: int) -> TimerRow | None:
        """The deadline of the timed step in progress, if any (kept in memory: every change
        of a session's timers goes through the service, or tells it with timers_changed; with a
        shared database, only while the cached session is still the stored one, as another
        process's change of the timers changes its version or ``shown``)."""
        if self.store.shared and session_id in self._deadlines:
            cached = self._cache.get(session_id)
            if cached is None or not await self._still_stored(cached):
                self.forget(session_id)
        if session_id not in self._deadlines:
            timers = await self.store.timers(session_id)
            self._deadlines[session_id] = next((t for t in timers if t.kind == "deadline"), None)
        return self._deadlines[session_id]

    def timers_changed(self, session_id: int | None = None) -> None:
        """Timers were changed in the store directly (fired, deleted, shifted): read them again
        (None: every session's)."""
        if session_id is None:
            self._deadlines.clear()
        else:
            self._deadlines.pop(session_id, None)

    async def open_sessions_of(self, user_id: str) -> list[SessionRow]:
        return await self.store.sessions_of_user(user_id)

    async def seated_games(self, user_id: str, *, steps: bool = True) -> list[SeatedGame]:
        """Every open game ``user_id`` is seated in, across servers: those waiting for them
        first, then by deadline. A game whose data cannot be loaded is listed as such.
        ``steps`` False: without the table's headline (cheaper)."""
        found: list[SeatedGame] = []
        for row, deadline in await self.store.open_sessions_with_deadlines(user_id):
            try:
                s = await self.load(row.id)
            except UserError:
                found.append(SeatedGame(row, "a damaged game", "cannot be shown", [], None, False))
                continue
            if s.state is None:
                step = f"lobby — {len(s.players)}/{s.game.max_players} seated"
                found.append(SeatedGame(s.row, s.game.title, step, [], None, False, s.names()))
                continue
            active = s.game.active_players(s.state)
            awaited = [p for p in s.state.players if p in active]
            step = s.game.table(s.state)[0].title if steps else ""
            yours = user_id in active
            found.append(SeatedGame(s.row, s.game.title, step, awaited, deadline, yours, s.names()))
        found.sort(key=lambda g: (not g.yours, g.deadline is None, g.deadline or 0.0, g.row.id))
        return found

    async def waiting_elsewhere(self, user_id: str, session_id: int) -> int:
        """How many other games wait for ``user_id``'s move."""
        return sum(
            1
            for g in await self.seated_games(user_id, steps=False)
            if g.yours and g.row.id != session_id
        )

    async def history(self, guild_id: int, page: int, per_page: int = 5) -> HistoryPage:
        """A page of the server's finished and abandoned games (a page past the end: the
        last one)."""
        rows, total = await self.store.ended_in_guild(
            guild_id, offset=max(0, page) * per_page, limit=per_page
        )
        pages = max(1, -(-total // per_page))
        if page >= pages and total:
            return await self.history(guild_id, pages - 1, per_page)
        games = [(row, await self.names(row.id)) for row in rows]
        return HistoryPage(games, max(0, page), pages, total)

    async def leaderboard(
        self, guild_id: int, game_id: str | None = None, limit: int = 10
    ) -> Leaderboard:
        if game_id is not None and game_id not in REGISTRY:
            raise NotFound(f"There is no game called {game_id!r}.")
        lines = await self.store.leaderboard(guild_id, game_id, limit)
        names = await self.store.latest_names([line.key for line in lines])
        return Leaderboard(game_id, lines, names, await self.store.games_finished(guild_id))

    async def player_record(
        self, guild_id: int, user_id: str, game_id: str | None = None
    ) -> list[StatRow]:
        """``user_id``'s results in the server, per game (key: the game id)."""
        return await self.store.player_record(guild_id, user_id, game_id)

    async def record(self, session_id: int, guild_id: int | None) -> GameRecord:
        """The full record of an ended game of this server: options, seed, every action."""
        row = await self.store.get_session(session_id)
        if row is None or row.guild_id != guild_id:
            raise NotFound(f"There is no game #{session_id} in this server.")
        if row.status.is_open:
            raise NotAllowed(
                "A game's record (with its seed) is given once the game has ended, so it "
                "cannot reveal the deal while you play."
            )
        if row.state is None:
            raise NotAllowed("That lobby closed before the game started: there is no record.")
        players = await self.store.players(session_id)
        log = await self.store.actions(session_id)
        options = json.loads(row.options)
        return GameRecord(
            game=row.game_id,
            session=row.id,
            status=row.status.value,
            players=[p.user_id for p in players],
            names={p.user_id: p.name for p in players},
            options=options,
            seed=row.seed,
            commitment=commitment(row.game_id, options, row.seed),
            created_at=row.created_at,
            ended_at=row.updated_at,
            actions=[
                RecordedAction(
                    seq=a.seq,
                    player=a.player,
                    action=json.loads(a.action),
                    source=a.source,
                    at=a.created_at,
                    undoes=a.undoes,
                )
                for a in log
            ],
            outcome=json.loads(row.outcome) if row.outcome else None,
        )

    async def open_sessions(self) -> list[SessionRow]:
        return await self.store.sessions_with_status(SessionStatus.LOBBY, SessionStatus.ACTIVE)

    async def names(self, session_id: int) -> dict[str, str]:
        return {p.user_id: p.name for p in await self.store.players(session_id)}

    # -- loading ---------------------------------------------------------------------------------
    async def load(self, session_id: int) -> Session:
        cached = self._cache.get(session_id)
        if cached is not None:
            if not self.store.shared or await self._still_stored(cached):
                return cached
            self.forget(session_id)  # another process changed it (and maybe its timers)
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
        self._state_json.forget(session_id)
        self._deadlines.pop(session_id, None)

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

    # -- presentation memo -----------------------------------------------------------------------
    # Small facts a front end must remember across restarts about what its messages show (e.g.
    # which attachment holds which picture), so it need not send them again.
    async def recall(self, key: str) -> str | None:
        return await self.store.get_meta(f"memo:{key}")

    async def remember(self, key: str, value: str) -> None:
        await self.store.set_meta(f"memo:{key}", value)

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
        self, post_ids: list[int], message_id: int | None, *, failure: str | None = None
    ) -> None:
        await self.store.mark_posted(post_ids, message_id, failure=failure)

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
            awaited = [p for p in s.state.players if p in game.active_players(s.state)]
            for user_id in [p for p in awaited if not is_robot(p)]:  # bot players need no nudge
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
        """The game going on in a channel (or in the thread of its table)."""
        row = await self.store.open_session_in_channel(channel_id)
        return await self.load(row.id) if row else None

    async def latest_in_channel(self, channel_id: int) -> Session | None:
        """The channel's latest game, open or not (to show how the last one ended)."""
        row = await self.store.latest_session_in_channel(channel_id)
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
    async def add_robot(self, session_id: int, user_id: str) -> Session:
        """The host seats a bot player (played by the game's strategy, see bot.core.robots)."""
        async with self.lock(session_id):
            s = await self.load(session_id)
            self._require_lobby(s, "Bot players can only be seated in the lobby.")
            if user_id != s.row.host_id:
                raise NotAllowed("Only the host can add bot players.")
            if len(s.players) >= s.game.max_players:
                raise NotAllowed(f"The table is full ({s.game.max_players} players).")
            robot = free_robot_id(s.player_ids)
            with self._rewrite(session_id):
                await self.store.update_lobby(session_id, s.version, add=(robot, robot_name(robot)))
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
            touched = game.views_touched(state, new_state, player)
        posted = len(new_state.announcements) > len(state.announcements)
        self._changed(
            session_id,
            None if touched is None else frozenset(touched),
            posted=posted,
            timers=not _timers_stand(game, state, new_state),
            robots=any(is_robot(p) for p in new_state.players),
            version=committed.version,
        )
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
            committed = await self._commit(s, s.state, state, log, posts)
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

    async def _commit(
        self,
        s: Session,
        old: GameState,
        new: GameState,
        log: list[NewAction],
        posts: list[NewPost] | None = None,
        *,
        settle_undo: bool = False,
    ) -> Session:
        """Write ``new``, its log entries and what it must post; return the session as now
        stored."""
        try:
            committed = await self._write_state(s, old, new, log, posts or [], settle_undo)
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
        settle_undo: bool = False,
    ) -> Session:
        outcome = s.game.outcome(new)
        old_key = clock_key(s.game, old)
        same_step = outcome is None and old_key is not None and old_key == clock_key(s.game, new)
        state_json = (
            self._state_json.dump(s.id, new) if s.game.copy_on_write else new.model_dump_json()
        )
        status = SessionStatus.FINISHED if outcome is not None else SessionStatus.ACTIVE
        outcome_json = outcome.model_dump_json() if outcome is not None else None
        timers = [] if same_step else self._timers(s.game, new)  # [] once the game is over
        await self.store.commit_state(
            s.id,
            s.version,
            state=state_json,
            status=status,
            new_actions=log,
            outcome=outcome_json,
            timers=timers,
            keep_timers=same_step,
            posts=self._held(
                s.id, _announcement_posts(new, s.row.announced) + posts + _result_posts(s, outcome)
            ),
            announced=len(new.announcements),
            results=_results_of(outcome),
            settle_undo=settle_undo or outcome is not None,  # no undo once it is over
        )
        if not same_step:
            self._deadlines[s.id] = next((t for t in timers if t.kind == "deadline"), None)
        row = replace(
            s.row,
            state=state_json,
            status=status,
            outcome=outcome_json,
            version=s.version + 1,
            announced=len(new.announcements),
        )
        return replace(s, row=row, state=new)

    def _held(self, session_id: int, posts: list[NewPost]) -> list[NewPost]:
        """A change's posts, marked to wait for later ones when the session posted a moment
        ago (in a quick game several moves then share one message in its thread)."""
        if not any(p.joins_others for p in posts):
            return posts
        now = time.time()  # the outbox's clock: Discord's rate limits run on wall time
        last = self._last_posted.pop(session_id, None)
        self._last_posted[session_id] = now  # newest last: the oldest go first past the cap
        if len(self._last_posted) > LAST_POSTED_KEPT:
            del self._last_posted[next(iter(self._last_posted))]
        if self.post_coalesce <= 0 or last is None or now - last >= self.post_coalesce:
            return posts
        hold = {"hold": self.post_coalesce}
        return [NewPost({**p.payload, **hold}, p.target) if p.joins_others else p for p in posts]

    def _timers(self, game: Game[Any, Any], state: GameState) -> list[TimerRow]:
        clock = game.clock(state)
        if clock is None or game.outcome(state) is not None:
            return []
        now = self.now()
        timers = [TimerRow(0, "deadline", clock.key, now + clock.seconds)]
        if clock.remind:
            timers.append(TimerRow(0, "reminder", clock.key, now + clock.seconds / 2))
        return timers

    # -- undo ------------------------------------------------------------------------------------
    @retry_stale_writes
    async def ask_undo(self, session_id: int, user_id: str) -> UndoAnswer:
        """``user_id`` asks to take back their last move: at once when it affects nobody else
        (Undo.FREE, or nobody else is seated), else the others are asked (a post with
        buttons) and it is taken back when all agree or nobody objects in time."""
        async with self.lock(session_id):
            s = await self.load(session_id)
            self._require_playing(s)
            if s.player(user_id) is None:
                raise NotAllowed("You're not playing in this game.")
            plan = await self._plan_undo(s, user_id)
            others = [p for p in s.player_ids if p != user_id]
            if plan.policy is Undo.FREE or not others:
                await self._undo(s, plan, "it affected nobody else yet")
                answer = UndoAnswer(f"↩️ Taken back: {plan.label}.", undone=True)
            else:
                answer = await self._ask_others(s, plan, user_id, others)
        self._changed(session_id, None if answer.undone else frozenset())
        return answer

    async def _ask_others(
        self, s: Session, plan: UndoPlan, user_id: str, others: list[str]
    ) -> UndoAnswer:
        now = self.now()
        due = now + self.undo_wait
        seq = plan.target.seq
        request = {"seq": seq, "player": user_id, "label": plan.public_label, "due": due}
        await self.store.ask_undo(
            UndoRequestRow(s.id, seq, user_id, "", now, due),
            [NewPost({"undo_request": request, "ping": others})],
        )
        return UndoAnswer(
            f"↩️ Asked the others to let you take back {plan.label}: it is undone when they "
            f"all agree, or if nobody objects <t:{int(due)}:R>.",
            settled=False,
            due=due,
            seq=seq,
        )

    @retry_stale_writes
    async def answer_undo(self, session_id: int, user_id: str, seq: int, agree: bool) -> UndoAnswer:
        """Another player agrees to (or objects to) the undo of move ``seq``."""
        async with self.lock(session_id):
            request = await self.store.undo_request(session_id)
            if request is None or request.seq != seq:
                raise NotAllowed("That undo request is over.")
            s = await self.load(session_id)
            if s.player(user_id) is None:
                raise NotAllowed("Only the players of this game decide.")
            if user_id == request.player:
                raise NotAllowed("It's your own request: the others decide.")
            who = player_token(user_id)
            if not agree:
                # Nothing changes: the request's own message says so (no post of its own).
                text = f"✋ {who} objected: {player_token(request.player)}'s move stands."
                await self.store.drop_undo(session_id, [])
                answer = UndoAnswer(text)
            else:
                # Counted in the store at once: two players agreeing together (through two
                # processes sharing the database) are both counted.
                stored = await self.store.agree_undo(session_id, seq, user_id)
                if stored is None:
                    raise NotAllowed("That undo request is over.")
                agreed = sorted(stored)
                waiting = [p for p in s.player_ids if p not in agreed and p != request.player]
                if waiting:
                    return UndoAnswer(
                        f"👍 {names_of(agreed)} agreed; waiting for {names_of(waiting)}.",
                        settled=False,
                        due=request.due_at,
                        seq=seq,
                    )
                answer = await self._grant(s, request, "everyone agreed")
        self._changed(session_id)
        return answer

    async def settle_due_undos(self) -> int:
        """Grant the requests nobody objected to in time (the scheduler calls this)."""
        granted = 0
        for request in await self.store.undo_requests_due(self.now()):
            granted += await self._settle_undo(request.session_id)
        return granted

    @retry_stale_writes
    async def _settle_undo(self, session_id: int) -> bool:
        async with self.lock(session_id):
            # Read again under the lock: settled meanwhile (here, or by another process
            # sharing the database, whose grant makes this one's write stale: retried).
            current = await self.store.undo_request(session_id)
            if current is None or current.due_at > self.now():
                return False
            try:
                s = await self.load(session_id)
            except UserError:
                await self.store.drop_undo(session_id, [])
                return False
            answer = await self._grant(s, current, "nobody objected")
        self._changed(session_id)
        return answer.undone

    async def next_undo_due(self) -> float | None:
        return await self.store.next_undo_due()

    async def _grant(self, s: Session, request: UndoRequestRow, why: str) -> UndoAnswer:
        """Take the move back if that is still possible (the game may have moved on)."""
        try:
            if s.status is not SessionStatus.ACTIVE:
                raise NotAllowed("the game has ended.")
            plan = await self._plan_undo(s, request.player, request.seq)
        except UserError as exc:
            text = (
                f"↩️ {player_token(request.player)}'s move stands after all: "
                f"{exc.message[0].lower()}{exc.message[1:]}"
            )
            await self.store.drop_undo(s.id, [notice(text)])
            return UndoAnswer(text)
        await self._undo(s, plan, why)
        return UndoAnswer(
            f"↩️ {player_token(request.player)} took back {plan.public_label} ({why}).", undone=True
        )

    async def _plan_undo(self, s: Session, player: str, seq: int | None = None) -> UndoPlan:
        assert s.state is not None
        return plan_undo(
            s.game,
            players=s.player_ids,
            options=s.options,
            seed=s.row.seed,
            log=await self.store.actions(s.id),
            current=s.state,
            player=player,
            names=s.names(),
            seq=seq,
        )

    async def _undo(self, s: Session, plan: UndoPlan, why: str) -> None:
        """Commit the state without the move, and the undo entry naming it."""
        assert s.state is not None
        entry = NewAction(plan.target.player, {"undo": plan.target.seq}, undoes=plan.target.seq)
        text = f"↩️ {player_token(plan.target.player)} took back {plan.public_label} ({why})."
        await self._commit(s, s.state, plan.state, [entry], [notice(text)], settle_undo=True)

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


def _results_of(outcome: Outcome | None) -> list[NewResult] | None:
    if outcome is None:
        return None
    return [
        NewResult(p, score, p in outcome.winners, outcome.cooperative)
        for p, score in outcome.scores.items()
    ]


def _result_posts(s: Session, outcome: Outcome | None) -> list[NewPost]:
    """The end of a game: one last post with the standings, the chart and the rematch."""
    if outcome is None:
        return []
    result = {
        "game": s.game.id,
        "outcome": outcome.model_dump(mode="json"),
        "seed": s.row.seed,  # revealed now that the game is over
        "commitment": s.commitment,
    }
    return [NewPost({"result": result})]


def _dump(action: BaseModel) -> dict[str, Any]:
    return action.model_dump(mode="json")


def _timers_stand(game: Game[Any, Any], old: GameState, new: GameState) -> bool:
    """The move leaves the session's timers as they were: the same timed step goes on, or
    nothing was timed before and nothing is now."""
    return game.outcome(new) is None and clock_key(game, old) == clock_key(game, new)

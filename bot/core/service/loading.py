"""The session service's base: its state, its locks, its listeners, and its sessions, loaded
once and then served from memory while they are still the stored ones."""

from __future__ import annotations

import contextlib
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from bot.core.errors import DamagedSession, NotAllowed, NotFound
from bot.core.recent import RecentMap
from bot.core.service.model import Change, Session
from bot.core.stale import SessionLock
from bot.core.state_json import StateJson
from bot.core.store import SessionRow, SessionStatus, Store, TimerRow
from games import REGISTRY, rng
from games.engine import GameState

# Sessions kept loaded in memory by default: a big server's open games are mostly idle (played a
# move a day), and an evicted one is read again from the database at its next move.
CACHE_SIZE = 1_000
AWAITED_KEPT = 20_000  # sessions whose awaited players are remembered (a few hundred bytes each)
LAST_POSTED_KEPT = 10_000  # sessions whose last post time is remembered (quick games are recent)


class Loading:
    """The state every part of the service shares, and how a session is loaded and cached."""

    def __init__(
        self,
        store: Store,
        now: Callable[[], float] = time.time,
        new_seed: Callable[[], int] = rng.new_seed,
        undo_wait: float = 60.0,
        post_coalesce: float = 0.0,
        ping_after_idle: float = 0.0,
        cache_size: int = CACHE_SIZE,
    ) -> None:
        self.store = store
        self.now = now
        self.new_seed = new_seed
        self.undo_wait = undo_wait  # seconds the others have to object to an undo
        # Seconds a session's channel posts wait for later moves' posts to share their message,
        # when the session posted less than that ago (a quick game; 0: never wait).
        self.post_coalesce = post_coalesce
        # session → wall time of its last channel post
        self._last_posted: RecentMap[int, float] = RecentMap(LAST_POSTED_KEPT)
        # Seconds since a player's last move in a game under which a turn notice does not ping
        # them (they are at the table); 0: always ping. When each player last moved, by session
        # (in memory: after a restart everyone awaited is pinged once more, which is safe).
        self.ping_after_idle = ping_after_idle
        self._last_moved: RecentMap[int, dict[str, float]] = RecentMap(LAST_POSTED_KEPT)
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
        # the cached copy. Least recently used first: past ``cache_size`` the oldest idle
        # sessions go (see _evict), with what is kept beside them.
        self._cache: OrderedDict[int, Session] = OrderedDict()
        self.cache_size = cache_size
        # Sessions being read from the database now: (reads, times forgotten meanwhile).
        self._reading: dict[int, tuple[int, int]] = {}
        # Whom each session awaited at a version (oldest first, at most AWAITED_KEPT): what a
        # DM's "other games wait for you" counts, without loading (nor caching) those games.
        self._awaited: RecentMap[int, tuple[int, frozenset[str]]] = RecentMap(AWAITED_KEPT)
        # Told (game, seconds) of each move stored by act_with: the operator's metrics (None: off).
        self.moved: Callable[[str, float], None] | None = None

    def game_of(self, session_id: int) -> str | None:
        """The game of a session in memory (None: not loaded), e.g. a click's metrics label."""
        s = self._cache.get(session_id)
        return None if s is None else s.game.id

    def lock(self, session_id: int) -> SessionLock:
        lock = self._locks.get(session_id)
        if lock is None:  # (setdefault would build a lock for every move, to drop it)
            lock = self._locks[session_id] = SessionLock()
        return lock

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
        version: int | None = None,
        awaited_robots: frozenset[str] | None = None,
    ) -> None:
        change = Change(session_id, views, posted, timers, version, awaited_robots)
        for listener in self._listeners:
            listener(change)

    # -- the deadline of each session's step, remembered -------------------------------------------
    async def deadline(self, session_id: int) -> TimerRow | None:
        """The deadline of the timed step in progress, if any (kept in memory: every change
        of a session's timers goes through the service, or tells it with timers_changed; with a
        shared database, only while the cached session is still the stored one, as another
        process's change of the timers changes its version or ``shown``)."""
        if self.store.shared and session_id in self._deadlines:
            cached = self._cache.get(session_id)
            if cached is None or not await self._still_stored(cached):
                self.forget(session_id)
        if session_id in self._deadlines:
            return self._deadlines[session_id]
        timers = await self.store.timers(session_id)
        deadline = next((t for t in timers if t.kind == "deadline"), None)
        if session_id in self._cache:  # remembered with its session only: bounded with it
            self._deadlines[session_id] = deadline
        return deadline

    def timers_changed(self, session_id: int | None = None) -> None:
        """Timers were changed in the store directly (fired, deleted, shifted): read them again
        (None: every session's)."""
        if session_id is None:
            self._deadlines.clear()
        else:
            self._deadlines.pop(session_id, None)

    # -- loading ---------------------------------------------------------------------------------
    async def load(self, session_id: int) -> Session:
        cached = self._cache.get(session_id)
        if cached is not None:
            if not self.store.shared or await self._still_stored(cached):
                if session_id in self._cache:  # (a shared store's check awaited: maybe dropped)
                    self._cache.move_to_end(session_id)
                return cached
            self.forget(session_id)  # another process changed it (and maybe its timers)
        # The read awaits the database: a write committed meanwhile may drop or replace the
        # cached copy, and what was read must not then be cached over it (a start's worker
        # would show the lobby for good: no hands dealt by DM).
        forgets = self._forgets_seen(session_id)
        try:
            row = await self.store.get_session(session_id)
            if row is None:
                raise NotFound(f"There is no game #{session_id}.")
            session = await self._hydrate(row)
        finally:
            stale = self._read_done(session_id, forgets)
        newer = self._cache.get(session_id)
        if newer is not None:  # cached by a write or another load since this read began
            return newer
        if not stale:
            self._cached(session)
        return session

    def _forgets_seen(self, session_id: int) -> int:
        """A read from the database begins: how often the session was forgotten meanwhile."""
        reads, forgets = self._reading.get(session_id, (0, 0))
        self._reading[session_id] = (reads + 1, forgets)
        return forgets

    def _read_done(self, session_id: int, forgets: int) -> bool:
        """A read ends: whether the session was forgotten since it began (then what it read
        may predate a write, and is not cached)."""
        reads, now = self._reading[session_id]
        if reads == 1:
            del self._reading[session_id]
        else:
            self._reading[session_id] = (reads - 1, now)
        return now != forgets

    async def load_to_change(self, session_id: int) -> tuple[Session, bool]:
        """The session a change decides on under its lock, and whether it is a shared store's
        cached copy served without asking its stamp. The change's write is guarded by version
        (a copy another process has changed is refused, StaleWrite, and the change runs again
        on the stored state), so asking first would only add a round trip to every move; what
        the change refuses on such a copy is checked before it stands (``_stale_refusal``)."""
        cached = self._cache.get(session_id)
        if cached is None or not self.store.shared:
            return await self.load(session_id), False
        self._cache.move_to_end(session_id)
        return cached, True

    async def _stale_refusal(self, s: Session) -> bool:
        """A refusal decided on a copy served unchecked: whether another process changed the
        session (then the copy is dropped and the change must run again on the stored one)."""
        if await self._still_stored(s):
            return False
        self.forget(s.id)
        return True

    async def reload(self, session_id: int) -> Session:
        """Read the session from the database again (after a write that bypassed the cache)."""
        self.forget(session_id)
        return await self.load(session_id)

    async def _still_stored(self, s: Session) -> bool:
        """Whether no other process changed the session, or what shows it, since it was cached."""
        return await self.store.session_stamp(s.id) == (s.row.version, s.row.shown)

    def forget(self, session_id: int) -> None:
        self._cache.pop(session_id, None)
        if session_id in self._reading:  # a read in progress may predate why it is forgotten
            reads, forgets = self._reading[session_id]
            self._reading[session_id] = (reads, forgets + 1)
        self._state_json.forget(session_id)
        self._deadlines.pop(session_id, None)

    def cached_sessions(self) -> int:
        """How many sessions are kept loaded now (at most ``cache_size``, but for those a
        change in progress holds)."""
        return len(self._cache)

    def _cached(self, session: Session) -> None:
        """Keep ``session`` as the newest cached copy, and the cache within its size."""
        self._cache[session.id] = session
        self._cache.move_to_end(session.id)
        if len(self._cache) > self.cache_size:
            self._evict()

    def _evict(self) -> None:
        """Drop the least recently used sessions past ``cache_size``, with their state JSON,
        remembered deadline and lock. A session whose lock is held or awaited (a change in
        progress, which will cache its result) is kept until the next time: dropping it could
        lose what the sync worker recorded meanwhile (see Writing._commit), and a new lock
        beside the awaited one would let two changes in at once."""
        excess = len(self._cache) - self.cache_size
        for session_id in list(self._cache):
            if excess <= 0:
                break
            lock = self._locks.get(session_id)
            if lock is not None and lock.in_use():
                continue
            self.forget(session_id)
            self._locks.pop(session_id, None)
            excess -= 1

    @contextlib.contextmanager
    def _rewrite(self, session_id: int) -> Iterator[None]:
        """A rare write (lobby, start, abandon): the next load reads the database again."""
        try:
            yield
        finally:
            self.forget(session_id)

    async def names(self, session_id: int) -> dict[str, str]:
        return {p.user_id: p.name for p in await self.store.players(session_id)}

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
        self._cache[session_id] = cached  # the same key: its place in the order stays
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
        return Session(row=row, players=players, game=game, options=options, state=state)

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

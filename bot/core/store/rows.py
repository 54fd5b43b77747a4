"""What the store reads and writes: rows, the statuses of a session, and its errors."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar


class StorageUnusable(Exception):
    """The database cannot be used as it is; ``str()`` is one line saying why and what to do."""


class NewerDatabase(StorageUnusable):
    pass


class DatabaseInUse(StorageUnusable):
    pass


class DatabaseReadOnly(StorageUnusable):
    pass


class DatabaseMissing(StorageUnusable):
    """No database at that path (or not a cafebot one): a reader never creates one."""


class DatabaseUnreachable(StorageUnusable):
    pass


class SessionStatus(StrEnum):
    LOBBY = "lobby"
    ACTIVE = "active"
    FINISHED = "finished"
    ABANDONED = "abandoned"

    @property
    def is_open(self) -> bool:
        """Still going (a lobby or a game in play): the channel is taken."""
        return self in (SessionStatus.LOBBY, SessionStatus.ACTIVE)


@dataclass
class SessionRow:
    id: int
    guild_id: int | None
    channel_id: int
    game_id: str
    status: SessionStatus
    host_id: str
    options: str
    seed: int
    state: str | None
    version: int
    outcome: str | None
    table_message_id: int | None
    announced: int  # announcements of the state already put in the outbox
    created_at: float
    updated_at: float
    note: str | None = None
    # Counts changes of what shows the session (table message, DMs), which do not change the
    # game and so leave `version` alone: a process sharing the database sees its copy is old.
    shown: int = 0
    rematch_of: int | None = None  # the finished game whose Rematch button opened this lobby


@dataclass
class PlayerRow:
    session_id: int
    user_id: str
    seat: int
    name: str
    dm_channel_id: int | None
    dm_message_id: int | None
    dm_stamp: str | None
    dm_digest: str | None


@dataclass
class ActionRow:
    session_id: int
    seq: int
    player: str
    action: str
    source: str
    created_at: float
    undoes: int | None = None  # an undo: the seq of the move it takes back


@dataclass
class TimerRow:
    session_id: int
    kind: str
    key: str
    due_at: float


@dataclass
class UndoRequestRow:
    session_id: int
    seq: int  # the move to take back
    player: str  # who asked (it is their move)
    agreed: str  # the players who agreed so far, comma-separated
    asked_at: float
    due_at: float  # granted then, unless someone objected

    @property
    def agreed_by(self) -> list[str]:
        return [p for p in self.agreed.split(",") if p]


@dataclass
class NewAction:
    player: str
    action: str  # the action's JSON, as stored (a move's encoded once, by pydantic)
    source: str = "player"
    undoes: int | None = None


@dataclass
class MoveWrite:
    """A new state of a session and all that goes with it (``Store.commit_state``), as data: a
    backend may write many of these in one statement."""

    session_id: int
    version: int  # as read: the write is refused if the stored one differs
    state: str
    status: str
    outcome: str | None
    announced: int | None  # None: unchanged
    actions: list[NewAction]
    posts: list[NewPost]
    timers: list[TimerRow] | None  # None: keep the session's timers
    settle_undo: bool
    results: list[NewResult]
    # The status the change starts from, as stored (None: not said). When the status stays, it
    # is not written again, nor the outcome (an open game has none): SQLite would rewrite
    # every index on the status (three) for each move.
    status_was: str | None = None


@dataclass
class NewResult:
    """One player's result in a finished game (a cooperative game: won = the table won)."""

    user_id: str
    score: int
    won: bool
    cooperative: bool = False
    rated_as: str | None = None  # what the result rates (bot.core.ratings.rated_as)
    level: int | None = None  # a cooperative game: the highest level the player cleared


@dataclass(frozen=True)
class RatingLine:
    """A leaderboard line: one player's (or bot level's) rating in a game, and games rated."""

    player: str
    mu: float
    sigma: float
    ordinal: float
    games: int


@dataclass(frozen=True)
class RatingChange:
    """What one finished game did to one player's rating."""

    session_id: int
    mu_before: float
    sigma_before: float
    mu: float
    sigma: float
    finished_at: float

    @property
    def delta(self) -> float:
        return (self.mu - 3 * self.sigma) - (self.mu_before - 3 * self.sigma_before)


@dataclass(frozen=True)
class LevelLine:
    """A cooperative game's board line: the highest level a player cleared, in how many games."""

    player: str
    level: int
    games: int


@dataclass(frozen=True)
class SeasonRow:
    id: int
    guild_id: int
    name: str
    started_by: str
    started_at: float
    ended_at: float | None


@dataclass
class StatRow:
    """Aggregated results: of one player (a leaderboard line) or of one game (a record line)."""

    key: str  # the user id, or the game id
    games: int
    wins: int
    best: int
    average: float
    cooperative: bool = False  # a cooperative game's (its wins are table wins)


CHANNEL = "channel"  # an outbox target: the session's channel (else "user:<id>", a DM)


@dataclass
class NewPost:
    """Something a change must post, written to the outbox in the change's transaction."""

    payload: dict[str, Any]  # {"announcement": {...}} or {"notice": text, "ping": [ids]}, …
    target: str = CHANNEL

    @property
    def joins_others(self) -> bool:
        return joins_others(self.target, self.payload)


# A channel post of these kinds may share one message with its neighbours: the posts of one
# change always do, and a change's posts that come soon after a post of the same session carry
# ``"hold": seconds`` (written with them, so a retry after a crash makes the same message): they
# wait that long for the posts of later moves to join them.
JOINING_KINDS = ("announcement", "notice")


def joins_others(target: str, payload: dict[str, Any]) -> bool:
    return target == CHANNEL and any(kind in payload for kind in JOINING_KINDS)


@dataclass
class PostRow:
    id: int
    session_id: int
    target: str
    payload: str
    created_at: float
    attempts: int
    next_attempt_at: float
    sent_at: float | None
    message_id: int | None
    failure: str | None


RowT = TypeVar("RowT")


_COLUMNS: dict[type[Any], frozenset[str]] = {}


def row_of(cls: type[RowT], values: dict[str, Any]) -> RowT:
    """A row object from a ``SELECT *`` (columns only a backend's bookkeeping uses, such as a
    claim's lease, are left out)."""
    names = _COLUMNS.get(cls)
    if names is None:
        names = _COLUMNS[cls] = frozenset(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
    return cls(**{k: v for k, v in values.items() if k in names})


def session_row(values: dict[str, Any]) -> SessionRow:
    row = row_of(SessionRow, values)
    row.status = SessionStatus(row.status)
    return row

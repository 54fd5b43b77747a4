"""What the session service hands out: a session as loaded, a change as its listeners hear
of it, and the answers of its reads and undos."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from bot.core.record import commitment
from bot.core.store import (
    LevelLine,
    NewPost,
    PlayerRow,
    RatingChange,
    RatingLine,
    SeasonRow,
    SessionRow,
    SessionStatus,
    StatRow,
)
from games.engine import Game, GameState, Outcome
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
        for p in self.players:  # a handful of seats: a loop, not a generator built each time
            if p.user_id == user_id:
                return p
        return None

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
        row = self.row
        # Every table drawn shows it: remembered by what it seals (one text: a game id has no
        # space, a seed is a number), not read from the options' JSON and hashed each time.
        key = f"{self.game.id} {row.seed} {row.options}"
        sealed = _COMMITMENTS.get(key)
        if sealed is None:
            if len(_COMMITMENTS) >= COMMITMENTS_KEPT:
                _COMMITMENTS.clear()
            sealed = _COMMITMENTS[key] = commitment(self.game.id, json.loads(row.options), row.seed)
        return sealed


# The commitments of the sessions drawn lately, by what they seal (texts: no container the
# garbage collector walks), forgotten all at once when full.
COMMITMENTS_KEPT = 4096
_COMMITMENTS: dict[str, str] = {}


D = TypeVar("D")


def changed(obj: D, **changes: Any) -> D:
    """``dataclasses.replace`` for the plain dataclasses a move writes (a session, its row: no
    ``__post_init__``, no frozen or ``init=False`` field): the instance's fields with
    ``changes``, copied as they are, where ``replace`` reads every field and calls ``__init__``
    with them (a move made three of these: 2 µs against 0.7 for a row)."""
    assert changes.keys() <= obj.__dataclass_fields__.keys(), changes  # type: ignore[attr-defined]
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__, **changes)
    return new


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
    # The session's version after the change (None: not said). A view drawn from this version
    # or a later one shows the change.
    version: int | None = None
    # The bot seats the session awaits after the change (None: not said; look).
    awaited_robots: frozenset[str] | None = None

    @property
    def robots(self) -> bool:
        """A bot seat may be awaited now (False: none is; the game seats none, or the change
        awaits only people)."""
        return self.awaited_robots is None or bool(self.awaited_robots)


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


@dataclass(frozen=True)
class RatingBoard:
    """A game's board in a server: by rating (competitive) or by highest level cleared
    (cooperative), for the open season (if any) and for all time."""

    game_id: str
    cooperative: bool
    season: SeasonRow | None
    season_lines: list[RatingLine] | list[LevelLine]
    all_time: list[RatingLine] | list[LevelLine]
    names: dict[str, str]


@dataclass(frozen=True)
class RatingHistory:
    game_id: str
    lines: list[RatingChange]  # newest first
    games: int  # rated games in all
    now: RatingLine | None

"""The session service: the only way game state changes.

Each call locks its session, loads it, asks the engine to check and apply the action, and writes
the new state, the action log entry and the timers in one transaction before it returns.
Nothing here knows about Discord; the bot and the simulator both drive games through it.

``SessionService`` is one object with one state (its cached sessions, locks and listeners);
its methods live in ``bot/core/service/``, a module for each thing they serve:

- ``loading``  the shared state, the cache, the change events, the guards (the base of all)
- ``writing``  one transaction per change: state, log, timers, posts (under lobby/playing/undoing)
- ``reads``    what the front ends read and note about the messages that show a session
- ``outbox``   the posts to send, and the reminders that add to them
- ``lobby``    create, rematch, join, leave, bot seats, options, start, abandon
- ``playing``  a move, a deadline's default moves, a skipped step, a replay
- ``undoing``  an undo: at once, or asked of the others and granted
- ``model``    what the service hands out (Session, Change, the reads' and undos' answers)
"""

from __future__ import annotations

from bot.core.service.loading import LAST_POSTED_KEPT
from bot.core.service.lobby import Lobby
from bot.core.service.model import (
    TABLE,
    ActResult,
    Change,
    HistoryPage,
    Leaderboard,
    RatingBoard,
    RatingHistory,
    SeatedGame,
    Session,
    UndoAnswer,
    names_of,
    notice,
)
from bot.core.service.outbox import Outbox
from bot.core.service.playing import Playing
from bot.core.service.reads import Reads
from bot.core.service.replaying import Replaying
from bot.core.service.standings import Standings
from bot.core.service.undoing import Undoing

__all__ = [
    "LAST_POSTED_KEPT",
    "TABLE",
    "ActResult",
    "Change",
    "HistoryPage",
    "Leaderboard",
    "RatingBoard",
    "RatingHistory",
    "SeatedGame",
    "Session",
    "SessionService",
    "UndoAnswer",
    "names_of",
    "notice",
]


class SessionService(Reads, Standings, Replaying, Outbox, Lobby, Playing, Undoing):
    """The one interface of the core to the front ends, the bot players and the tools."""

"""A finished game, move by move: the states its stored record replays to (through the rules),
and what one step shows a viewer (the table as it was; the viewer's own panel if they sat at
the table; the move named as the table knew it, or in full to the player who made it).

Pure: the session service replays the log once (``Replay``) and the adapter draws any step
of it without replaying again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from bot.core.undo import move_label, public_move_label
from games.engine import Game, GameState, PrivatePanel
from games.presentation import Panel


@dataclass(frozen=True)
class Replay:
    """A game's states from the deal (``states[0]``) to its end, and the move before each."""

    session_id: int
    game: Game[Any, Any]
    names: dict[str, str]
    states: list[GameState]
    moves: list[tuple[str, BaseModel]]  # moves[k] leads from states[k] to states[k + 1]
    status: str  # finished or abandoned

    @property
    def last(self) -> int:
        return len(self.states) - 1

    def rounds(self) -> list[tuple[int, int]]:
        """(round, its first step) for each round the game went through (a game whose state
        has no round: none)."""
        found: list[tuple[int, int]] = []
        for step, state in enumerate(self.states):
            number = getattr(state, "round", None)  # every round-based game's state has one
            if isinstance(number, int) and (not found or found[-1][0] != number):
                found.append((number, step))
        return found


@dataclass(frozen=True)
class ReplayStep:
    step: int
    table: list[Panel]  # without controls
    own: Panel | None  # the viewer's own panel (their hand), if they sat at the table
    mover: str | None  # who made the move that led here (None: the deal)
    move: str  # that move as this viewer may know it


def replay_step(replay: Replay, step: int, viewer: str) -> ReplayStep:
    """Step ``step`` (clamped to the game) as ``viewer`` may see it."""
    step = max(0, min(step, replay.last))
    game, state = replay.game, replay.states[step]
    table = [p.model_copy(update={"controls": []}) for p in game.table(state)]
    own = None
    if viewer in state.players and game.private_panel is not PrivatePanel.NEVER:
        own = game.panel(state, viewer).model_copy(update={"controls": []})
    if step == 0:
        return ReplayStep(step, table, own, None, "the deal")
    player, action = replay.moves[step - 1]
    before = replay.states[step - 1]
    label = move_label(game, before, player, action)
    if player != viewer:
        label = public_move_label(game, before, state, player, action, label)
    return ReplayStep(step, table, own, player, label)

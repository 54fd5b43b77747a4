"""Taking back a move: whether a player's last move may be undone, and the state without it.

The log stays append-only: an undo is a new entry naming the move it takes back, and every
replay skips both (``record.effective``). To undo, the session is replayed from its seed
without the move; that is only sound while nothing was revealed since, so the move's own
``Game.undo_policy`` must not be NEVER, nor may any move after it be (a card drawn, ballots
shown, a step ended), and every later move must still apply without it (no other player's
move depended on it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from bot.core.errors import DamagedSession, NotAllowed
from bot.core.record import effective
from bot.core.store import ActionRow
from games.engine import Game, GameState, IllegalAction, Undo, apply, new_game
from games.presentation import Button, Select


@dataclass(frozen=True)
class UndoPlan:
    target: ActionRow  # the move to take back
    policy: Undo  # FREE: at once; CONSENT: the others are asked
    state: GameState  # the game as it would be without the move
    label: str  # the move in its player's words
    public_label: str  # the move as the table may hear of it (a private move is not named)


def plan_undo(
    game: Game[Any, Any],
    *,
    players: list[str],
    options: BaseModel,
    seed: int,
    log: Sequence[ActionRow],
    current: GameState,
    player: str,
    names: Mapping[str, str],
    seq: int | None = None,
) -> UndoPlan:
    """How ``player``'s last move (the move ``seq``, if given) can be taken back; raises
    NotAllowed saying why it cannot."""
    moves = effective(log)
    mine = [m for m in moves if m.player == player]
    if not mine:
        raise NotAllowed("You have no move to take back.")
    target = mine[-1]
    if seq is not None and target.seq != seq:
        raise NotAllowed("That move is no longer the last one they made, so it stands.")
    if target.source != "player":
        raise NotAllowed("That move was played for you when time ran out: it stands.")
    state: GameState = new_game(game, players, options, seed)
    without: GameState | None = None
    policy, label, public_label = Undo.NEVER, "the last move", "the last move"
    try:
        for move in moves:
            action = game.parse_action(json.loads(move.action))
            after = apply(game, state, move.player, action)
            if move.seq == target.seq:
                policy = game.undo_policy(state, after, move.player, action)
                if policy is Undo.NEVER:
                    raise NotAllowed(
                        "That move can't be taken back: it revealed something or ended a step."
                    )
                label = move_label(game, state, move.player, action)
                public_label = public_move_label(game, state, after, move.player, action, label)
                without = state
            elif without is not None:
                if game.undo_policy(state, after, move.player, action) is Undo.NEVER:
                    who = names.get(move.player, "someone")
                    raise NotAllowed(f"Too late: {who}'s move since revealed something.")
                try:
                    without = apply(game, without, move.player, action)
                except IllegalAction:
                    who = names.get(move.player, "someone")
                    raise NotAllowed(f"Too late: {who}'s move since depended on it.") from None
            state = after
    except IllegalAction as exc:
        raise DamagedSession(f"This game's log does not replay ({exc.message}).") from None
    if state != current:
        raise DamagedSession("This game's log does not replay to its table.")
    assert without is not None
    return UndoPlan(target, policy, without, label, public_label)


def move_label(game: Game[Any, Any], before: GameState, player: str, action: BaseModel) -> str:
    """The move as its button (or select option) read when it was offered, else a plain
    "the last move"."""
    wanted = action.model_dump(mode="json")
    panels = [game.panel(before, player), *game.table(before)]
    for panel in panels:
        for control in panel.controls:
            if isinstance(control, Button) and _same(game, control.action, wanted):
                return control.label
            if isinstance(control, Select):
                for option in control.options:
                    if _same(game, option.action, wanted):
                        return option.label
    return "the last move"


def public_move_label(
    game: Game[Any, Any],
    before: GameState,
    after: GameState,
    player: str,
    action: BaseModel,
    label: str,
) -> str:
    """What a public text may call the move: its label when the table offered it (everyone saw
    the control), or when its player held no secret before or after it; else only what the game
    says the table may know of it (a dish picked from a hidden menu is not named)."""
    wanted = action.model_dump(mode="json")
    for panel in game.table(before):
        for control in panel.controls:
            offered = [control.action] if isinstance(control, Button) else []
            if isinstance(control, Select):
                offered = [option.action for option in control.options]
            if any(_same(game, o, wanted) for o in offered):
                return label
    if game.secrets(before, player) or game.secrets(after, player):
        return game.private_move(before, player, action)
    return label


def _same(game: Game[Any, Any], offered: dict[str, Any], wanted: dict[str, Any]) -> bool:
    try:
        return bool(game.parse_action(offered).model_dump(mode="json") == wanted)
    except IllegalAction:
        return False

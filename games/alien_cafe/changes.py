"""What a move changed: which views front ends must redraw, and whether it may be taken back."""

from __future__ import annotations

from games.alien_cafe.actions import (
    Action,
    DoneAction,
    DrawAction,
    GiveAction,
    LevelAction,
)
from games.alien_cafe.catalogue import TILES
from games.alien_cafe.state import AlienCafeState, Seat
from games.engine import ALL_VIEWS, Undo

# Seat fields only its owner's panel shows (the table does not).
_PRIVATE_ONLY = {"held", "note"}


def _public_part(seat: Seat) -> dict[str, object]:
    return {k: v for k, v in seat.__dict__.items() if k not in _PRIVATE_ONLY}


def _holds_a_gift(seat: Seat) -> bool:
    """The panel lists who can receive the held tile (so it follows others' Done)."""
    held = seat.held
    return held is not None and held in seat.hand and not TILES[held].special


def views_touched(
    before: AlienCafeState, after: AlienCafeState, mover: str
) -> set[str | None] | None:
    """A private panel shows only its owner's seat, the round and phase, whether each bag is
    empty, and — while a hand tile is held — who is not done yet; the table shows the rest."""
    if before.phase != after.phase or before.round != after.round:
        return ALL_VIEWS  # a service started or ended: every panel changes
    if bool(before.red) != bool(after.red) or bool(before.blue) != bool(after.blue):
        return ALL_VIEWS  # a bag ran out: every Draw button goes
    touched: set[str | None] = {mover}
    for pid in before.players:
        old, new = before.seats[pid], after.seats[pid]
        if old is new:
            continue
        if pid != mover and old != new:
            touched.add(pid)  # a tile given to them
        if _public_part(old) != _public_part(new):
            touched.add(None)
    if before.seats[mover].done != after.seats[mover].done:
        touched |= {p for p, s in after.seats.items() if not s.done and _holds_a_gift(s)}
    if len(before.red) != len(after.red) or len(before.blue) != len(after.blue):
        touched.add(None)
    return touched


def undo_policy(before: AlienCafeState, after: AlienCafeState, mover: str, action: Action) -> Undo:
    if isinstance(action, LevelAction):
        # The pick that starts the service dealt tiles; an earlier one only said "ready".
        return Undo.NEVER if after.phase != "levels" else Undo.CONSENT
    if isinstance(action, DrawAction | DoneAction):
        return Undo.NEVER  # a tile was revealed / the step ended
    if isinstance(action, GiveAction):
        return Undo.CONSENT  # the receiver has seen it
    # Holding, placing, moving, taking back, declaring, posting or withdrawing a request or
    # offer: the mover's own tray and posts, before Done.
    return Undo.FREE


_HIDDEN_MOVE = {
    "level": "their level",
    "give": "a tile they gave",
    "offer": "their offer",
    "request": "their request",
    "withdraw": "a withdrawn request or offer",
    "declare": "a Joker's declared type",
}


def private_move(action: Action) -> str:
    """A move taken back, as the table may hear of it: the tiles of a hand are not named."""
    return _HIDDEN_MOVE.get(action.type, "a move on their tray")

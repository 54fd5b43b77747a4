"""Default moves for a player whose clock ran out, and a simple greedy player for `simulate`."""

from __future__ import annotations

from games.engine import PlayerId
from games.monster_cafe.cards import COLLECTABLE_KINDS, MONSTER_KIND
from games.monster_cafe.scoring import score
from games.monster_cafe.state import (
    Clear,
    Collection,
    Draw,
    MonsterCafeState,
    Seat,
    Sorbet,
    Table,
)
from games.rng import Rng

Move = Draw | Seat | Clear | Sorbet


def score_if_taken(collection: Collection, table: Table, extra: list[str] | None = None) -> int:
    """The player's score if they took ``table`` (with ``extra`` monsters seated there too)."""
    monsters = collection.monsters + table.seats + (extra or [])
    return score(monsters, [*collection.tables, table.card]).total


def best_seat(state: MonsterCafeState, player: PlayerId) -> Seat:
    """Seat the drawn monster where it fits the player's collection best: the table whose clearing
    (with this monster) would leave the player the highest score; ties go to the earlier table."""
    assert state.drawn is not None
    collection = state.collections[player]
    drawn = state.drawn
    table = max(state.seatable(), key=lambda t: score_if_taken(collection, t, [drawn]))
    return Seat(table=table.card)


def least_painful_sorbet(state: MonsterCafeState, player: PlayerId) -> Sorbet:
    """Discard the kind whose loss leaves the best score; ties: the fewest cards, then catalogue."""
    collection = state.collections[player]

    def after(kind: str) -> tuple[int, int, int]:
        kept = [c for c in collection.monsters if MONSTER_KIND[c] != kind]
        lost = len(collection.monsters) - len(kept)
        return (score(kept, collection.tables).total, -lost, -COLLECTABLE_KINDS.index(kind))

    return Sorbet(kind=max(collection.kinds(), key=after))


def fullest_table(state: MonsterCafeState, player: PlayerId) -> Clear:
    """The clearable table with the most monsters; ties: the best for the player, then earlier."""
    collection = state.collections[player]
    table = max(state.clearable(), key=lambda t: (len(t.seats), score_if_taken(collection, t)))
    return Clear(table=table.card)


def timeout_move(state: MonsterCafeState, player: PlayerId) -> Move:
    """Draw if a seat is free, else clear the fullest table; seat and sorbet as above."""
    if state.drawn is not None:
        if state.drawn_is_sorbet():
            return least_painful_sorbet(state, player)
        return best_seat(state, player)
    if state.can_draw():
        return Draw()
    return fullest_table(state, player)


def greedy(state: MonsterCafeState, player: PlayerId, rng: Rng) -> Move:
    """Clear a table once it would gain two points (or when drawing is impossible), else draw."""
    if state.drawn is not None:
        return timeout_move(state, player)
    collection = state.collections[player]
    now = collection.breakdown().total
    options = state.clearable()
    if options:
        best = max(options, key=lambda t: score_if_taken(collection, t))
        if not state.can_draw() or score_if_taken(collection, best) - now >= 2:
            return Clear(table=best.card)
    if state.can_draw():
        return Draw()
    return fullest_table(state, player)

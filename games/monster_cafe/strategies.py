"""Default moves for a player whose clock ran out, and a simple greedy player for `simulate`.

Both decide from the public table only (everything in Monster Café is public but the decks).
"""

from __future__ import annotations

from games.engine import PlayerId
from games.monster_cafe.catalogue import COLLECTABLE_KINDS, MONSTER_KIND
from games.monster_cafe.scoring import score
from games.monster_cafe.state import (
    CancelClear,
    Clear,
    Collection,
    ConfirmClear,
    Draw,
    MonsterCafeState,
    Move,
    Seat,
    Sorbet,
    Table,
)
from games.rng import Rng


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


def default_move(state: MonsterCafeState, player: PlayerId) -> Move:
    """What an absent player does, ignoring a clear they asked for: seat or sorbet as above; the
    last diner clears the fullest table at once (their run would otherwise cost one deadline a
    draw); anyone else draws if a seat is free, else clears the fullest table."""
    if state.drawn is not None:
        if state.drawn_is_sorbet():
            return least_painful_sorbet(state, player)
        return best_seat(state, player)
    if state.is_last(player) and state.clearable():
        return fullest_table(state, player)
    if state.can_draw():
        return Draw()
    return fullest_table(state, player)


def timeout_move(state: MonsterCafeState, player: PlayerId) -> Move:
    """The default move, one step at a time. A clear the player asked for is confirmed when it is
    the default's own choice, else cancelled (asking is not deciding)."""
    if state.clearing is not None:
        default = default_move(state.model_copy(update={"clearing": None}), player)
        if default == Clear(table=state.clearing):
            return ConfirmClear(table=state.clearing)
        return CancelClear()
    return default_move(state, player)


def greedy(state: MonsterCafeState, player: PlayerId, rng: Rng) -> Move:
    """Clear a table once it would gain two points (or when drawing is impossible), else draw."""
    if state.clearing is not None:
        return ConfirmClear(table=state.clearing)
    if state.drawn is not None:
        return default_move(state, player)
    collection = state.collections[player]
    now = score(collection.monsters, collection.tables).total
    options = state.clearable()
    if options:
        best = max(options, key=lambda t: score_if_taken(collection, t))
        if not state.can_draw() or score_if_taken(collection, best) - now >= 2:
            return Clear(table=best.card)
    if state.can_draw():
        return Draw()
    return fullest_table(state, player)

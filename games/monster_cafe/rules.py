"""The rules of Monster Café: setup, legal moves and applying them (pure functions).

Moves are copy-on-write: :func:`apply_move` never mutates the state it is given. It builds a
shallow copy and rebinds the fields it changes to new containers; everything else is shared.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.engine import PlayerId
from games.kit import evolve, next_in_seat_order
from games.monster_cafe import announcements, words
from games.monster_cafe.catalogue import (
    ALL_MONSTERS,
    ALL_TABLES,
    COLLECTABLE_KINDS,
    KIND_BY_KEY,
    MEAL_OF_KIND,
    MONSTER_KIND,
    REGULAR_KINDS,
    ROUNDS,
    SEATS_PER_TABLE,
    SLOTS,
    SORBET,
    monster_label,
    monsters_of_kind,
    table_label,
    tables_of_meal,
)
from games.monster_cafe.scoring import totals
from games.monster_cafe.state import (
    LOG_LENGTH,
    CancelClear,
    Clear,
    Collection,
    ConfirmClear,
    Draw,
    MonsterCafeOptions,
    MonsterCafeState,
    Move,
    Seat,
    Sorbet,
    Table,
    Taken,
)
from games.presentation import Announcement, player
from games.rng import Rng

# Actions are frozen: legal_actions hands out these shared instances instead of building models.
DRAW = Draw()
CANCEL = CancelClear()
SEATS = {t: Seat(table=t) for t in ALL_TABLES}
CLEARS = {t: Clear(table=t) for t in ALL_TABLES}
CONFIRMS = {t: ConfirmClear(table=t) for t in ALL_TABLES}
SORBETS = {k: Sorbet(kind=k) for k in COLLECTABLE_KINDS}


# -- setup ---------------------------------------------------------------------------------------


def setup(players: list[PlayerId], options: MonsterCafeOptions, seed: int) -> MonsterCafeState:
    # The order of the draws from the RNG must stay as it is: stored games replay from the seed.
    rng = Rng(seed=seed)
    out_of_play: list[str] = []
    if len(players) < 4:
        for kind in sorted(rng.sample(REGULAR_KINDS, 2), key=REGULAR_KINDS.index):
            out_of_play += monsters_of_kind(kind) + tables_of_meal(MEAL_OF_KIND[kind])
    removed = set(out_of_play)
    deck = [c for c in ALL_MONSTERS if c not in removed]
    table_deck = [t for t in ALL_TABLES if t not in removed]
    rng.shuffle(deck)
    rng.shuffle(table_deck)
    state = MonsterCafeState(
        players=list(players),
        rng=rng,
        turn_timeout=options.turn_timeout,
        deck=deck,
        table_deck=table_deck,
        collections={p: Collection() for p in players},
        out_of_play=out_of_play,
    )
    # Every field counts as set, as in a state loaded from JSON: moves can then share the set.
    state.__pydantic_fields_set__.update(MonsterCafeState.model_fields)
    deal_starting_monsters(state)
    starter = state.rng.choice(state.players)
    _log(state, f"🎲 {player(starter)} was picked at random to start.")
    _start_round(state, starter)
    return state


def deal_starting_monsters(state: MonsterCafeState) -> None:
    """Each player, in seat order, takes the top monster; a Lemon Sorbet is shuffled back into the
    deck and another card drawn. Mutates ``state``: only for a state being set up."""
    for pid in state.players:
        while True:
            card = state.deck.pop(0)
            if MONSTER_KIND[card] != SORBET:
                state.collections[pid].monsters.append(card)
                break
            state.deck.append(card)
            state.rng.shuffle(state.deck)


# -- which moves ---------------------------------------------------------------------------------


def legal_actions(state: MonsterCafeState, pid: PlayerId) -> Sequence[Move]:
    if state.over or pid != state.current:
        return []
    if state.clearing is not None:
        return [CONFIRMS[state.clearing], CANCEL]
    if state.drawn is not None:
        if state.drawn_is_sorbet():
            return [SORBETS[k] for k in state.collections[pid].kinds()]
        return [SEATS[t.card] for t in state.seatable()]
    moves: list[Move] = [DRAW] if state.can_draw() else []
    return moves + [CLEARS[t.card] for t in state.clearable()]


def is_legal(state: MonsterCafeState, pid: PlayerId, action: Move) -> bool:
    """``action in legal_actions(state, pid)`` (whatever its ``auto`` flag), checked directly;
    and one more: a one-step clear with nothing asked, as games logged before the two-tap
    clear did it (they must replay exactly). No panel offers it."""
    if state.over or pid != state.current:
        return False
    if state.clearing is not None:
        if isinstance(action, ConfirmClear):
            return action.table == state.clearing
        return isinstance(action, CancelClear)
    if state.drawn is not None:
        if state.drawn_is_sorbet():
            if not isinstance(action, Sorbet):
                return False
            return any(MONSTER_KIND[c] == action.kind for c in state.collections[pid].monsters)
        if not isinstance(action, Seat):
            return False
        table = state.table(action.table)
        return table is not None and len(table.seats) < SEATS_PER_TABLE
    if isinstance(action, Draw):
        return state.can_draw()
    if isinstance(action, Clear | ConfirmClear):
        table = state.table(action.table)
        return table is not None and (bool(table.seats) or not state.deck)
    return False


def explain_illegal(state: MonsterCafeState, pid: PlayerId, action: Move) -> str:
    drawn, clearing = state.drawn, state.clearing
    if clearing is not None:
        asked = table_label(clearing)
        if isinstance(action, ConfirmClear):
            return f"You asked to clear {asked}: confirm or cancel that."
        return f"You asked to clear {asked}: confirm it or cancel first."
    if isinstance(action, CancelClear):
        return "There's no clear to cancel."
    if isinstance(action, Sorbet):
        if drawn is None or not state.drawn_is_sorbet():
            return "You haven't drawn a Lemon Sorbet."
        if action.kind not in KIND_BY_KEY or action.kind == SORBET:
            return "That isn't a monster type."
        return f"You have no {KIND_BY_KEY[action.kind].name} in your collection."
    if drawn is not None:
        if state.drawn_is_sorbet():
            return "You drew a Lemon Sorbet: choose a monster type from your collection first."
        if isinstance(action, Seat):
            if state.table(action.table) is None:
                return "There's no such table in the café."
            return "That table is full — pick another one."
        return f"You've drawn {monster_label(drawn)}: seat it at a table with a free seat first."
    if isinstance(action, Seat):
        return "Draw a monster first."
    if isinstance(action, Draw):
        if not state.deck:
            return "The monster deck is empty — you must clear a table."
        return "Every table is full — you must clear one."
    if state.table(action.table) is None:
        return "There's no such table in the café."
    return "You can't clear an empty table — seat a monster there first."


# -- applying a move -----------------------------------------------------------------------------


def apply_move(state: MonsterCafeState, pid: PlayerId, action: Move) -> MonsterCafeState:
    """The state after ``pid``'s legal ``action``; ``state`` itself is left as it is."""
    if isinstance(action, Clear):
        return evolve(state, clearing=action.table)  # asking reveals nothing; the turn goes on
    if isinstance(action, CancelClear):
        return evolve(state, clearing=None)
    if isinstance(action, Draw):
        card = state.deck[0]
        if MONSTER_KIND[card] != SORBET or state.collections[pid].monsters:
            # A monster awaits its seat, or a sorbet its victims: the turn goes on.
            return evolve(state, deck=state.deck[1:], drawn=card)
        changes: dict[str, Any] = {"deck": state.deck[1:], "discard": [*state.discard, card]}
        event = words.sorbet_wasted(pid)
    elif isinstance(action, Seat):
        changes, event = _seat(state, pid, action.table)
    elif isinstance(action, Sorbet):
        changes, event = _sorbet(state, pid, action.kind)
    else:
        changes, event = _clear(state, pid, action.table)
    changes["log"] = _logged(state.log, event)
    if action.auto:
        changes["auto_moves"] = [*state.auto_moves, event]
    new = evolve(state, **changes)
    _end_turn(new, pid, auto=action.auto)
    return new


# Each move below returns the fields it changes (new containers: the containers of ``state`` are
# shared with the new state, never mutated) and the event in words.


def _seat(state: MonsterCafeState, pid: PlayerId, table_card: str) -> tuple[dict[str, Any], str]:
    card = state.drawn
    assert card is not None
    tables = list(state.tables)
    for index, table in enumerate(tables):
        if table.card == table_card:
            tables[index] = evolve(table, seats=[*table.seats, card])
            return {"tables": tables, "drawn": None}, words.seated(pid, card, table)
    raise AssertionError(f"no table {table_card}")


def _sorbet(state: MonsterCafeState, pid: PlayerId, kind: str) -> tuple[dict[str, Any], str]:
    sorbet = state.drawn
    assert sorbet is not None
    collection = state.collections[pid]
    victims = [c for c in collection.monsters if MONSTER_KIND[c] == kind]
    kept = [c for c in collection.monsters if MONSTER_KIND[c] != kind]
    changes = {
        "collections": {**state.collections, pid: evolve(collection, monsters=kept)},
        "discard": [*state.discard, *victims, sorbet],
        "drawn": None,
    }
    return changes, words.scared_off(pid, victims)


def _clear(state: MonsterCafeState, pid: PlayerId, table_card: str) -> tuple[dict[str, Any], str]:
    table = state.table(table_card)
    assert table is not None
    collection = state.collections[pid]
    taken = Taken(player=pid, slot=table.slot, table=table.card, monsters=table.seats)
    changes = {
        "tables": [t for t in state.tables if t is not table],
        "collections": {
            **state.collections,
            pid: evolve(
                collection,
                monsters=[*collection.monsters, *table.seats],
                tables=[*collection.tables, table.card],
            ),
        },
        "taken": [*state.taken, taken],
        "clearing": None,
    }
    return changes, words.cleared(taken)


# The helpers below change ``new``, a fresh copy made by apply_move (or a state being set up), by
# rebinding its fields: containers it shares with the state before the move are never mutated.


def _end_turn(new: MonsterCafeState, pid: PlayerId, auto: bool) -> None:
    remaining = new.remaining()
    if remaining == [pid]:
        # The last diner's run goes on without a new notice. A present player gets a fresh
        # clock for each draw; for an absent one the bot plays the whole run in one deadline.
        if not auto:
            new.turn += 1
        return
    if new.auto_moves:
        _announce(new, announcements.timed_out(pid, new.auto_moves))
        new.auto_moves = []
    if not remaining:
        _end_round(new)
    else:
        following = next_in_seat_order(new.players, pid, lambda p: p in remaining)
        assert following is not None
        _start_turn(new, following, last=len(remaining) == 1)


def _start_turn(new: MonsterCafeState, pid: PlayerId, last: bool) -> None:
    """``last``: ``pid`` is the last diner of the round."""
    new.current = pid
    new.turn += 1
    _announce(new, announcements.turn_notice(new, pid, last))


def _start_round(new: MonsterCafeState, starter: PlayerId) -> None:
    count = new.tables_per_round
    assert len(new.table_deck) >= count, "the table deck ran out"
    dealt, new.table_deck = new.table_deck[:count], new.table_deck[count:]
    new.tables = [Table(slot=slot, card=card) for slot, card in zip(SLOTS, dealt, strict=False)]
    new.taken = []
    _log(new, f"🔔 Round {new.round}/{ROUNDS}: the tables are set.")
    _start_turn(new, starter, last=False)  # everyone is in a new round (2 players or more)


def _end_round(new: MonsterCafeState) -> None:
    leftovers, new.tables = new.tables, []  # two players: the dummy table
    if leftovers:
        new.dummy_discard = [
            *new.dummy_discard,
            *(c for t in leftovers for c in [t.card, *t.seats]),
        ]
    scores = totals(new)
    new.round_scores = [*new.round_scores, scores]
    _announce(new, announcements.round_over(new, new.taken, leftovers, scores))
    if new.round == ROUNDS:
        new.over = True
        new.current = None
        _announce(new, announcements.final_scores(new))
        _log(new, "🏁 The café is closed.")
    else:
        new.round += 1
        _start_round(new, new.taken[-1].player)


def _announce(new: MonsterCafeState, announcement: Announcement) -> None:
    new.announcements = [*new.announcements, announcement]


def _log(new: MonsterCafeState, line: str) -> None:
    new.log = _logged(new.log, line)


def _logged(log: list[str], line: str) -> list[str]:
    """The latest events with ``line`` added (a new list: the old one may be shared)."""
    return [*log[1 - LOG_LENGTH :], line]

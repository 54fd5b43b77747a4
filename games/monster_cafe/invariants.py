"""Monster Café's invariants: every card in exactly one place, and the round's bookkeeping."""

from __future__ import annotations

from collections import Counter

from games.monster_cafe.catalogue import (
    ALL_MONSTERS,
    ALL_TABLES,
    MONSTER_KIND,
    ROUNDS,
    SEATS_PER_TABLE,
    SORBET,
    TABLE_MEAL,
)
from games.monster_cafe.state import MonsterCafeState


def check_invariants(state: MonsterCafeState) -> None:
    places: dict[str, list[str]] = {
        "deck": state.deck,
        "table deck": state.table_deck,
        "tables": [t.card for t in state.tables],
        "seats": [c for t in state.tables for c in t.seats],
        "drawn": [state.drawn] if state.drawn else [],
        "discard": state.discard,
        "out of play": state.out_of_play,
        "dummy discard": state.dummy_discard,
    }
    for pid, collection in state.collections.items():
        places[f"{pid}'s monsters"] = collection.monsters
        places[f"{pid}'s tables"] = collection.tables
    seen = Counter(c for cards in places.values() for c in cards)
    everything = Counter([*ALL_MONSTERS, *ALL_TABLES])
    assert seen == everything, (
        f"cards not conserved: extra {seen - everything}, missing {everything - seen}"
    )
    monster_places = ["deck", "seats", "drawn", "discard"]
    monster_places += [k for k in places if k.endswith("monsters")]
    for name in monster_places:
        assert all(c in MONSTER_KIND for c in places[name]), f"a non-monster in {name}"
    for name in ["table deck", "tables", *[k for k in places if k.endswith("tables")]]:
        assert all(c in TABLE_MEAL for c in places[name]), f"a non-table in {name}"
    for name in ["seats", *[k for k in places if k.endswith("monsters")]]:
        assert all(MONSTER_KIND[c] != SORBET for c in places[name]), f"a sorbet in {name}"
    assert all(len(t.seats) <= SEATS_PER_TABLE for t in state.tables), "a table seats over 4"
    assert set(state.collections) == set(state.players)
    assert len(state.out_of_play) == (0 if len(state.players) == 4 else 16)
    assert state.dummy or not state.dummy_discard, "dummy discards without a dummy table"
    assert len(set(state.cleared())) == len(state.taken)
    finished = ROUNDS if state.over else state.round - 1  # rounds every player took a table in
    for pid, collection in state.collections.items():
        this_round = 0 if state.over else state.cleared().count(pid)
        assert len(collection.tables) == finished + this_round, f"{pid} has a wrong table count"
    dummies = sum(c in TABLE_MEAL for c in state.dummy_discard)
    assert dummies == (finished if state.dummy else 0), "a wrong number of dummy tables"
    assert len(state.round_scores) <= finished, "a score for a round not played"
    assert all(set(s) == set(state.players) for s in state.round_scores)
    if state.over:
        assert state.round == ROUNDS and state.current is None and not state.tables
        assert state.drawn is None and not state.table_deck
        assert state.clearing is None and not state.auto_moves
    else:
        assert state.current in state.remaining(), "the current player has cleared"
        assert len(state.tables) + len(state.taken) == state.tables_per_round
        assert len(state.table_deck) == (ROUNDS - state.round) * state.tables_per_round
        assert state.drawn is None or state.drawn_is_sorbet() or state.seatable()
        if state.clearing is not None:
            assert state.drawn is None, "a clear asked for with a card in hand"
            assert state.clearing in {t.card for t in state.clearable()}, "an unclearable ask"

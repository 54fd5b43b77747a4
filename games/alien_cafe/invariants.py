"""Conservation and the other invariants of an Alien Café state (for tests and the simulator)."""

from __future__ import annotations

from collections import Counter

from games.alien_cafe.catalogue import ALL_TILES, TILES
from games.alien_cafe.state import (
    CELLS,
    LOSSES_ALLOWED,
    MAX_ROUNDS,
    WINS_NEEDED,
    AlienCafeState,
)


def check_invariants(state: AlienCafeState) -> None:
    places: list[str] = list(state.red) + list(state.blue)
    for pile in state.piles:
        places += pile
    for seat in state.seats.values():
        places += seat.hand + [t for t in seat.tray if t is not None] + seat.house
    counts = Counter(places)
    dupes = [t for t, n in counts.items() if n > 1]
    assert not dupes, f"tiles in two places: {dupes}"
    assert set(counts) == ALL_TILES, (
        f"missing {sorted(ALL_TILES - set(counts))}, unknown {sorted(set(counts) - ALL_TILES)}"
    )
    assert all(t.startswith("A") and not TILES[t].special for t in state.red), "red bag"
    assert all(t.startswith("O") and not TILES[t].special for t in state.blue), "blue bag"
    assert len(state.piles) == 4
    for level, pile in enumerate(state.piles, start=1):
        assert all(TILES[t].level == level for t in pile), f"level {level} pile"
    assert list(state.seats) == list(state.players), "one seat per player"
    assert 1 <= state.round <= MAX_ROUNDS
    assert state.successes <= WINS_NEEDED and state.failures <= LOSSES_ALLOWED
    assert len(state.results) == state.round - (0 if state.phase == "over" else 1)
    if state.phase == "over":
        assert (
            state.successes >= WINS_NEEDED
            or state.failures >= LOSSES_ALLOWED
            or len(state.results) == MAX_ROUNDS
        )
    if state.results:
        assert list(state.last_trays) == list(state.players), "the last service's trays"
    for pid, seat in state.seats.items():
        assert len(seat.tray) == CELLS, f"{pid}: tray size"
        assert 0 <= seat.level <= 4
        assert all(TILES[t].kind == "house" for t in seat.house), f"{pid}: house"
        assert not any(TILES[t].kind == "house" for t in seat.hand), f"{pid}: house in hand"
        assert not any(TILES[t].kind == "house" for t in seat.tray if t), f"{pid}: house"
        if seat.offer is not None:
            assert seat.offer in seat.hand and not TILES[seat.offer].special, f"{pid}: offer"
        if state.phase != "service" or seat.done:
            assert seat.request is None and seat.offer is None, f"{pid}: posts after the service"
        if state.phase != "service":
            assert not seat.hand and not seat.house and not any(seat.tray), f"{pid}: tiles"
            assert not seat.done and seat.held is None and not seat.declared
        else:
            assert seat.ready
            held_ok = seat.held is None or seat.held in seat.hand or seat.held in seat.tray
            assert held_ok, f"{pid}: held tile elsewhere"
            for tid in seat.declared:
                assert tid in seat.tray and TILES[tid].joker, f"{pid}: declaration"
            specials = [TILES[t].level for t in seat.hand + seat.tray + seat.house if t]
            specials = [lvl for lvl in specials if lvl]
            # Own special tiles: one per level up to the player's level (never given).
            expected = list(range(1, seat.level + 1))
            assert sorted(specials) == expected, f"{pid}: special tiles {specials}"
        if state.phase == "levels" and not seat.ready:
            assert not seat.done

"""Alien Café: the tile set, scoring, Jokers, moves, rounds and the game's end (stacked states)."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from games.alien_cafe import GAME
from games.alien_cafe.actions import (
    DeclareAction,
    DoneAction,
    DrawAction,
    GiveAction,
    HoldAction,
    LevelAction,
    MoveAction,
    PlaceAction,
    TakeBackAction,
)
from games.alien_cafe.catalogue import CATEGORIES, COLOURS, SPECIALS, TILES, TYPES
from games.alien_cafe.scoring import evaluate, score
from games.alien_cafe.state import AlienCafeOptions, AlienCafeState
from games.engine import IllegalAction, apply, play_timeout
from games.presentation import Button, Select, panel_problems

P1, P2, P3 = "111", "222", "333"


# -- helpers ---------------------------------------------------------------------------------------
def new_game(players: list[str], seed: int = 1, **options: int) -> AlienCafeState:
    return GAME.setup(players, AlienCafeOptions(**options), seed)


def start(
    players: list[str], levels: dict[str, int] | None = None, seed: int = 1
) -> AlienCafeState:
    """A game in round 1's service, each player at the given level (default 0)."""
    state = new_game(players, seed)
    for pid in players:
        state = apply(GAME, state, pid, LevelAction(level=(levels or {}).get(pid, 0)))
    assert state.phase == "service"
    return state


def alien(colour: str, wants: str) -> list[str]:
    return [
        t.id
        for t in TILES.values()
        if t.kind == "alien" and t.type == colour and t.cond.target == wants
    ]


def order(category: str, wants: str) -> list[str]:
    return [
        t.id
        for t in TILES.values()
        if t.kind == "order" and t.type == category and t.cond.target == wants
    ]


def named(name: str) -> list[str]:
    return [t.id for t in TILES.values() if t.name == name]


ALIEN_JOKERS = named("Alien Joker")
ORDER_JOKERS = named("Order Joker")


def take(state: AlienCafeState, candidates: list[str]) -> str:
    """Remove the first candidate still in a bag or pile (conservation kept by the caller)."""
    for tid in candidates:
        for place in [state.red, state.blue, *state.piles]:
            if tid in place:
                place.remove(tid)
                return tid
    raise AssertionError(f"none of {candidates} is free")


def clear_hand(state: AlienCafeState, pid: str) -> None:
    """Put a player's hand, tray and House Rules back where they came from."""
    seat = state.seats[pid]
    for tid in seat.hand + [t for t in seat.tray if t] + seat.house:
        t = TILES[tid]
        if t.level:
            state.piles[t.level - 1].append(tid)
        else:
            (state.red if t.kind == "alien" else state.blue).append(tid)
    seat.hand, seat.tray, seat.house, seat.held, seat.declared = [], [None] * 16, [], None, {}


def stack(
    state: AlienCafeState,
    pid: str,
    tray: dict[int, list[str]],
    hand: list[list[str]] | None = None,
    house: list[list[str]] | None = None,
) -> dict[int, str]:
    """Replace pid's tiles by the given ones (each given as candidate ids; the first free used)."""
    clear_hand(state, pid)
    seat = state.seats[pid]
    placed = {}
    for cell, cands in tray.items():
        placed[cell] = seat.tray[cell] = take(state, cands)
    seat.hand = [take(state, c) for c in hand or []]
    seat.house = [take(state, c) for c in house or []]
    return placed


def total(state: AlienCafeState, pid: str) -> int:
    seat = state.seats[pid]
    return score(seat.tray, seat.house, len(seat.hand), seat.declared).total


def marks(state: AlienCafeState, pid: str) -> list[int | None]:
    seat = state.seats[pid]
    return score(seat.tray, seat.house, len(seat.hand), seat.declared).marks


PAIRS = [(c, k) for c in COLOURS for k in CATEGORIES]


def perfect_tray(state: AlienCafeState, pid: str) -> None:
    """16 tiles in 8 mutually satisfied alien/order pairs (16 points); only the special tiles
    stay in hand (−1 each)."""
    seat = state.seats[pid]
    specials = [t for t in seat.hand if TILES[t].special]
    house = list(seat.house)
    clear_hand(state, pid)
    for tid in specials + house:
        state.piles[TILES[tid].level - 1].remove(tid)
    seat.hand, seat.house = specials, house
    cell = 0
    for colour, category in itertools.cycle(PAIRS):
        a = [t for t in alien(colour, category) if t in state.red]
        o = [t for t in order(category, colour) if t in state.blue]
        if a and o:
            seat.tray[cell], seat.tray[cell + 1] = take(state, a), take(state, o)
            cell += 2
            if cell == 16:
                return


def finish_round(state: AlienCafeState, success: bool) -> AlienCafeState:
    """Level 0 for everyone, perfect trays (or untouched hands: −6) and everyone done."""
    for pid in state.players:
        if state.phase == "levels":
            state = apply(GAME, state, pid, LevelAction(level=0))
    for pid in state.players:
        if success:
            perfect_tray(state, pid)
    GAME.check_invariants(state)
    for pid in state.players:
        state = apply(GAME, state, pid, DoneAction())
    GAME.check_invariants(state)
    return state


# -- the tile set ----------------------------------------------------------------------------------
def test_tile_set_has_104_unique_tiles_with_the_rulebook_counts() -> None:
    assert len(TILES) == 104
    red = [t for t in TILES.values() if t.id.startswith("A")]
    blue = [t for t in TILES.values() if t.id.startswith("O")]
    special = [t for t in TILES.values() if t.id.startswith("X")]
    assert (len(red), len(blue), len(special)) == (40, 40, 24)
    assert Counter((t.type, t.cond.target) for t in red if not t.joker) == {
        (c, k): 3 for c in COLOURS for k in CATEGORIES
    }
    assert Counter((t.type, t.cond.target) for t in blue if not t.joker) == {
        (k, c): 3 for c in COLOURS for k in CATEGORIES
    }
    assert sum(t.joker for t in red) == 4 and sum(t.joker for t in blue) == 4
    assert {lvl: len(ids) for lvl, ids in SPECIALS.items()} == {1: 6, 2: 6, 3: 6, 4: 6}
    assert Counter(t.name for t in special if t.level < 4) == {
        n: 3
        for n in [
            "Seasoning",
            "Grumpy alien",
            "Sharing Platter",
            "Hungry alien",
            "Banquet",
            "Glutton",
        ]
    }
    banned = sorted(TILES[t].cond.target for t in SPECIALS[4])
    assert banned == sorted(["purple", "green", "blue", "orange", "drink", "dessert"])


def test_setup_puts_every_tile_in_a_bag_or_pile() -> None:
    state = new_game([P1, P2])
    GAME.check_invariants(state)
    assert len(state.red) == 40 and len(state.blue) == 40
    assert [len(p) for p in state.piles] == [6, 6, 6, 6]
    assert state.phase == "levels" and GAME.active_players(state) == {P1, P2}
    # Nobody is pinged: everyone's DM panel notifies them (play-test fix).
    assert state.announcements and state.announcements[0].ping == []


def test_conservation_check_catches_a_lost_or_doubled_tile() -> None:
    state = start([P1])
    state.seats[P1].hand.append(state.red[0])
    with pytest.raises(AssertionError):
        GAME.check_invariants(state)
    state = start([P1])
    state.red.pop()
    with pytest.raises(AssertionError):
        GAME.check_invariants(state)


# -- scoring ---------------------------------------------------------------------------------------
def test_rulebook_example_totals_four() -> None:
    """1 + 1 − 1 + 1 + 1 + 1 = 4, with a Joker (0) that represents a drink."""
    state = start([P1])
    placed = stack(
        state,
        P1,
        {
            0: alien("purple", "main"),  # next to a savoury dish: +1
            1: order("main", "purple"),  # next to a purple alien: +1
            2: alien("green", "dessert"),  # next to a dessert: +1
            3: order("dessert", "green"),  # next to a green alien: +1
            4: alien("blue", "dessert"),  # not next to a dessert: −1
            5: ORDER_JOKERS,  # the Joker: 0
            6: alien("orange", "drink"),  # next to the Joker-drink: +1
        },
    )
    GAME.check_invariants(state)
    assert total(state, P1) == 4
    state = apply(GAME, state, P1, DeclareAction(tile=placed[5], as_type="drink"))
    seat = state.seats[P1]
    ev = score(seat.tray, seat.house, 0, seat.declared)
    assert ev.total == 4
    assert ev.marks[:7] == [1, 1, 1, 1, -1, 0, 1]
    assert ev.declarations == {placed[5]: "drink"}


def test_next_to_a_type_holds_and_fails() -> None:
    a = alien("purple", "drink")[0]
    drink = order("drink", "green")[0]
    main = order("main", "green")[0]
    assert evaluate([a, drink] + [None] * 14, {}, [], 0).marks[:2] == [1, -1]
    assert evaluate([a, main] + [None] * 14, {}, [], 0).marks[:2] == [-1, -1]
    # Diagonal is not "next to"; a gap is not either.
    assert evaluate([a, None, None, None, None, drink] + [None] * 10, {}, [], 0).marks[0] == -1
    assert evaluate([a, None, drink] + [None] * 13, {}, [], 0).marks[0] == -1
    # Same column, touching: next to.
    assert evaluate([a, None, None, None, drink] + [None] * 11, {}, [], 0).marks[0] == 1


def test_seasoning_must_not_touch_orders() -> None:
    seasoning = named("Seasoning")[0]
    grumpy = named("Grumpy alien")[0]
    main = order("main", "green")[0]
    platter = named("Sharing Platter")[0]
    lonely = [seasoning] + [None] * 15
    assert evaluate(lonely, {}, [], 0).marks[0] == 1
    assert evaluate([seasoning, grumpy] + [None] * 14, {}, [], 0).marks[0] == 1
    assert evaluate([seasoning, main] + [None] * 14, {}, [], 0).marks[0] == -1
    # A Sharing Platter is an order (of no category).
    assert evaluate([seasoning, platter] + [None] * 14, {}, [], 0).marks[0] == -1


def test_grumpy_alien_must_not_touch_other_aliens() -> None:
    grumpy = named("Grumpy alien")[0]
    hungry = named("Hungry alien")[0]
    purple = alien("purple", "main")[0]
    main = order("main", "purple")[0]
    assert evaluate([grumpy, main] + [None] * 14, {}, [], 0).marks[0] == 1
    assert evaluate([grumpy, None, None, None, purple] + [None] * 11, {}, [], 0).marks[0] == -1
    # A Hungry alien is an alien (of no colour).
    assert evaluate([grumpy, hungry] + [None] * 14, {}, [], 0).marks[0] == -1


def test_at_least_two_and_three() -> None:
    platter, banquet = named("Sharing Platter")[0], named("Banquet")[0]
    hungry, glutton = named("Hungry alien")[0], named("Glutton")[0]
    a1, a2, a3 = alien("purple", "main")[:3]
    o1, o2, o3 = order("main", "blue")[:3]

    # Cell 5 has neighbours 1, 4, 6, 9.
    def at5(centre: str, around: list[str]) -> int | None:
        tray: list[str | None] = [None] * 16
        tray[5] = centre
        for cell, tid in zip([1, 4, 6, 9], around, strict=False):
            tray[cell] = tid
        return evaluate(tray, {}, [], 0).marks[5]

    assert at5(platter, [a1, a2]) == 1
    assert at5(platter, [a1, o1]) == -1
    assert at5(hungry, [o1, o2]) == 1
    assert at5(hungry, [o1, a1]) == -1
    assert at5(banquet, [a1, a2, a3]) == 1
    assert at5(banquet, [a1, a2, o1]) == -1
    assert at5(glutton, [o1, o2, o3]) == 1
    assert at5(glutton, [o1, o2, a1, a2]) == -1
    # Special aliens count as aliens for the Banquet; the Platter counts as an order.
    assert at5(banquet, [hungry, glutton, a1]) == 1
    assert at5(glutton, [platter, o1, o2]) == 1


def test_house_rules_hold_fail_and_never_count_as_unplaced() -> None:
    state = start([P1], levels={P1: 4})
    seat = state.seats[P1]
    assert len(seat.house) == 1 and TILES[seat.house[0]].kind == "house"
    assert all(TILES[t].kind != "house" for t in seat.hand)
    no_drinks = [t for t in SPECIALS[4] if TILES[t].cond.target == "drink"]
    stack(state, P1, {0: alien("purple", "main"), 1: order("main", "purple")}, house=[no_drinks])
    assert total(state, P1) == 3  # +1 +1 and the House Rule +1; not a tile in hand
    stack(
        state,
        P1,
        {0: alien("purple", "main"), 1: order("main", "purple"), 5: order("drink", "blue")},
        house=[no_drinks],
    )
    assert total(state, P1) == 2 + (-1) + (-1)  # the drink fails and breaks the House Rule


def test_jokers_get_the_best_declaration_and_respect_house_rules() -> None:
    state = start([P1])
    no_desserts = [t for t in SPECIALS[4] if TILES[t].cond.target == "dessert"]
    placed = stack(
        state,
        P1,
        {0: alien("green", "dessert"), 1: ORDER_JOKERS, 2: alien("blue", "dessert")},
    )
    joker = placed[1]
    # Auto: the Joker becomes a dessert and satisfies both aliens.
    assert total(state, P1) == 2
    seat = state.seats[P1]
    assert score(seat.tray, [], 0, {}).declarations == {joker: "dessert"}
    # An explicit declaration wins over the automatic one.
    state = apply(GAME, state, P1, DeclareAction(tile=joker, as_type="main"))
    assert total(state, P1) == -2
    state = apply(GAME, state, P1, DeclareAction(tile=joker, as_type="auto"))
    assert total(state, P1) == 2
    # With "no desserts", declaring dessert costs the House Rule: +2 −1 = 1 vs −2 +1 = −1.
    stack(
        state,
        P1,
        {0: alien("green", "dessert"), 1: ORDER_JOKERS, 2: alien("blue", "dessert")},
        house=[no_desserts],
    )
    assert total(state, P1) == 1
    # With one alien wanting a dessert it is a tie: +1 − 1 (dessert) = −1 + 1 (anything else).
    stack(state, P1, {0: alien("green", "dessert"), 1: ORDER_JOKERS}, house=[no_desserts])
    assert total(state, P1) == 0


def test_alien_joker_helps_at_least_and_next_to_neighbours() -> None:
    state = start([P1])
    stack(
        state,
        P1,
        {
            5: named("Sharing Platter"),
            1: ALIEN_JOKERS,
            4: alien("purple", "main"),
            0: order("drink", "orange"),
        },
    )
    # The Joker as an orange alien: the Platter has 2 aliens (+1), the drink its orange alien
    # (+1); the purple alien wants a main and fails (−1).
    ev = score(state.seats[P1].tray, [], 0, {})
    assert ev.total == 1
    assert list(ev.declarations.values()) == ["orange"]


def test_best_declarations_match_brute_force() -> None:
    """The search equals trying all 7^k declarations, on many random small trays."""
    from games.rng import Rng

    rng = Rng(seed=5)
    jokers = ALIEN_JOKERS + ORDER_JOKERS
    others = [t for t in TILES if not TILES[t].joker and TILES[t].kind != "house"]
    houses = list(SPECIALS[4])
    for _ in range(150):
        k = rng.randint(1, 3)
        tiles = rng.sample(jokers, k) + rng.sample(others, rng.randint(2, 9))
        cells = rng.sample(range(16), len(tiles))
        tray: list[str | None] = [None] * 16
        for cell, tid in zip(cells, tiles, strict=True):
            tray[cell] = tid
        house = rng.sample(houses, rng.randint(0, 1))
        best = max(
            evaluate(tray, dict(zip(tiles[:k], combo, strict=True)), house, 0).total
            for combo in itertools.product(TYPES, repeat=k)
        )
        assert score(tray, house, 0).total == best, tray


def test_tiles_left_in_hand_cost_one_each_special_ones_too() -> None:
    state = start([P1], levels={P1: 2})
    seat = state.seats[P1]
    assert len(seat.hand) == 8  # 3 + 3 + one level-1 and one level-2 tile
    assert total(state, P1) == -8
    state = play_timeout(GAME, state, P1)[0]
    assert state.results[-1].scores == {P1: -8}
    assert not state.results[-1].success


# -- moves -----------------------------------------------------------------------------------------
def test_place_move_swap_take_back_and_hold() -> None:
    state = start([P1])
    hand = list(state.seats[P1].hand)
    a, b = hand[0], hand[1]
    state = apply(GAME, state, P1, HoldAction(tile=a))
    assert state.seats[P1].held == a
    state = apply(GAME, state, P1, PlaceAction(tile=a, cell=5))
    assert state.seats[P1].tray[5] == a and a not in state.seats[P1].hand
    assert state.seats[P1].held is None
    with pytest.raises(IllegalAction, match="cell is taken"):
        apply(GAME, state, P1, PlaceAction(tile=b, cell=5))
    state = apply(GAME, state, P1, PlaceAction(tile=b, cell=6))
    state = apply(GAME, state, P1, MoveAction(tile=a, cell=0))
    assert state.seats[P1].tray[0] == a and state.seats[P1].tray[5] is None
    state = apply(GAME, state, P1, MoveAction(tile=a, cell=6))  # onto b: they swap
    assert state.seats[P1].tray[6] == a and state.seats[P1].tray[0] == b
    state = apply(GAME, state, P1, TakeBackAction(tile=a))
    assert a in state.seats[P1].hand and a not in state.seats[P1].tray
    with pytest.raises(IllegalAction, match="isn't on your tray"):
        apply(GAME, state, P1, TakeBackAction(tile=a))
    with pytest.raises(IllegalAction, match="isn't in your hand"):
        apply(GAME, state, P1, PlaceAction(tile=state.red[0], cell=3))
    GAME.check_invariants(state)


def test_declarations_are_forgotten_when_the_joker_leaves_the_tray() -> None:
    state = start([P1])
    placed = stack(state, P1, {0: ALIEN_JOKERS})
    state = apply(GAME, state, P1, DeclareAction(tile=placed[0], as_type="main"))
    assert state.seats[P1].declared == {placed[0]: "main"}
    state = apply(GAME, state, P1, TakeBackAction(tile=placed[0]))
    assert state.seats[P1].declared == {}
    with pytest.raises(IllegalAction, match="Joker that is on your tray"):
        apply(GAME, state, P1, DeclareAction(tile=placed[0], as_type="main"))


def test_draw_from_each_bag_and_empty_bag_refused() -> None:
    state = start([P1, P2])
    red_before, blue_before = len(state.red), len(state.blue)
    state = apply(GAME, state, P1, DrawAction(bag="red"))
    drawn = state.seats[P1].hand[-1]
    assert TILES[drawn].kind == "alien" and len(state.red) == red_before - 1
    assert state.seats[P1].held == drawn  # ready to be placed
    state = apply(GAME, state, P1, DrawAction(bag="blue"))
    assert TILES[state.seats[P1].hand[-1]].kind == "order" and len(state.blue) == blue_before - 1
    # Empty the red bag into P2's hand (conservation kept).
    state.seats[P2].hand += state.red
    state.red = []
    GAME.check_invariants(state)
    assert DrawAction(bag="red") not in GAME.legal_actions(state, P1)
    with pytest.raises(IllegalAction, match="red bag 👽 is empty — try the blue bag"):
        apply(GAME, state, P1, DrawAction(bag="red"))
    state.seats[P2].hand += state.blue
    state.blue = []
    with pytest.raises(IllegalAction, match="both bags are empty"):
        apply(GAME, state, P1, DrawAction(bag="blue"))


def test_give_a_tile_to_another_player() -> None:
    state = start([P1, P2])
    tid = state.seats[P1].hand[0]
    state = apply(GAME, state, P1, HoldAction(tile=tid))
    state = apply(GAME, state, P1, GiveAction(tile=tid, to=P2))
    assert tid not in state.seats[P1].hand and tid in state.seats[P2].hand
    assert state.seats[P1].held is None
    assert "gave you" in state.seats[P2].note and tid not in state.seats[P2].note
    assert len(state.seats[P1].hand) == 5 and len(state.seats[P2].hand) == 7
    GAME.check_invariants(state)
    with pytest.raises(IllegalAction, match="already yours"):
        apply(GAME, state, P1, GiveAction(tile=state.seats[P1].hand[0], to=P1))
    with pytest.raises(IllegalAction, match="from your hand"):
        apply(GAME, state, P1, GiveAction(tile=tid, to=P2))
    # Nobody can give to a player who is done.
    state = apply(GAME, state, P2, DoneAction())
    with pytest.raises(IllegalAction, match="already done"):
        apply(GAME, state, P1, GiveAction(tile=state.seats[P1].hand[0], to=P2))


def test_special_tiles_cannot_be_given() -> None:
    state = start([P1, P2], levels={P1: 3})
    specials = [t for t in state.seats[P1].hand if TILES[t].special]
    assert sorted(TILES[t].level for t in specials) == [1, 2, 3]
    for tid in specials:
        assert GiveAction(tile=tid, to=P2) not in GAME.legal_actions(state, P1)
        with pytest.raises(IllegalAction, match="Special tiles can't be given"):
            apply(GAME, state, P1, GiveAction(tile=tid, to=P2))
    # Their panel offers no "Give" (nor "Offer") for a held special tile, in any control.
    state = apply(GAME, state, P1, HoldAction(tile=specials[0]))
    panel = GAME.panel(state, P1)
    offered = [c.action for c in panel.controls if isinstance(c, Button)]
    offered += [o.action for c in panel.controls if isinstance(c, Select) for o in c.options]
    assert offered and not any(a["type"] in ("give", "offer") for a in offered)


def test_done_is_final_and_locks_the_tray() -> None:
    state = start([P1, P2])
    state = apply(GAME, state, P1, DoneAction())
    assert GAME.active_players(state) == {P2}
    assert GAME.legal_actions(state, P1) == []
    with pytest.raises(IllegalAction):
        apply(GAME, state, P1, DrawAction(bag="red"))
    assert GAME.panel(state, P1).controls == []


# -- levels and rounds -----------------------------------------------------------------------------
def test_levels_deal_special_tiles_and_return_them_after_the_round() -> None:
    state = new_game([P1, P2])
    state = apply(GAME, state, P1, LevelAction(level=4))
    assert state.phase == "levels" and GAME.active_players(state) == {P2}
    assert GAME.clock(state).key == "levels-1"  # type: ignore[union-attr]
    state = apply(GAME, state, P2, LevelAction(level=1))
    assert state.phase == "service"
    clock = GAME.clock(state)
    assert clock is not None and clock.key == "service-1" and clock.seconds == 180 and clock.remind
    s1, s2 = state.seats[P1], state.seats[P2]
    assert sorted(TILES[t].level for t in s1.hand if TILES[t].special) == [1, 2, 3]
    assert [TILES[t].level for t in s1.house] == [4]
    assert len(s1.hand) == 9 and len(s2.hand) == 7
    assert [len(p) for p in state.piles] == [4, 5, 5, 5]
    assert state.announcements[-1].ping == []  # the DM with the tiles notifies everyone
    assert len(state.red) == 34 and len(state.blue) == 34
    for pid in (P1, P2):
        state = apply(GAME, state, pid, DoneAction())
    assert state.phase == "levels" and state.round == 2
    assert [len(p) for p in state.piles] == [6, 6, 6, 6]
    assert len(state.red) == 40 and len(state.blue) == 40
    GAME.check_invariants(state)
    # The level timeout keeps each player's previous level.
    assert GAME.on_timeout(state, P1) == LevelAction(level=4)
    state = play_timeout(GAME, state, P1)[0]
    state = play_timeout(GAME, state, P2)[0]
    assert state.phase == "service" and state.seats[P1].level == 4 and state.seats[P2].level == 1


def test_level_choice_is_refused_during_the_service() -> None:
    state = start([P1])
    with pytest.raises(IllegalAction, match="Levels are picked before"):
        apply(GAME, state, P1, LevelAction(level=2))
    state = new_game([P1, P2])
    with pytest.raises(IllegalAction, match="pick your level first"):
        apply(GAME, state, P1, DrawAction(bag="red"))


def test_service_timeout_ends_the_round_for_everyone() -> None:
    state = start([P1, P2, P3])
    state = apply(GAME, state, P1, DoneAction())
    for pid in (P2, P3):
        state, played = play_timeout(GAME, state, pid)
        assert played == [DoneAction()]
    assert state.phase == "levels" and state.round == 2 and len(state.results) == 1


def test_three_successes_win() -> None:
    state = new_game([P1, P2])
    for _ in range(3):
        state = finish_round(state, success=True)
    assert state.phase == "over" and state.successes == 3 and len(state.results) == 3
    assert all(r.scores == {P1: 16, P2: 16} for r in state.results)
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.cooperative
    assert outcome.winners == [P1, P2] and outcome.scores == {P1: 48, P2: 48}
    assert "won" in outcome.summary[0]
    assert state.announcements[-1].title.startswith("🏆")


def test_three_failures_lose() -> None:
    state = new_game([P1])
    for _ in range(3):
        state = finish_round(state, success=False)
    assert state.phase == "over" and state.failures == 3 and state.successes == 0
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == [] and outcome.scores == {P1: -18}
    assert "lost" in outcome.summary[0]


def test_one_player_below_ten_fails_the_service() -> None:
    state = new_game([P1, P2])
    for pid in (P1, P2):
        state = apply(GAME, state, pid, LevelAction(level=0))
    perfect_tray(state, P1)
    perfect_tray(state, P2)
    # Take 7 tiles off P2's tray back into hand: 9 placed (some lose their partner) − 7 < 10.
    for cell in range(7):
        tid = state.seats[P2].tray[cell]
        assert tid is not None
        state = apply(GAME, state, P2, TakeBackAction(tile=tid))
    state = apply(GAME, state, P1, DoneAction())
    state = apply(GAME, state, P2, DoneAction())
    result = state.results[-1]
    assert result.scores[P1] == 16 and result.scores[P2] < 10 and not result.success
    assert state.failures == 1 and state.phase == "levels"


def test_five_rounds_at_most_and_mixed_results() -> None:
    state = new_game([P1, P2])
    for success in (True, False, False, True):
        state = finish_round(state, success)
    assert state.phase == "levels" and state.round == 5
    state = finish_round(state, success=True)
    assert state.phase == "over" and len(state.results) == 5 and state.successes == 3
    assert GAME.outcome(state).winners == [P1, P2]  # type: ignore[union-attr]
    state = new_game([P1, P2])
    for success in (False, True, True, False, False):
        state = finish_round(state, success)
    assert state.phase == "over" and len(state.results) == 5
    assert GAME.outcome(state).winners == []  # type: ignore[union-attr]
    with pytest.raises(IllegalAction, match="over"):
        apply(GAME, state, P1, LevelAction(level=0))


def test_solo_game_works() -> None:
    state = new_game([P1])
    state = apply(GAME, state, P1, LevelAction(level=1))
    assert not any(a.type == "give" for a in GAME.legal_actions(state, P1))
    state = finish_round(state, success=True)
    assert state.results[-1].success and state.results[-1].scores == {P1: 15}  # Seasoning/Grumpy
    while state.phase != "over":
        state = finish_round(state, success=True)
    assert GAME.outcome(state).winners == [P1]  # type: ignore[union-attr]


def test_round_results_announcement_marks_every_tile() -> None:
    state = start([P1])
    stack(
        state,
        P1,
        {
            0: alien("purple", "main"),
            1: order("main", "purple"),
            5: ORDER_JOKERS,
            15: alien("blue", "drink"),
        },
        hand=[alien("green", "drink")],
    )
    state = apply(GAME, state, P1, DoneAction())
    results = state.announcements[-1]
    assert "failed" in results.title
    field = results.fields[0]
    assert "0 points" in field.name  # +1 +1 −1 (blue alien) −1 (hand), Joker 0
    grid = "\n".join(field.value.split("\n")[:4])
    assert grid.count("✅") == 2 and grid.count("❌") == 1
    assert "🃏=" in field.value and "left in hand" in field.value
    assert panel_problems(results) == []


# -- panels ----------------------------------------------------------------------------------------
def test_private_panel_grid_buttons_follow_the_cursor() -> None:
    state = start([P1, P2])
    panel = GAME.panel(state, P1)
    assert panel_problems(panel) == [] and panel.stamp == "round-1-service"
    cells = [c for c in panel.controls if isinstance(c, Button) and c.row is not None][:4]
    assert all(c.label == "·" and c.disabled for c in cells)
    tid = state.seats[P1].hand[0]
    state = apply(GAME, state, P1, HoldAction(tile=tid))
    panel = GAME.panel(state, P1)
    grid = [c for c in panel.controls if isinstance(c, Button) and c.action["type"] == "place"]
    assert len(grid) == 16 and grid[7].action == {"type": "place", "tile": tid, "cell": 7}
    state = apply(GAME, state, P1, PlaceAction(tile=tid, cell=7))
    panel = GAME.panel(state, P1)
    picked = [c for c in panel.controls if isinstance(c, Button) and c.action.get("tile") == tid]
    assert picked and picked[0].action == {"type": "hold", "tile": tid}
    state = apply(GAME, state, P1, HoldAction(tile=tid))
    panel = GAME.panel(state, P1)
    moves = [c for c in panel.controls if isinstance(c, Button) and c.action["type"] == "move"]
    assert len(moves) == 15
    assert any(
        c.action == {"type": "take_back", "tile": tid}
        for c in panel.controls
        if isinstance(c, Button)
    )
    for c in panel.controls:
        if isinstance(c, Button) and not c.disabled:
            assert GAME.is_legal(state, P1, GAME.parse_action(c.action))


def test_public_panel_shows_progress_not_hands() -> None:
    state = start([P1, P2])
    panel = GAME.panel(state, None)
    text = panel.model_dump_json()
    assert panel_problems(panel) == []
    assert "6 in hand" in text and "Red bag: 34" in text
    for tid in state.seats[P1].hand + state.seats[P2].hand:
        assert tid not in text
    assert not panel.controls


def test_state_round_trips_through_json() -> None:
    state = start([P1, P2], levels={P1: 4})
    state = apply(GAME, state, P1, HoldAction(tile=state.seats[P1].hand[0]))
    assert AlienCafeState.model_validate_json(state.model_dump_json()) == state


def test_options_bounds_and_help() -> None:
    assert AlienCafeOptions().round_time == 180
    for bad in (59, 604801):
        with pytest.raises(IllegalAction):
            GAME.parse_options({"round_time": bad})
    schema = AlienCafeOptions.model_json_schema()["properties"]
    assert len(schema["round_time"]["choices"]) <= 25
    assert all(60 <= v <= 604800 for v in schema["round_time"]["choices"].values())
    assert len(GAME.help_text) <= 3500
    state = new_game([P1], round_time=60)
    state = apply(GAME, state, P1, LevelAction(level=0))
    assert GAME.clock(state).seconds == 60  # type: ignore[union-attr]

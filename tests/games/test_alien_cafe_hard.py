"""Alien Café's hard player (games/alien_cafe/planner.py): it never peeks, stops at 10 points,
keeps drawing short of them, and plays whole games through the engine."""

from __future__ import annotations

from bot.core.levels import Level, hard_plan, level_strategy
from bot.core.seat_view import as_seen_by
from games.alien_cafe import GAME
from games.alien_cafe.actions import DoneAction, DrawAction, LevelAction
from games.alien_cafe.catalogue import TILES
from games.alien_cafe.planner import hard_action
from games.alien_cafe.state import AlienCafeState
from games.alien_cafe.strategies import greedy_action
from games.engine import apply
from games.rng import Rng
from games.search import is_token
from tests.games.test_alien_cafe import alien, order, stack, start, total

B1, B2 = "bot-1", "bot-2"


def other_deal(state: AlienCafeState) -> AlienCafeState:
    """The same table with bot-2's alien and order tiles swapped for others still in the bags,
    and the bags in another order: a deal that bot-1 cannot tell from the first."""
    other = state.model_copy(deep=True)
    red, blue = list(other.red), list(other.blue)
    hand = []
    for tid in other.seats[B2].hand:
        if TILES[tid].special:
            hand.append(tid)
            continue
        bag = red if TILES[tid].kind == "alien" else blue
        swap = bag.pop(0)
        bag.append(tid)
        hand.append(swap)
    other.seats[B2].hand = hand
    other.red, other.blue = list(reversed(red)), list(reversed(blue))
    GAME.check_invariants(other)
    return other


def test_hard_decides_alike_whatever_the_others_hold_and_the_bags_order() -> None:
    first = start([B1, B2], {B1: 2, B2: 2}, seed=4)
    second = other_deal(first)
    assert first.seats[B2].hand != second.seats[B2].hand and first.red != second.red
    moves = []
    for _ in range(20):  # bot-1's service, move by move, in both worlds
        views = [as_seen_by(GAME, s, B1, 5) for s in (first, second)]
        assert views[0] == views[1]
        decided = [hard_action(v, B1, 10_000)[0] for v in views]
        assert decided[0] == decided[1]
        moves.append(decided[0])
        if isinstance(decided[0], DoneAction):
            break
        # A draw brings each world its own tile: carry on from the first world's.
        first = apply(GAME, first, B1, decided[0])
        second = first if isinstance(decided[0], DrawAction) else other_deal(first)
    assert {type(m).__name__ for m in moves} >= {"PlaceAction"}


def test_a_seats_view_holds_the_bags_and_piles_as_counts_only() -> None:
    state = start([B1, B2], {B1: 2, B2: 3}, seed=4)
    seen = as_seen_by(GAME, state, B1, 5)
    face_down = [*state.red, *state.blue, *(t for pile in state.piles for t in pile)]
    shown = [*seen.red, *seen.blue, *(t for pile in seen.piles for t in pile)]
    assert len(shown) == len(face_down) > 0  # how many tiles each holds: the table knows
    assert all(is_token(t) for t in shown)
    dumped = seen.model_dump_json()
    assert not [t for t in face_down if f'"{t}"' in dumped]  # no bag tile named anywhere
    # The bags in another order: the seat cannot tell.
    shuffled = state.model_copy(
        update={
            "red": state.red[::-1],
            "blue": state.blue[::-1],
            "piles": [pile[::-1] for pile in state.piles],
        }
    )
    assert as_seen_by(GAME, shuffled, B1, 5) == seen


def test_hard_is_done_at_ten_points_where_normal_draws_on() -> None:
    state = start([B1, B2], seed=2)
    pairs = [("green", "main"), ("blue", "drink"), ("purple", "dessert"), ("orange", "main")]
    tray: dict[int, list[str]] = {}
    for row, (colour, category) in enumerate(pairs):  # four mutually happy pairs: 8 points
        tray[4 * row] = alien(colour, category)
        tray[4 * row + 1] = order(category, colour)
    tray[2] = alien("green", "main")  # next to the first main: 9, 10
    tray[6] = alien("blue", "drink")
    stack(state, B1, tray)
    assert total(state, B1) == 10
    seen = as_seen_by(GAME, state, B1, 1)
    assert isinstance(hard_action(seen, B1, 10_000)[0], DoneAction)
    assert isinstance(greedy_action(seen, B1, 0), DrawAction)  # it aims for 12


def test_hard_keeps_drawing_short_of_ten_where_normal_gives_up() -> None:
    # The normal player's service (seed 2, level 2) until it is done with 9 points and two
    # tiles it cannot place in hand: the table's service fails there.
    state = start([B1, B2], {B1: 2, B2: 2}, seed=2)
    while not isinstance(greedy_action(state, B1, 2), DoneAction):
        state = apply(GAME, state, B1, greedy_action(state, B1, 2))
    assert total(state, B1) == 9 and len(state.seats[B1].hand) == 2
    move, weighed = hard_action(as_seen_by(GAME, state, B1, 1), B1, 10_000)
    assert isinstance(move, DrawAction) and weighed > 0


def test_a_hard_table_plays_whole_games_through_the_engine() -> None:
    players = [B1, B2]
    state = start(players, {B1: 3, B2: 3}, seed=8)
    rng = Rng(seed=1)
    hard = level_strategy(GAME, Level.HARD, B1, simulations=40)
    moves = 0
    while GAME.outcome(state) is None and moves < 3000:
        mover = next(p for p in players if p in GAME.active_players(state))
        seen = as_seen_by(GAME, state, mover, rng.randint(0, 1 << 40))
        move = hard(seen, mover, rng) if state.phase == "service" else LevelAction(level=3)
        state = apply(GAME, state, mover, move)  # refuses an illegal move
        moves += 1
    assert GAME.outcome(state) is not None


def test_the_hard_level_asks_the_games_own_search_and_keeps_to_its_stop() -> None:
    state = start([B1, B2], {B1: 1, B2: 1}, seed=6)
    seen = as_seen_by(GAME, state, B1, 1)
    options = GAME.parse_options({})
    whole = hard_plan(
        GAME,
        seen,
        B1,
        options=options,
        policy=lambda s, p, r: DoneAction(),
        seed=1,
        simulations=10_000,
    )
    assert whole.simulations > 0  # faces weighed: the planner, not the generic search's rollouts
    stopped = hard_plan(
        GAME,
        seen,
        B1,
        options=options,
        policy=lambda s, p, r: DoneAction(),
        seed=1,
        simulations=10_000,
        stop=lambda: True,
    )
    assert stopped.simulations < whole.simulations and GAME.is_legal(state, B1, stopped.moves[0])

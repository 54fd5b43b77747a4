"""What Cube Café and Café Carnage tell the hard bot's search: Cube Café's round-end value and
its short simulations, Café Carnage's whole orders, and both games' own determinizers (which
fill only what the seat could not see)."""

from __future__ import annotations

import itertools

from bot.core.levels import determinizer, normal_strategy
from bot.core.seat_view import as_seen_by
from games import REGISTRY
from games.breakfast_vs_aliens import thinking as bva_thinking
from games.breakfast_vs_aliens.game import BreakfastVsAliens
from games.breakfast_vs_aliens.rules import PASS
from games.breakfast_vs_aliens.state import Action, BvaState, Capture, OfferStep
from games.breakfast_vs_aliens.strategies import capture_worth
from games.cafe_carnage.catalogue import COURSES, Course, action_kind, dish, run_card
from games.cafe_carnage.planning import plans
from games.cafe_carnage.state import CafeState, Confirm, Pick, Play
from games.cube_cafe.catalogue import GUEST, VIPS, tip
from games.cube_cafe.planning import round_value, worth
from games.cube_cafe.state import Board, CubeCafeState, Table
from games.engine import GameState, SearchHints, apply, new_game
from games.rng import Rng
from games.search import is_token, rollout, search

CUBE = REGISTRY["cube-cafe"]
CARNAGE = REGISTRY["cafe-carnage"]
BVA = REGISTRY["breakfast-vs-aliens"]


def play(game_id: str, players: int, moves: int, seed: int = 3) -> GameState:
    """A game after ``moves`` moves of its normal player."""
    game = REGISTRY[game_id]
    state = new_game(game, [f"bot-{i + 1}" for i in range(players)], game.parse_options({}), seed)
    _, normal = normal_strategy(game, "bot-1")
    rng = Rng(seed=seed)
    for _ in range(moves):
        mover = next(p for p in state.players if p in game.active_players(state))
        state = apply(game, state, mover, normal(state, mover, rng))
    return state


# -- Cube Café -----------------------------------------------------------------------------------


def test_a_restaurants_worth_is_its_money_at_the_end_and_more_while_customers_wait() -> None:
    board = Board(money=17)
    assert worth(board, 0) == 17.0
    assert worth(board, 3) == 17.0  # nobody waits: nothing promised
    waiting = Table(guest=GUEST, satisfaction=3, plate="red")
    with_guest = board.model_copy(update={"tables": [waiting, Table(), Table()]})
    promised = worth(with_guest, 3)
    assert 17 + tip(GUEST, 3) * 0.5 < promised < 17 + tip(GUEST, 5)
    assert worth(with_guest, 0) == 17.0  # the game is over: a waiting customer pays nothing
    ready = with_guest.model_copy(update={"hot": ["red"]})
    assert worth(ready, 3) > promised  # the food it ordered is on the counter


def test_cube_cafes_simulation_ends_when_the_round_is_fed() -> None:
    start = play("cube-cafe", 2, 3)
    assert isinstance(start, CubeCafeState)
    seen = as_seen_by(CUBE, start, "bot-1", 5)
    assert isinstance(seen, CubeCafeState)
    assert round_value(seen, seen, "bot-1") is None  # mid-round: play on
    _, normal = normal_strategy(CUBE, "bot-1")
    end, score = rollout(
        CUBE,
        seen,
        normal,
        Rng(seed=1),
        5_000,
        player="bot-1",
        hints=CUBE.search_hints(),
        start=seen,
    )
    assert isinstance(end, CubeCafeState)
    assert end.round == seen.round + 1  # one round, not the game
    assert score is not None and 0.0 < score < 1.0
    # The other restaurant closed at once: only the searcher's board was worked.
    assert end.progress[-1]["bot-1"] >= start.boards["bot-1"].money
    richer = end.model_copy(
        update={
            "boards": {**end.boards, "bot-1": end.boards["bot-1"].model_copy(update={"money": 99})}
        }
    )
    assert round_value(seen, richer, "bot-1") > score  # type: ignore[operator]


def test_cube_cafes_determinizer_draws_the_face_down_vips_from_those_not_shown() -> None:
    state = play("cube-cafe", 2, 0)
    assert isinstance(state, CubeCafeState)
    seen = as_seen_by(CUBE, state, "bot-1", 5)
    assert isinstance(seen, CubeCafeState)
    assert all(is_token(v) for v in seen.vips)  # both face down in round 1
    drawn = set()
    for seed in range(12):
        world = CUBE.determinize(seen, "bot-1", Rng(seed=seed))
        assert isinstance(world, CubeCafeState)
        assert len(set(world.vips)) == 2 and set(world.vips) <= set(VIPS)
        CUBE.check_invariants(world)
        drawn.add(tuple(world.vips))
    assert len(drawn) > 1  # drawn, not fixed
    assert seen.vips == as_seen_by(CUBE, state, "bot-1", 5).vips  # the view is left as it was


# -- Café Carnage --------------------------------------------------------------------------------


def test_café_carnage_plans_are_whole_orders_one_per_distinct_choice() -> None:
    state = play("cafe-carnage", 3, 0)
    assert isinstance(state, CafeState)
    seen = as_seen_by(CARNAGE, state, "bot-1", 5)
    assert isinstance(seen, CafeState)
    found = plans(seen, "bot-1")
    menu = seen.menus["bot-1"]

    def totals(courses: tuple[Course, ...]) -> set[int]:
        values = [{dish(c).value for c in menu[course]} for course in courses]
        return {sum(meal) for meal in itertools.product(*values)}

    kinds = len({action_kind(c) for c in seen.hands["bot-1"]})
    # One order per meal total and ballot kind (all that decides a round), each a distinct one.
    distinct = {tuple(m.model_dump_json() for m in plan) for plan in found}
    assert len(found) == len(totals(COURSES)) * kinds == len(distinct)
    assert len(found) < 3 * 3 * 3 * kinds
    for plan in found:  # each is a legal way to make and confirm an order
        assert isinstance(plan[-1], Confirm)
        world: GameState = seen
        for move in plan:
            world = apply(CARNAGE, world, "bot-1", move)
    # A pick made stays: the plans left keep it and choose the rest.
    starter = next(m for m in found[-1] if isinstance(m, Pick))
    after = apply(CARNAGE, seen, "bot-1", starter)
    rest = plans(after, "bot-1")
    assert rest and all(
        not (isinstance(m, Pick) and dish(m.card).course == "starter") for p in rest for m in p
    )
    assert len(rest) == len(totals(("main", "dessert"))) * kinds
    played = apply(CARNAGE, after, "bot-1", next(m for m in rest[0] if isinstance(m, Play)))
    assert all(not isinstance(m, Play) for p in plans(played, "bot-1") for m in p)


def test_café_carnages_determinizer_deals_the_unseen_cards_and_keeps_run_public() -> None:
    # Round 2 of a game where bot-1 escaped and the other two were caught (seed 3).
    state = play("cafe-carnage", 3, 17)
    assert isinstance(state, CafeState)
    assert state.round == 2 and state.run_discarded == ["bot-1"]
    seen = as_seen_by(CARNAGE, state, "bot-1", 5)
    assert isinstance(seen, CafeState)
    deals = set()
    for seed in range(10):
        world = CARNAGE.determinize(seen, "bot-1", Rng(seed=seed))
        assert isinstance(world, CafeState)
        assert '"?' not in world.model_dump_json()
        CARNAGE.check_invariants(world)  # every card in one place
        assert world.menus["bot-1"] == state.menus["bot-1"]
        assert world.hands["bot-1"] == state.hands["bot-1"]
        for p in ("bot-2", "bot-3"):  # caught, so they still hold RUN!, as in truth
            assert run_card(p) in state.hands[p] and run_card(p) in world.hands[p]
            assert len(world.hands[p]) == len(state.hands[p])
        deals.add(tuple(itertools.chain.from_iterable(world.menus["bot-2"].values())))
    assert len(deals) > 1


# -- Breakfast vs Aliens -------------------------------------------------------------------------


def offer(seed: int = 3, wider: int = 2) -> BvaState:
    """A Mini-Muffin game played by its normal player up to an offer with at least ``wider``
    capture options."""
    state = play("breakfast-vs-aliens", 2, 0, seed)
    assert isinstance(state, BvaState)
    _, normal = normal_strategy(BVA, "bot-1")
    while True:
        mover = next(p for p in state.players if p in BVA.active_players(state))
        moves = BVA.legal_actions(state, mover)
        if isinstance(state.pending, OfferStep) and len(moves) > wider:
            return state
        state = apply(BVA, state, mover, normal(state, mover, Rng(seed=1)))


def test_breakfast_vs_aliens_compares_the_best_captures_and_letting_the_alien_go() -> None:
    state = offer(wider=bva_thinking.CAPTURES + 1)
    player = state.pending.player  # type: ignore[union-attr]
    seen = as_seen_by(BVA, state, player, 5)
    assert isinstance(seen, BvaState)
    found = bva_thinking.candidates(seen, player)
    legal = BVA.legal_actions(seen, player)
    assert len(legal) > len(found) == bva_thinking.CAPTURES + 1
    assert PASS in found and all(isinstance(m, Capture) for m in found if m != PASS)
    # The normal player's own move comes first; the captures kept are those it values most.
    _, normal = normal_strategy(BVA, player)
    assert found[0] == normal(seen, player, Rng(seed=1))
    ranked = sorted(capture_worth(seen, player, m) for m in legal if isinstance(m, Capture))
    kept = sorted((capture_worth(seen, player, m) for m in found if m != PASS), reverse=True)
    assert kept == ranked[::-1][: len(kept)]


class PairedTwice(BreakfastVsAliens):
    """Breakfast vs Aliens whose search compares one move with itself, paired."""

    def search_hints(self) -> SearchHints:
        def twice(state: BvaState, player: str) -> list[list[Action]]:
            first = BVA.legal_actions(state, player)[0]
            return [[first], [first]]

        return SearchHints(plans=twice, others=bva_thinking.quick, paired=True)


def test_a_paired_search_plays_every_plan_in_the_same_worlds() -> None:
    state = offer()
    player = state.pending.player  # type: ignore[union-attr]
    seen = as_seen_by(BVA, state, player, 5)
    _, normal = normal_strategy(BVA, player)
    result = search(
        PairedTwice(),
        seen,
        player,
        policy=normal,
        determinize=determinizer(BVA, seen.players, BVA.parse_options({})),
        seed=4,
        simulations=30,
    )
    assert result.visits == {0: 15, 1: 15}
    # The same move in the same worlds with the same luck: the very same results…
    assert result.values[0] == result.values[1]
    # …while one round's world differs from another's.
    rounds = {
        search(
            PairedTwice(),
            seen,
            player,
            policy=normal,
            determinize=determinizer(BVA, seen.players, BVA.parse_options({})),
            seed=seed,
            simulations=2,
        ).values[0]
        for seed in range(8)
    }
    assert len(rounds) > 1


def test_breakfast_vs_aliens_hard_decides_alike_whatever_the_deck_holds() -> None:
    first = offer()
    player = first.pending.player  # type: ignore[union-attr]
    data = first.model_dump(mode="json", round_trip=True)
    data["deck"] = list(reversed(data["deck"]))
    data["rng"]["seed"] += 1
    second = BvaState.model_validate(data)
    assert first != second  # the real decks differ…
    seen = [as_seen_by(BVA, s, player, 5) for s in (first, second)]
    assert seen[0] == seen[1]  # …and the seat sees the same
    _, normal = normal_strategy(BVA, player)
    results = [
        search(
            BVA,
            view,
            player,
            policy=normal,
            determinize=determinizer(BVA, first.players, BVA.parse_options({})),
            seed=42,
            simulations=24,
        )
        for view in seen
    ]
    assert results[0].simulations == 24
    assert results[0].action == results[1].action
    assert results[0].visits == results[1].visits and results[0].values == results[1].values

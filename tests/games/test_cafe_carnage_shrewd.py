"""Café Carnage's normal player (the shrewd diner) and what the hard bot assumes of the others."""

from __future__ import annotations

from bot.core.seat_view import as_seen_by
from games.cafe_carnage import GAME
from games.cafe_carnage.catalogue import COURSES, action_cards, action_kind, dish, run_card
from games.cafe_carnage.last_order import money_score
from games.cafe_carnage.shrewd import meal_rank, shrewd
from games.cafe_carnage.state import (
    CafeOptions,
    CafeState,
    Confirm,
    Pick,
    Play,
    PlayerRound,
    RoundRecord,
)
from games.engine import apply
from games.kit import evolve
from games.rng import Rng


def table(players: int, seed: int = 4) -> CafeState:
    return GAME.setup([f"bot-{i + 1}" for i in range(players)], CafeOptions(), seed)


def order(state: CafeState, player: str) -> CafeState:
    """``player``'s whole order by the shrewd diner, confirmed."""
    for _ in range(20):
        move = shrewd(state, player, Rng(seed=1))
        state = apply(GAME, state, player, move)
        if isinstance(move, Confirm):
            return state
    raise AssertionError("the shrewd diner never confirmed")


def ballot_kind(state: CafeState, player: str) -> str | None:
    """The kind of card the shrewd diner plays in this state, its meal ordered first."""
    for _ in range(20):
        move = shrewd(state, player, Rng(seed=1))
        if isinstance(move, Play):
            return action_kind(move.card)
        assert isinstance(move, Pick)
        state = apply(GAME, state, player, move)
    raise AssertionError("no ballot")


def test_a_meals_rank_is_the_share_of_menus_whose_dearest_meal_is_cheaper() -> None:
    ranks = [meal_rank(total) for total in range(0, 16)]
    assert ranks == sorted(ranks) and ranks[0] == 0.0 and ranks[-1] == 1.0
    assert 0.3 < meal_rank(10) < 0.7  # a menu's dearest meal is about $10
    assert meal_rank(6) < 0.05 and meal_rank(13) > 0.95


def test_it_orders_the_dearest_meal_on_offer() -> None:
    state = table(3)
    after = order(state, "bot-1")
    for course in COURSES:
        dearest = max(dish(c).value for c in state.menus["bot-1"][course])
        assert dish(after.picks["bot-1"][course]).value == dearest


def test_it_runs_early_at_a_small_table_and_waits_at_a_crowded_one() -> None:
    assert ballot_kind(table(3), "bot-1") == "run"
    assert ballot_kind(table(4), "bot-1") == "run"
    # Seven others who may each run: too likely to have company (and be caught).
    crowded = table(8)
    assert ballot_kind(crowded, "bot-1") != "run"
    # Once every other runner has escaped, a run is safe.
    others = [p for p in crowded.players if p != "bot-1"]
    safe = evolve(
        crowded,
        round=3,
        run_discarded=others,
        hands={
            p: [c for c in action_cards(p)[:3]] if p != "bot-1" else action_cards(p)
            for p in crowded.players
        },
    )
    assert ballot_kind(safe, "bot-1") == "run"


def with_menu(state: CafeState, player: str, values: int) -> CafeState:
    """``state`` with ``player``'s menu made of dishes whose dearest meal is about ``values``."""
    menus = dict(state.menus)
    menu: dict[str, list[str]] = {}
    for course in COURSES:
        cards = sorted(
            (c for c in state.decks[course]), key=lambda c: dish(c).value, reverse=values > 9
        )
        menu[course] = cards[:3]
    menus[player] = menu  # type: ignore[assignment]
    return evolve(state, menus=menus)


def test_it_splits_on_its_dear_meals_and_pays_separately_for_plain_ones() -> None:
    state = table(3)
    # Round 2, RUN! spent on an escape: two Split and two Separate for four rounds.
    hands = {p: [c for c in action_cards(p) if c != run_card(p)] for p in state.players}
    later = evolve(state, round=2, hands=hands, run_discarded=list(state.players))
    dear = with_menu(later, "bot-1", 12)
    plain = with_menu(later, "bot-1", 5)
    assert meal_rank(sum(max(dish(c).value for c in dear.menus["bot-1"][k]) for k in COURSES)) > 0.9
    assert ballot_kind(dear, "bot-1") == "split"
    assert ballot_kind(plain, "bot-1") == "separate"


def test_in_the_last_round_a_lone_forced_runner_goes_unpaid_under_separate() -> None:
    state = table(3)
    # Round 5: bot-2 kept RUN! as its one card (it must run); bot-3 escaped earlier.
    last = evolve(
        state,
        round=5,
        hands={
            "bot-1": [c for c in action_cards("bot-1") if action_kind(c) != "split"],
            "bot-2": [run_card("bot-2")],
            "bot-3": [action_cards("bot-3")[0]],
        },
        run_discarded=["bot-3"],
    )
    assert ballot_kind(last, "bot-1") == "separate"
    # Nobody else can run: RUN! is a free meal.
    alone = evolve(last, hands={**last.hands, "bot-2": [action_cards("bot-2")[0]]})
    alone = evolve(alone, run_discarded=["bot-2", "bot-3"])
    assert ballot_kind(alone, "bot-1") == "run"


def test_the_hard_bot_assumes_the_others_ordered_as_the_normal_player_would() -> None:
    state = table(3)
    state = order(order(state, "bot-2"), "bot-3")  # they confirmed; bot-1 sees only that
    seen = as_seen_by(GAME, state, "bot-1", 5)
    assert isinstance(seen, CafeState)
    kinds = set()
    for seed in range(8):
        world = GAME.determinize(seen, "bot-1", Rng(seed=seed))
        assert isinstance(world, CafeState)
        GAME.check_invariants(world)
        for p in ("bot-2", "bot-3"):
            for course in COURSES:
                dearest = max(dish(c).value for c in world.menus[p][course])
                assert dish(world.picks[p][course]).value == dearest
            assert world.played[p] in world.hands[p]
            kinds.add(action_kind(world.played[p]))
    assert kinds == {"run"}  # round 1 at three seats: the normal player runs


def test_bills_past_the_budget_cost_whole_ious() -> None:
    assert money_score(0) == 30 and money_score(30) == 0  # the budget left counts
    assert money_score(31) == money_score(35) == -5  # one IOU: 5 GP, its change wasted
    assert money_score(36) == -10


def menu_of(state: CafeState, player: str, values: dict[str, list[int]]) -> CafeState:
    """``state`` with ``player``'s menu made of deck cards of the given values."""
    menu: dict[str, list[str]] = {}
    for course in COURSES:
        deck = list(state.decks[course])
        menu[course] = []
        for value in values[course]:
            card = next(c for c in deck if dish(c).value == value and c not in menu[course])
            menu[course].append(card)
    return evolve(state, menus={**state.menus, player: menu})


def paid_so_far(state: CafeState, owed: int) -> CafeState:
    """``state`` after four rounds in which bot-1 paid ``owed`` in all (the others nothing)."""
    record = RoundRecord(
        round=1,
        players={
            p: PlayerRound(
                dishes=[],
                gp_gained=0,
                role="stayed",
                owed=owed if p == "bot-1" else 0,
                iou_draws=0,
                budget_after=30,
                gp_after=0,
            )
            for p in state.players
        },
        split_votes=0,
        separate_votes=3,
        auto_played=[],
    )
    return evolve(state, history=[record])


def test_its_last_meal_lands_on_the_ious_step_rather_than_waste_change() -> None:
    state = table(3)
    last = evolve(
        state,
        round=5,
        hands={p: [action_cards(p)[2]] for p in state.players},  # one Separate each
        run_discarded=list(state.players),
    )
    last = menu_of(last, "bot-1", {"starter": [3, 2, 1], "main": [6, 5, 1], "dessert": [4, 3, 1]})
    # $33 paid: a $13 meal would take four IOUs (−20 GP) for $1 past $45; $12 lands on the step.
    after = order(paid_so_far(last, 33), "bot-1")
    assert sum(dish(after.picks["bot-1"][c]).value for c in COURSES) == 12
    # Within the budget, no change is wasted: the dearest meal.
    after = order(paid_so_far(last, 10), "bot-1")
    assert sum(dish(after.picks["bot-1"][c]).value for c in COURSES) == 13

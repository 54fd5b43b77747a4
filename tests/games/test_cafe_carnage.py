"""Café Carnage: the rulebook's examples and a scenario for every rule branch (stacked decks)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable

import pytest
from pydantic import ValidationError

from games.cafe_carnage import GAME, choices, deal, dinner
from games.cafe_carnage.catalogue import (
    COURSE_CARDS,
    COURSES,
    DISHES,
    MONEY_TOTAL,
    ActionKind,
    Course,
    action_kind,
    dish,
)
from games.cafe_carnage.state import AutoPlay, CafeOptions, CafeState, Confirm, Pick, Play
from games.engine import IllegalAction, apply, new_game, play_timeout
from games.presentation import Button, panel_problems, phone_problems

# -- helpers --------------------------------------------------------------------------------------

NAME_COURSE: dict[str, Course] = {d.name: d.course for d in DISHES.values()}
NAME_VALUE: dict[str, int] = {d.name: d.value for d in DISHES.values()}
Order = tuple[tuple[str, str, str], ActionKind]


def new_table(players: Iterable[str], seed: int = 7, **options: object) -> CafeState:
    return GAME.setup(list(players), CafeOptions.model_validate(options), seed)


def stack(state: CafeState, menus: dict[str, Iterable[str]]) -> None:
    """Rebuild this round's menus so each listed player's menu holds these dish names.

    The cards come from the deck or other menus (nobody has picked yet), else from the eaten pile;
    unlisted menu slots are filled from the top of the deck. Conservation holds throughout.
    """
    assert not any(state.picks[p] for p in state.players) and not state.played
    for course in COURSES:
        deck = state.decks[course] + [c for p in state.players for c in state.menus[p][course]]
        eaten = state.eaten[course]
        wanted: dict[str, list[str]] = {p: [] for p in state.players}
        for p, names in menus.items():
            for name in names:
                if NAME_COURSE[name] == course:
                    pile = deck if any(dish(c).name == name for c in deck) else eaten
                    card = next(c for c in pile if dish(c).name == name)
                    pile.remove(card)
                    wanted[p].append(card)
        for p in state.players:
            while len(wanted[p]) < 3:
                wanted[p].append(deck.pop(0))
            state.menus[p][course] = wanted[p]
        state.decks[course] = deck
    GAME.check_invariants(state)


def card_of(state: CafeState, p: str, kind: ActionKind) -> str:
    return next(c for c in state.hands[p] if action_kind(c) == kind)


def menu_card(state: CafeState, p: str, name: str) -> str:
    return next(c for c in state.menus[p][NAME_COURSE[name]] if dish(c).name == name)


def order(state: CafeState, p: str, names: Iterable[str], kind: ActionKind) -> CafeState:
    for name in names:
        state = apply(GAME, state, p, Pick(card=menu_card(state, p, name)))
    state = apply(GAME, state, p, Play(card=card_of(state, p, kind)))
    return apply(GAME, state, p, Confirm())


def play_round(state: CafeState, orders: dict[str, Order]) -> CafeState:
    """Stack the menus, then every player orders and confirms (seat order)."""
    stack(state, {p: names for p, (names, _) in orders.items()})
    for p in state.players:
        names, kind = orders[p]
        state = order(state, p, names, kind)
        GAME.check_invariants(state)
    return state


def set_budget(state: CafeState, p: str, amount: int) -> None:
    state.supply += state.budget[p] - amount
    state.budget[p] = amount


def autoplay_round(state: CafeState) -> CafeState:
    for p in state.players:
        state = apply(GAME, state, p, AutoPlay())
    return state


# Meals by value (starter, main, dessert), several per value so tables don't run out of copies.
MEALS: dict[int, list[tuple[str, str, str]]] = {
    3: [
        ("Tomato Soup", "Masala Omelette", "Coffee Espresso"),
        ("Watermelon Salad", "Masala Omelette", "Fruit Salad"),
    ],
    4: [
        ("Steamed Pears", "Vegetable Tacos", "Coffee Espresso"),
        ("Tomato Soup", "Chicken Noodles", "Fruit Salad"),
    ],
    5: [
        ("Watermelon Salad", "Chicken Noodles", "Banana Split"),
        ("Vegetable Samosas", "Vegetable Tacos", "Fruit Salad"),
    ],
    6: [
        ("Tomato Soup", "Butternut Squash Pie", "Mochi Ice Cream"),
        ("Spring Rolls", "Chicken Noodles", "Banana Split"),
    ],
    7: [
        ("Vegetable Samosas", "Butternut Squash Pie", "Sweet Plum Roulade"),
        ("Rice Dumplings", "Pizza Diavola", "Ice Cream Sundae"),
    ],
    8: [
        ("Smoked Ham", "Spaghetti Bolognese", "Ice Cream Sundae"),
        ("Stuffed Figs", "Sushi Rolls", "Mochi Ice Cream"),
    ],
    9: [
        ("Toasted Prawns", "Sushi Rolls", "Sweet Plum Roulade"),
        ("Seafood Tempura", "Jamaican Fish Stew", "Banana Split"),
    ],
    10: [
        ("Smoked Ham", "Buffalo Steak", "Banana Split"),
        ("Seafood Tempura", "Lobster Thermidor", "Mochi Ice Cream"),
    ],
    11: [("Toasted Prawns", "Buffalo Steak", "Rhubarb & Apple Pie")],
    12: [("Seafood Tempura", "Lobster Thermidor", "Raspberry Cheesecake")],
    13: [("Smoked Ham", "Soton Game Jam Burger", "Raspberry Cheesecake")],
}


def meal(value: int, variant: int = 0) -> tuple[str, str, str]:
    options = MEALS[value]
    names = options[variant % len(options)]
    assert sum(NAME_VALUE[n] for n in names) == value
    return names


def table_with(values: dict[str, tuple[int, ActionKind]], seed: int = 3) -> CafeState:
    """One round on a fresh table: each player's meal value and card; returns after the reveal."""
    state = new_table(values, seed=seed)
    counts: dict[int, int] = {}
    orders: dict[str, Order] = {}
    for p, (value, kind) in values.items():
        orders[p] = (meal(value, counts.get(value, 0)), kind)
        counts[value] = counts.get(value, 0) + 1
    return play_round(state, orders)


def last(state: CafeState) -> dict[str, tuple[str, int, int, int]]:
    """Per player: (role, owed, budget after, GP after) in the last round."""
    return {
        p: (r.role, r.owed, r.budget_after, r.gp_after)
        for p, r in state.history[-1].players.items()
    }


def announcement_text(state: CafeState, index: int = -1) -> str:
    a = state.announcements[index]
    return "\n".join([a.title, a.description, *(f"{f.name}\n{f.value}" for f in a.fields)])


# -- the rulebook's examples ----------------------------------------------------------------------

ALICE_MEAL = ("Vegetable Samosas", "Butternut Squash Pie", "Sweet Plum Roulade")


def test_rulebook_alice_seven_point_meal() -> None:
    state = new_table(["alice", "francois", "meera", "kwame"])
    state = play_round(
        state,
        {
            "alice": (ALICE_MEAL, "separate"),
            "francois": (meal(5), "separate"),
            "meera": (meal(6), "separate"),
            "kwame": (meal(4), "separate"),
        },
    )
    record = state.history[0].players["alice"]
    assert record.dishes == list(ALICE_MEAL)
    assert record.gp_gained == 7 and state.gp["alice"] == 7
    assert state.history[0].verdict == "separate" and state.budget["alice"] == 23
    text = announcement_text(state)
    assert "Vegetable Samosas ($2)" in text and "$7 meal → **+7 GP**" in text


def rulebook_round() -> tuple[CafeState, CafeState]:
    """Alice ($7) and Kwame ($6) run; Francois ($5) and Meera ($8, with only $7) tie the vote."""
    state = new_table(["alice", "francois", "meera", "kwame"])
    set_budget(state, "meera", 7)
    before = state.model_copy(deep=True)
    after = play_round(
        state,
        {
            "alice": (ALICE_MEAL, "run"),
            "francois": (("Watermelon Salad", "Chicken Noodles", "Banana Split"), "split"),
            "meera": (("Smoked Ham", "Spaghetti Bolognese", "Ice Cream Sundae"), "separate"),
            "kwame": (("Tomato Soup", "Butternut Squash Pie", "Mochi Ice Cream"), "run"),
        },
    )
    return before, after


def test_rulebook_alice_caught_pays_for_kwame_who_escapes() -> None:
    _, state = rulebook_round()
    record = state.history[0]
    assert record.players["alice"].meal == 7 and record.players["kwame"].meal == 6
    assert record.players["alice"].role == "caught" and record.players["kwame"].role == "escaped"
    assert record.players["alice"].owed == 13 and state.budget["alice"] == 30 - 13
    assert record.players["kwame"].owed == 0 and state.budget["kwame"] == 30
    # Kwame discards RUN! for the rest of the game; Alice takes hers back.
    assert state.run_discarded == ["kwame"]
    assert "kwame:run" not in state.hands["kwame"] and "alice:run" in state.hands["alice"]
    assert Play(card="kwame:run") not in GAME.legal_actions(state, "kwame")
    assert Play(card="alice:run") in GAME.legal_actions(state, "alice")
    text = announcement_text(state)
    assert "**Caught**: {p:alice}" in text and "**Escaped**: {p:kwame}" in text
    assert "{p:alice} (the priciest meal) pays **$13** — all runners' meals, $13" in text


def test_rulebook_tied_vote_each_pays_own_and_meera_takes_an_iou() -> None:
    _, state = rulebook_round()
    record = state.history[0]
    assert (record.split_votes, record.separate_votes, record.verdict) == (1, 1, "tie")
    assert record.players["francois"].owed == 5 and state.budget["francois"] == 25
    meera = record.players["meera"]
    assert meera.owed == 8 and meera.iou_draws == 1
    assert state.budget["meera"] == 7 + 5 - 8 == 4
    assert state.gp["meera"] == 8 - 5 and state.iou_draws["meera"] == 1
    assert sum(state.budget.values()) + state.supply == MONEY_TOTAL
    text = announcement_text(state)
    assert "Split ×1 · 🧾 Separate ×1" in text and "Tie: each pays separately" in text
    assert "{p:meera} had $7 for a $8 bill: took $5 from the supply (−5 GP)" in text


# -- step 4: check, please! -----------------------------------------------------------------------


def test_no_runners_majority_separate_each_pays_own() -> None:
    state = table_with({"a": (5, "separate"), "b": (9, "separate"), "c": (7, "split")})
    record = state.history[0]
    assert (record.verdict, record.split_votes, record.separate_votes) == ("separate", 1, 2)
    assert last(state) == {
        "a": ("stayed", 5, 25, 5),
        "b": ("stayed", 9, 21, 9),
        "c": ("stayed", 7, 23, 7),
    }
    assert "Nobody ran." in announcement_text(state)


def test_lone_runner_escapes_and_separate_leaves_the_meal_unpaid() -> None:
    state = table_with({"a": (9, "run"), "b": (5, "separate"), "c": (6, "separate")})
    assert last(state)["a"] == ("escaped", 0, 30, 9)
    assert last(state)["b"] == ("stayed", 5, 25, 5)
    assert state.history[0].unpaid == 9
    assert state.run_discarded == ["a"] and "a:run" not in state.hands["a"]
    assert "The restaurant takes the $9 loss" in announcement_text(state)


def test_lone_runner_escapes_and_majority_split_includes_the_runners_meal() -> None:
    state = table_with(
        {"a": (9, "run"), "b": (5, "split"), "c": (6, "split"), "d": (3, "separate")}
    )
    record = state.history[0]
    # (5 + 6 + 3) + 9 escaped = 23, ÷ 3 remaining = 7.67 → $8 each.
    assert record.verdict == "split" and record.split_share == 8 and record.unpaid == 0
    assert [last(state)[p][1] for p in "abcd"] == [0, 8, 8, 8]
    assert "$14 + $9 for the escaped runners ÷ 3 = **$8 each**" in announcement_text(state)


def test_runners_with_equal_meals_all_escape() -> None:
    state = table_with({"a": (7, "run"), "b": (7, "run"), "c": (5, "split"), "d": (4, "split")})
    record = state.history[0]
    assert record.players["a"].role == record.players["b"].role == "escaped"
    assert record.caught_share == 0 and state.run_discarded == ["a", "b"]
    # Nobody caught: the split covers the escaped meals too, (9 + 14) ÷ 2 = 11.5 → 12.
    assert record.split_share == 12 and state.budget["c"] == state.budget["d"] == 18
    assert "they **all escaped**" in announcement_text(state)


def test_three_runners_tied_at_the_boundary_are_both_caught() -> None:
    state = table_with({"a": (9, "run"), "b": (9, "run"), "c": (5, "run"), "d": (4, "separate")})
    record = state.history[0]
    assert [record.players[p].role for p in "abc"] == ["caught", "caught", "escaped"]
    assert record.runners_total == 23 and record.caught_share == 12  # 23 ÷ 2 rounded up
    assert state.budget["a"] == state.budget["b"] == 18 and state.budget["c"] == 30
    assert state.run_discarded == ["c"] and "a:run" in state.hands["a"]
    assert "$23 ÷ 2 = **$12 each**" in announcement_text(state)
    assert "**Escaped**: {p:c} — pays nothing and discards RUN!" in announcement_text(state)


def test_four_runners_one_caught() -> None:
    state = table_with(
        {"a": (6, "run"), "b": (10, "run"), "c": (5, "run"), "d": (8, "run"), "e": (4, "split")}
    )
    record = state.history[0]
    assert [record.players[p].role for p in "abcd"] == ["escaped", "caught", "escaped", "escaped"]
    assert record.caught_share == 29 and state.budget["b"] == 1
    assert record.players["e"].owed == 4 and record.verdict == "split" and record.split_share == 4
    assert state.run_discarded == ["a", "c", "d"]


def test_five_runners_two_caught() -> None:
    state = table_with(
        {
            "a": (3, "run"),
            "b": (9, "run"),
            "c": (5, "run"),
            "d": (8, "run"),
            "e": (6, "run"),
            "f": (4, "separate"),
        }
    )
    record = state.history[0]
    assert [record.players[p].role for p in "abcde"] == [
        "escaped",
        "caught",
        "escaped",
        "caught",
        "escaped",
    ]
    assert record.runners_total == 31 and record.caught_share == 16  # 31 ÷ 2 rounded up
    assert state.budget["b"] == state.budget["d"] == 14
    assert record.players["f"].owed == 4 and record.unpaid == 0


def test_five_runners_tie_for_second_place_catches_all_three() -> None:
    state = table_with(
        {
            "a": (9, "run"),
            "b": (8, "run"),
            "c": (8, "run"),
            "d": (5, "run"),
            "e": (4, "run"),
            "f": (3, "split"),
        }
    )
    record = state.history[0]
    assert [record.players[p].role for p in "abcde"] == [
        "caught",
        "caught",
        "caught",
        "escaped",
        "escaped",
    ]
    assert record.caught_share == 12  # 34 ÷ 3 rounded up
    assert record.split_share == 3  # the remaining player's own meal only


def test_the_security_rule_is_told_once_and_counts_runners_not_players() -> None:
    """Not a ~260-character paragraph on the table every round, and never "2 guards" because
    5+ play: how many are caught depends on how many RUN."""
    for players in ("abcd", "abcdef"):
        state = new_table(players)
        start = announcement_text(state, 0)
        assert "the priciest meal is caught: 1 runner if 2–4 run, 2 if 5+ run" in start
        table = GAME.panel(state, None).model_dump_json()
        assert "priciest" not in table and "guard" not in table.lower()
        state = autoplay_round(state)
        assert "priciest" not in GAME.panel(state, None).model_dump_json()
        assert "guard" not in announcement_text(state).lower()
    assert "1 runner is caught if 2–4 ran, 2 if 5 or more ran" in GAME.help_text


def test_caught_runners_rule_in_isolation() -> None:
    assert dinner.caught_runners({}) == []
    assert dinner.caught_runners({"a": 9}) == []
    assert dinner.caught_runners({"a": 6, "b": 6, "c": 6}) == []
    assert dinner.caught_runners({"a": 5, "b": 9, "c": 9}) == ["b", "c"]
    assert dinner.caught_runners({"a": 5, "b": 9, "c": 8, "d": 7}) == ["b"]
    assert dinner.caught_runners({"a": 9, "b": 5, "c": 5, "d": 5, "e": 5}) == list("abcde")
    assert dinner.caught_runners({"a": 9, "b": 9, "c": 9, "d": 8, "e": 3}) == ["a", "b", "c"]


def test_everyone_runs_and_the_priciest_pays_for_all() -> None:
    state = table_with({"a": (9, "run"), "b": (5, "run"), "c": (4, "run")})
    record = state.history[0]
    assert record.verdict == "nobody" and (record.split_votes, record.separate_votes) == (0, 0)
    assert last(state)["a"] == ("caught", 18, 12, 9)
    assert state.run_discarded == ["b", "c"]
    assert "nobody is left at the table" in announcement_text(state)


def test_everyone_runs_with_equal_meals_and_nothing_is_paid() -> None:
    state = table_with({"a": (6, "run"), "b": (6, "run"), "c": (6, "run")})
    record = state.history[0]
    assert record.verdict == "nobody" and record.unpaid == 18
    assert state.budget == {"a": 30, "b": 30, "c": 30} and state.gp == {"a": 6, "b": 6, "c": 6}
    assert state.run_discarded == ["a", "b", "c"]


def test_caught_runner_can_run_again_but_escaped_cannot() -> None:
    state = table_with({"a": (9, "run"), "b": (4, "run"), "c": (5, "separate")})
    assert "a:run" in state.hands["a"] and state.run_discarded == ["b"]
    with pytest.raises(IllegalAction, match="RUN! card is gone"):
        apply(GAME, state, "b", Play(card="b:run"))
    state = play_round(
        state, {"a": (meal(3), "run"), "b": (meal(4), "split"), "c": (meal(5), "split")}
    )
    assert state.history[1].players["a"].role == "escaped"
    assert state.run_discarded == ["b", "a"]


# -- step 5: settle up ----------------------------------------------------------------------------


def test_majority_split_after_a_catch_shares_only_the_remaining_meals() -> None:
    state = table_with(
        {
            "a": (9, "run"),
            "b": (4, "run"),
            "c": (5, "split"),
            "d": (6, "split"),
            "e": (3, "separate"),
        }
    )
    record = state.history[0]
    assert record.players["a"].owed == 13 and record.players["b"].owed == 0
    assert record.verdict == "split" and record.split_share == 5  # 14 ÷ 3 rounded up
    assert [state.budget[p] for p in "cde"] == [25, 25, 25]
    assert record.unpaid == 0


def test_split_share_is_rounded_up_into_the_tip_jar() -> None:
    state = table_with({"a": (3, "split"), "b": (4, "split"), "c": (4, "separate")})
    assert state.history[0].split_share == 4  # 11 ÷ 3 = 3.67 → 4
    assert state.supply == MONEY_TOTAL - 3 * 30 + 12


def test_tie_with_four_remaining_players() -> None:
    state = table_with(
        {"a": (3, "split"), "b": (9, "split"), "c": (6, "separate"), "d": (7, "separate")}
    )
    assert state.history[0].verdict == "tie"
    assert [state.budget[p] for p in "abcd"] == [27, 21, 24, 23]


# -- step 6: IOUs ---------------------------------------------------------------------------------


def test_iou_repeats_until_the_player_can_pay() -> None:
    state = new_table("abc")
    set_budget(state, "a", 2)
    state = play_round(
        state,
        {"a": (meal(13), "separate"), "b": (meal(4), "separate"), "c": (meal(4), "split")},
    )
    record = state.history[0].players["a"]
    assert record.iou_draws == 3  # $2 → $17 covers $13
    assert state.budget["a"] == 4 and state.gp["a"] == 13 - 15
    assert state.iou_draws["a"] == 3
    assert "took 3 × $5 from the supply (−15 GP)" in announcement_text(state)
    assert sum(state.budget.values()) + state.supply == MONEY_TOTAL
    assert "📝 IOU" in GAME.panel(state, None).fields[0].value


def test_exact_budget_needs_no_iou() -> None:
    state = new_table("abc")
    set_budget(state, "a", 9)
    state = play_round(
        state, {"a": (meal(9), "separate"), "b": (meal(4), "separate"), "c": (meal(4), "split")}
    )
    assert state.budget["a"] == 0 and state.iou_draws["a"] == 0


# -- end of game ----------------------------------------------------------------------------------


def to_last_round(players: str, seed: int = 5) -> CafeState:
    """Four rounds of $3 meals: split, split, everyone runs (equal meals: all escape), separate."""
    state = new_table(players, seed=seed)
    kind: ActionKind
    for kind in ("split", "split", "run", "separate"):
        state = play_round(state, {p: (meal(3, i), kind) for i, p in enumerate(players)})
    assert state.round == 5 and not state.over
    assert all(state.hands[p] == [f"{p}:sep2"] for p in players)  # one card left each
    return state


def test_end_bonus_only_without_an_iou() -> None:
    state = to_last_round("abc")
    for p, gp, budget in (("a", 20, 9), ("b", 25, 20), ("c", 30, 12)):
        state.gp[p] = gp
        set_budget(state, p, budget)
    state.iou_draws["c"] = 1  # c took an IOU earlier
    state = play_round(
        state, {"a": (meal(3), "separate"), "b": (meal(10), "separate"), "c": (meal(3), "separate")}
    )
    assert state.over and GAME.active_players(state) == set()
    result = {s.player: (s.gp_before_bonus, s.bonus, s.gp, s.budget) for s in state.standings}
    assert result == {"a": (23, 6, 29, 6), "b": (35, 10, 45, 10), "c": (33, 0, 33, 9)}
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == ["b"]
    assert outcome.scores == {"a": 29, "b": 45, "c": 33}
    assert [s.player for s in state.standings] == ["b", "c", "a"]
    final = announcement_text(state)
    assert "IOU: no bonus, $9 left" in final and "35 + 10 bonus for $10 left" in final
    assert GAME.clock(state) is None


def test_tie_on_gp_goes_to_the_larger_budget() -> None:
    state = to_last_round("abc")
    for p, gp, budget in (("a", 20, 10), ("b", 22, 8), ("c", 5, 5)):
        state.gp[p] = gp
        set_budget(state, p, budget)
        state.iou_draws[p] = 0
    state = play_round(
        state, {"a": (meal(4), "separate"), "b": (meal(4), "separate"), "c": (meal(3), "separate")}
    )
    # a: 24 GP + $6 = 30; b: 26 GP + $4 = 30 → a wins on budget.
    assert state.gp["a"] == state.gp["b"] == 30
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == ["a"]
    assert [(s.player, s.rank) for s in state.standings][:2] == [("a", 1), ("b", 2)]
    assert "Tie-break" in announcement_text(state)


def test_tie_on_gp_and_budget_is_a_shared_win() -> None:
    state = to_last_round("abc")
    for p, gp, budget in (("a", 20, 10), ("b", 20, 10), ("c", 5, 5)):
        state.gp[p] = gp
        set_budget(state, p, budget)
        state.iou_draws[p] = 0
    state = play_round(
        state,
        {"a": (meal(4), "separate"), "b": (meal(4, 1), "separate"), "c": (meal(3), "separate")},
    )
    outcome = GAME.outcome(state)
    assert outcome is not None and sorted(outcome.winners) == ["a", "b"]
    assert [s.rank for s in state.standings] == [1, 1, 3]
    assert "Shared win" in announcement_text(state)
    assert "they share the place" in announcement_text(state)


def test_gp_history_per_round() -> None:
    state = to_last_round("abcd")
    state = autoplay_round(state)
    view = GAME.view(state, None)
    history = view.model_dump()["gp_history"]
    assert all(len(history[p]) == 5 for p in "abcd")
    assert [r.players["a"].gp_after for r in state.history] == history["a"]


# -- the no_repeats variant -----------------------------------------------------------------------


def test_no_repeats_forced_repeat_gives_zero_gp_but_still_costs() -> None:
    state = new_table("abc", no_repeats=True)
    state = play_round(
        state,
        {"a": (meal(7), "split"), "b": (meal(4), "separate"), "c": (meal(3), "separate")},
    )
    state = play_round(
        state,
        {"a": (meal(3), "split"), "b": (meal(4, 1), "separate"), "c": (meal(5), "separate")},
    )
    assert state.gp["a"] == 7 + 3
    # Every starter on a's menu was eaten before: a must pick one of them.
    stack(
        state,
        {"a": ["Vegetable Samosas", "Tomato Soup", "Tomato Soup", "Pizza Diavola", "Banana Split"]},
    )
    # The DM menu marks the dishes already eaten, and offers them in this forced case.
    panel = GAME.panel(state, "a")
    starters = [c for c in panel.controls if c.row == 0]
    assert all(isinstance(c, Button) for c in starters)
    labels = {c.label: c for c in starters if isinstance(c, Button)}
    assert set(labels) == {"Vegetable Samosas ($2) · 0 GP", "Tomato Soup ×2 ($1) · 0 GP"}
    view = GAME.view(state, "a").model_dump()
    assert all(i["already_eaten"] and i["offered"] for i in view["menu"]["starter"])
    assert "🥗 All eaten before: pick one, 0 GP." in panel.fields[2].value
    soups = [c for c in state.menus["a"]["starter"] if dish(c).name == "Tomato Soup"]
    assert all(GAME.is_legal(state, "a", Pick(card=c)) for c in soups)
    # The deadline's default is the cheapest of them, as usual.
    assert dish(choices.default_dish(state, "a", "starter")).name == "Tomato Soup"
    state = order(state, "a", ["Vegetable Samosas", "Pizza Diavola", "Banana Split"], "separate")
    for p in "bc":
        state = apply(GAME, state, p, AutoPlay())
    record = state.history[2].players["a"]
    assert record.meal == 7 and record.gp_gained == 5  # Samosas: $2, 0 GP
    assert state.gp["a"] == 10 + 5 and state.budget["a"] == 30 - 7 - 3 - 7
    assert "Vegetable Samosas ($2) — eaten, 0 GP" in announcement_text(state)


def test_no_repeats_leaves_out_eaten_dishes_while_a_fresh_one_is_on_the_menu() -> None:
    state = new_table("abc", no_repeats=True)
    state = play_round(
        state,
        {"a": (meal(3), "separate"), "b": (meal(4), "separate"), "c": (meal(3, 1), "separate")},
    )
    # a ate Tomato Soup, Masala Omelette and Coffee Espresso: each the cheapest of its course.
    stack(
        state,
        {
            "a": [
                "Tomato Soup",
                "Tomato Soup",
                "Vegetable Samosas",
                "Masala Omelette",
                "Chicken Noodles",
                "Coffee Espresso",
                "Fruit Salad",
            ]
        },
    )
    soup = menu_card(state, "a", "Tomato Soup")
    assert Pick(card=soup) not in GAME.legal_actions(state, "a")
    assert not GAME.is_legal(state, "a", Pick(card=soup))
    with pytest.raises(IllegalAction, match="You ate Tomato Soup in an earlier round"):
        apply(GAME, state, "a", Pick(card=soup))
    # The DM marks the eaten dishes but offers only the fresh ones.
    panel = GAME.panel(state, "a")
    starters = [c for c in panel.controls if c.row == 0]
    assert all(isinstance(c, Button) for c in starters)
    assert [c.label for c in starters if isinstance(c, Button)] == ["Vegetable Samosas ($2)"]
    repeats = next(f for f in panel.fields if f.name == "🚫 No repeats")
    assert "🥗 Not offered: ~~Tomato Soup~~" in repeats.value
    assert "🍝 Not offered: ~~Masala Omelette~~" in repeats.value
    view = GAME.view(state, "a").model_dump()
    marks = {(i["name"], i["already_eaten"], i["offered"]) for i in view["menu"]["starter"]}
    assert marks == {("Tomato Soup", True, False), ("Vegetable Samosas", False, True)}
    # The deadline passes over the cheaper eaten dishes too.
    state, _ = play_timeout(GAME, state, "a")
    picked = [dish(state.picks["a"][c]).name for c in COURSES]
    assert picked[0] == "Vegetable Samosas" and picked[2] == "Fruit Salad"
    assert picked[1] != "Masala Omelette" and dish(state.picks["a"]["main"]).value == 2


def test_repeats_score_normally_without_the_variant() -> None:
    state = new_table("abc")
    orders: dict[str, Order] = {
        "a": (meal(7), "separate"),
        "b": (meal(4), "separate"),
        "c": (meal(3), "separate"),
    }
    state = play_round(state, orders)
    state = play_round(state, orders)
    assert state.history[1].players["a"].gp_gained == 7 and state.gp["a"] == 14
    panel = GAME.panel(state, "a")
    dishes = [c for c in panel.controls if isinstance(c, Button) and c.action["type"] == "pick"]
    assert len(dishes) >= 3 and all("0 GP" not in c.label for c in dishes)


def test_timeout_prefers_a_dish_that_still_scores_among_equally_cheap() -> None:
    state = new_table("abc", no_repeats=True)
    state = play_round(
        state,
        {"a": (meal(3), "separate"), "b": (meal(4), "separate"), "c": (meal(3, 1), "separate")},
    )
    stack(state, {"a": ["Tomato Soup", "Steamed Pears", "Smoked Ham"]})
    assert dish(choices.default_dish(state, "a", "starter")).name == "Steamed Pears"


# -- deck refills ---------------------------------------------------------------------------------


def test_eight_players_refill_the_decks_from_the_eaten_piles_in_round_three() -> None:
    state = new_table([f"p{i}" for i in range(8)])
    assert {c: len(state.decks[c]) for c in COURSES} == dict.fromkeys(COURSES, 35 - 24)
    state = autoplay_round(state)
    assert all(len(state.eaten[c]) == 8 and len(state.decks[c]) == 27 - 24 for c in COURSES)
    eaten_round_1 = set(state.eaten["starter"])
    state = autoplay_round(state)
    # 35 - 16 eaten = 19 left < 24 needed: the 16 eaten starters were shuffled back in first.
    assert all(not state.eaten[c] and len(state.decks[c]) == 35 - 24 for c in COURSES)
    on_table = set(state.decks["starter"]) | {
        card for p in state.players for card in state.menus[p]["starter"]
    }
    assert eaten_round_1 <= on_table and on_table == set(COURSE_CARDS["starter"])
    GAME.check_invariants(state)
    state = autoplay_round(state)
    assert all(len(state.eaten[c]) == 8 for c in COURSES)


def test_four_players_never_need_a_refill() -> None:
    state = new_table("abcd")
    for _ in range(4):
        state = autoplay_round(state)
    assert all(len(state.eaten[c]) == 16 and len(state.decks[c]) == 35 - 16 - 12 for c in COURSES)


def test_only_the_short_course_is_refilled() -> None:
    state = new_table("abc")
    state = autoplay_round(state)
    for p in state.players:  # the menus back to the decks, to deal again
        for c in COURSES:
            state.decks[c].extend(state.menus[p][c])
    # Pretend many starters were eaten: all but 5 starters go to the eaten pile.
    state.eaten["starter"].extend(state.decks["starter"][5:])
    del state.decks["starter"][5:]
    deal.deal_round(state)
    GAME.check_invariants(state)
    assert not state.eaten["starter"] and len(state.decks["starter"]) == 35 - 9
    assert len(state.eaten["main"]) == 3 and len(state.decks["main"]) == 35 - 3 - 9


# -- the deadline ---------------------------------------------------------------------------------


def test_timeout_orders_the_cheapest_dishes_and_each_pay_separately() -> None:
    state = new_table("abc")
    stack(
        state,
        {
            "a": [
                "Smoked Ham",
                "Tomato Soup",
                "Spring Rolls",
                "Sushi Rolls",
                "Chicken Noodles",
                "Buffalo Steak",
                "Raspberry Cheesecake",
                "Mochi Ice Cream",
                "Rhubarb & Apple Pie",
            ]
        },
    )
    assert GAME.on_timeout(state, "a") == AutoPlay()
    state, played = play_timeout(GAME, state, "a")
    assert played == [AutoPlay()]
    assert [dish(state.picks["a"][c]).name for c in COURSES] == [
        "Tomato Soup",
        "Chicken Noodles",
        "Mochi Ice Cream",
    ]
    assert action_kind(state.played["a"]) == "separate" and "a" in state.confirmed
    assert "a" not in GAME.active_players(state)
    for p in "bc":
        state, _ = play_timeout(GAME, state, p)
    text = announcement_text(state)
    assert "⏰ Auto-played at the deadline" in text and "{p:a}, {p:b}, {p:c}" in text
    assert state.history[0].auto_played == ["a", "b", "c"]


def test_timeout_keeps_what_the_player_already_chose() -> None:
    state = new_table("abc")
    stack(state, {"a": ["Smoked Ham", "Tomato Soup", "Buffalo Steak", "Masala Omelette"]})
    state = apply(GAME, state, "a", Pick(card=menu_card(state, "a", "Smoked Ham")))
    state = apply(GAME, state, "a", Play(card="a:run"))
    state = apply(GAME, state, "a", AutoPlay())
    assert dish(state.picks["a"]["starter"]).name == "Smoked Ham"
    assert dish(state.picks["a"]["main"]).name == "Masala Omelette"
    assert state.played["a"] == "a:run"


def test_timeout_plays_split_without_separate_cards_then_run() -> None:
    state = new_table("abc")
    for card in ("a:sep1", "a:sep2"):
        state.hands["a"].remove(card)
        state.ballot_discard["separate"] += 1
    assert action_kind(choices.default_card(state, "a")) == "split"
    for card in ("a:split1", "a:split2"):
        state.hands["a"].remove(card)
        state.ballot_discard["split"] += 1
    GAME.check_invariants(state)
    assert choices.default_card(state, "a") == "a:run"


def test_only_some_players_time_out() -> None:
    state = new_table("abc")
    state = order(state, "a", [dish(state.menus["a"][c][0]).name for c in COURSES], "split")
    state = apply(GAME, state, "b", AutoPlay())
    assert state.auto_played == ["b"] and state.round == 1
    state = apply(GAME, state, "c", AutoPlay())
    assert state.history[0].auto_played == ["b", "c"] and state.round == 2


def test_clock_key_changes_each_round_and_uses_the_option() -> None:
    state = new_table("abc", turn_timeout=300)
    clock = GAME.clock(state)
    assert clock is not None and (clock.key, clock.seconds, clock.remind) == ("r1", 300, True)
    state = autoplay_round(state)
    clock = GAME.clock(state)
    assert clock is not None and clock.key == "r2"
    assert "After 5 min" in GAME.panel(state, None).description


# -- the private step: picks, ballot, confirm -----------------------------------------------------


def test_choices_can_change_until_confirmed() -> None:
    state = new_table("abc")
    stack(state, {"a": ["Tomato Soup", "Smoked Ham"]})
    soup, ham = menu_card(state, "a", "Tomato Soup"), menu_card(state, "a", "Smoked Ham")
    state = apply(GAME, state, "a", Pick(card=soup))
    state = apply(GAME, state, "a", Pick(card=ham))
    assert state.picks["a"] == {"starter": ham}
    state = apply(GAME, state, "a", Play(card="a:split1"))
    state = apply(GAME, state, "a", Play(card="a:sep1"))
    assert state.played["a"] == "a:sep1"
    with pytest.raises(IllegalAction, match="Choose a main and a dessert before you confirm"):
        apply(GAME, state, "a", Confirm())
    for c in ("main", "dessert"):
        state = apply(GAME, state, "a", Pick(card=state.menus["a"][c][0]))
    state = apply(GAME, state, "a", Confirm())
    assert GAME.active_players(state) == {"b", "c"}
    with pytest.raises(IllegalAction, match="not your move"):
        apply(GAME, state, "a", Pick(card=soup))
    assert GAME.legal_actions(state, "a") == []


def test_refusals_are_explained() -> None:
    state = new_table("abc")
    other = state.menus["b"]["main"][0]
    with pytest.raises(IllegalAction, match="isn't on your menu this round"):
        apply(GAME, state, "a", Pick(card=other))
    with pytest.raises(IllegalAction, match="no such dish"):
        apply(GAME, state, "a", Pick(card="X99"))
    with pytest.raises(IllegalAction, match="isn't one of your action cards"):
        apply(GAME, state, "a", Play(card="b:split1"))
    with pytest.raises(
        IllegalAction,
        match="Choose a starter, a main, a dessert and an action card before you confirm",
    ):
        apply(GAME, state, "a", Confirm())
    with pytest.raises(IllegalAction, match="isn't a move this game knows"):
        GAME.parse_action({"type": "order", "card": "S01"})
    with pytest.raises(IllegalAction, match="not seated"):
        apply(GAME, state, "zed", AutoPlay())
    assert GAME.parse_action({"type": "pick", "card": "S01"}) == Pick(card="S01")


def test_a_spent_card_cannot_be_played() -> None:
    state = new_table("abc")
    orders: dict[str, Order] = {p: (meal(4, i), "split") for i, p in enumerate("abc")}
    state = play_round(state, orders)
    state = play_round(state, orders)
    assert not any(action_kind(c) == "split" for c in state.hands["a"])
    with pytest.raises(IllegalAction, match="don't hold that Split the Bill Evenly card"):
        apply(GAME, state, "a", Play(card="a:split1"))
    assert state.ballot_discard == {"split": 6, "separate": 0}


def test_public_table_shows_who_confirmed_never_what() -> None:
    state = new_table("abc")
    state = apply(GAME, state, "b", Pick(card=state.menus["b"]["starter"][0]))
    state = order(state, "a", [dish(state.menus["a"][c][1]).name for c in COURSES], "run")
    diners = GAME.panel(state, None).fields[0].value
    # Who is choosing is nobody's business: b has picked a dish, c nothing, both "not yet".
    assert "✅ {p:a}" in diners and "⏳ {p:b}" in diners and "⏳ {p:c}" in diners
    public = GAME.view(state, None).model_dump_json() + GAME.panel(state, None).model_dump_json()
    for secret in GAME.secrets(state, "a") | GAME.secrets(state, "b"):
        assert f'"{secret}"' not in public and secret not in public
    assert "RUN" not in GAME.panel(state, None).fields[0].value
    # Who is still choosing is in the diners field (front ends add a deadline line).
    assert "Waiting for" not in GAME.panel(state, None).description


def test_the_ballot_stays_anonymous() -> None:
    """Swapping who voted what changes nothing anyone else can see, not even after the game."""

    def world(a_vote: ActionKind, b_vote: ActionKind) -> CafeState:
        state = new_table("abc", seed=11)
        state = play_round(
            state, {"a": (meal(5), a_vote), "b": (meal(8), b_vote), "c": (meal(6), "separate")}
        )
        for _ in range(4):
            state = autoplay_round(state)
        return state

    one, two = world("split", "separate"), world("separate", "split")
    assert one.over and two.over
    assert GAME.view(one, None) == GAME.view(two, None)
    assert GAME.panel(one, None) == GAME.panel(two, None)
    assert one.announcements == two.announcements
    assert GAME.view(one, "c") == GAME.view(two, "c")
    assert "a:split" not in one.model_dump_json(exclude={"hands"})


def test_private_panel_layout() -> None:
    state = new_table("abc")
    stack(state, {"a": ["Tomato Soup", "Tomato Soup", "Smoked Ham"]})
    panel = GAME.panel(state, "a")
    assert panel.stamp == "round-1" and panel_problems(panel) == []
    # A row of buttons per course, one for the action card, Confirm last: one tap a choice.
    assert all(isinstance(c, Button) for c in panel.controls) and phone_problems(panel) == []
    rows = [[c for c in panel.controls if c.row == r] for r in range(5)]
    assert len(panel.controls) == sum(len(r) for r in rows)
    starter, cards, (confirm,) = rows[0], rows[3], rows[4]
    assert [c.action["type"] for r in rows[:3] for c in r] == ["pick"] * sum(map(len, rows[:3]))
    # Two copies of Tomato Soup: one button, marked ×2 (3 starters, not 2); either copy may
    # be picked.
    assert [(c.emoji, c.label) for c in starter] == [
        ("🥗", "Tomato Soup ×2 ($1)"),
        ("🥗", "Smoked Ham ($3)"),
    ]
    soups = [c for c in state.menus["a"]["starter"] if dish(c).name == "Tomato Soup"]
    assert len(soups) == 2 and all(GAME.is_legal(state, "a", Pick(card=c)) for c in soups)
    assert [(c.emoji, c.label) for c in cards] == [
        ("🤝", "Split ×2"),
        ("🧾", "Separate ×2"),
        ("🏃", "RUN! ×1"),
    ]
    assert {c.style for c in panel.controls if c is not confirm} == {"secondary"}, "none picked"
    assert confirm.disabled and "💰 Budget **$30**" in panel.description
    # Every control offers a legal action.
    legal = [a.model_dump(mode="json") for a in GAME.legal_actions(state, "a")]
    assert all(c.action in legal for r in rows[:4] for c in r)
    soup = menu_card(state, "a", "Tomato Soup")
    state = apply(GAME, state, "a", Pick(card=soup))
    state = apply(GAME, state, "a", Play(card="a:sep2"))
    for c in ("main", "dessert"):
        state = apply(GAME, state, "a", Pick(card=state.menus["a"][c][0]))
    panel = GAME.panel(state, "a")
    rows = [[c for c in panel.controls if c.row == r] for r in range(5)]
    starter, cards, (confirm,) = rows[0], rows[3], rows[4]
    # What is picked so far stands out (primary); the picked copy is the one its button picks.
    assert [c.style for c in starter] == ["primary", "secondary"]
    assert starter[0].action == {"type": "pick", "card": soup}
    assert [c.style for c in cards] == ["secondary", "primary", "secondary"]
    assert cards[1].action == {"type": "play", "card": "a:sep2"}
    assert [sum(c.style == "primary" for c in r) for r in rows[:4]] == [1, 1, 1, 1]
    assert not confirm.disabled and confirm.action == {"type": "confirm"}
    assert confirm.style == "success"
    state = apply(GAME, state, "a", Confirm())
    panel = GAME.panel(state, "a")
    assert panel.controls == [] and "**Confirmed**" in panel.description
    # Others confirming does not change a confirmed player's panel (no DM edit for them).
    b_state = apply(GAME, state, "b", AutoPlay())
    assert "b" in b_state.confirmed
    assert GAME.panel(b_state, "a") == panel
    state = autoplay_round_rest(state)
    assert GAME.panel(state, "a").stamp == "round-2"


def autoplay_round_rest(state: CafeState) -> CafeState:
    for p in sorted(GAME.active_players(state)):
        state = apply(GAME, state, p, AutoPlay())
    return state


# -- options and setup ----------------------------------------------------------------------------


def test_options() -> None:
    default = CafeOptions()
    assert (default.no_repeats, default.turn_timeout) == (False, 86400)
    schema = CafeOptions.model_json_schema()["properties"]["turn_timeout"]
    assert schema["choices"]["5 min"] == 300 and schema["choices"]["48 h"] == 172800
    assert (schema["minimum"], schema["maximum"]) == (60, 7 * 86400)
    for bad in ({"turn_timeout": 59}, {"turn_timeout": 7 * 86400 + 1}, {"colour": "red"}):
        with pytest.raises(IllegalAction, match="Invalid option"):
            GAME.parse_options(bad)
    with pytest.raises(ValidationError):
        CafeOptions(turn_timeout=30)


def test_setup() -> None:
    state = new_table("abcd")
    assert state.budget == dict.fromkeys("abcd", 30) and state.supply == MONEY_TOTAL - 120
    assert state.hands["a"] == ["a:split1", "a:split2", "a:sep1", "a:sep2", "a:run"]
    assert all(len(state.menus[p][c]) == 3 for p in "abcd" for c in COURSES)
    assert len(state.announcements) == 1 and state.announcements[0].ping == []
    for players in ("ab", "abcdefghi"):
        with pytest.raises(IllegalAction, match="3–8 players"):
            new_game(GAME, list(players), CafeOptions(), 7)


def test_dish_decks_match_the_rules_file() -> None:
    for course in COURSES:
        cards = COURSE_CARDS[course]
        assert len(cards) == 35 and cards[0] == f"{course[0].upper()}01"
    by_name: dict[str, list[int]] = {}
    for d in DISHES.values():
        by_name.setdefault(d.name, []).append(d.value)
    counts = {name: (values[0], len(values)) for name, values in by_name.items()}
    assert counts["Tomato Soup"] == (1, 4) and counts["Soton Game Jam Burger"] == (6, 2)
    assert counts["Raspberry Cheesecake"] == (4, 3) and counts["Seafood Tempura"] == (3, 3)
    assert counts["Buffalo Steak"] == (5, 2) and counts["Sweet Plum Roulade"] == (2, 4)
    assert len(counts) == 31
    assert sum(d.value for d in DISHES.values()) == sum(v * n for v, n in counts.values())
    assert list(itertools.islice((d.name for d in DISHES.values()), 5)) == ["Tomato Soup"] * 4 + [
        "Watermelon Salad"
    ]


# -- stored games ---------------------------------------------------------------------------------

# A 3-player no_repeats game in round 2 as the code before copy-on-write stored it: dishes as
# {course, name, value, gp}, derived figures (meal, verdict, ...) and ``eaten_by`` stored too.
OLD_STATE = (
    '{"players":["ann","bob","cy"],"rng":{"seed":4,"counter":6},"announcements":[{"title":"🍽️'
    ' Café Carnage — five nights out","description":"{p:ann}, {p:bob}, {p:cy}: everyone has $'
    "30 and 2 × Split, 2 × Separate, 1 × RUN!.\\nRound 1/5: your menus are in your DMs — order"
    ' a starter, a main and a dessert, play an action card, then confirm.","fields":[],"colou'
    'r":12597547,"ping":["ann","bob","cy"]}],"options":{"no_repeats":true,"turn_timeout":300}'
    ',"round":2,"over":false,"decks":{"starter":["S18","S04","S20","S11","S01","S32","S22","S'
    '21","S34","S16","S24","S29","S17","S26","S09","S30","S28","S19","S35","S08","S02","S07",'
    '"S23"],"main":["M01","M33","M05","M10","M35","M26","M15","M28","M18","M03","M29","M02","'
    'M17","M16","M24","M27","M31","M12","M08","M06","M20","M19","M25"],"dessert":["D04","D23"'
    ',"D35","D18","D03","D30","D16","D02","D06","D13","D31","D11","D22","D25","D08","D33","D1'
    '7","D21","D34","D20","D10","D28","D12"]},"eaten":{"starter":["S33","S25","S27"],"main":['
    '"M07","M13","M34"],"dessert":["D29","D15","D24"]},"menus":{"ann":{"starter":["S05","S10"'
    ',"S06"],"main":["M23","M14","M09"],"dessert":["D09","D14","D32"]},"bob":{"starter":["S13'
    '","S12","S14"],"main":["M21","M11","M32"],"dessert":["D26","D19","D05"]},"cy":{"starter"'
    ':["S15","S03","S31"],"main":["M22","M04","M30"],"dessert":["D07","D01","D27"]}},"picks":'
    '{"ann":{"starter":"S10","dessert":"D32","main":"M09"},"bob":{"main":"M11","dessert":"D26'
    '","starter":"S14"},"cy":{"starter":"S03","dessert":"D01","main":"M04"}},"hands":{"ann":['
    '"ann:split1","ann:split2","ann:sep2","ann:run"],"bob":["bob:split1","bob:split2","bob:se'
    'p2","bob:run"],"cy":["cy:split2","cy:sep1","cy:sep2","cy:run"]},"played":{"bob":"bob:run'
    '","cy":"cy:split2","ann":"ann:split2"},"confirmed":["ann"],"auto_played":[],"ballot_disc'
    'ard":{"split":1,"separate":2},"run_discarded":[],"budget":{"ann":22,"bob":23,"cy":18},"s'
    'upply":309,"gp":{"ann":8,"bob":7,"cy":12},"iou_draws":{"ann":0,"bob":0,"cy":0},"eaten_by'
    '":{"ann":["Seafood Tempura","Vegetable Tacos","Crème Chocolate"],"bob":["Stuffed Figs","'
    'Butternut Squash Pie","Sweet Plum Roulade"],"cy":["Smoked Ham","Soton Game Jam Burger","'
    'Rhubarb & Apple Pie"]},"history":[{"round":1,"players":{"ann":{"dishes":[{"course":"star'
    'ter","name":"Seafood Tempura","value":3,"gp":3},{"course":"main","name":"Vegetable Tacos'
    '","value":2,"gp":2},{"course":"dessert","name":"Crème Chocolate","value":3,"gp":3}],"mea'
    'l":8,"gp_gained":8,"role":"stayed","owed":8,"iou_draws":0,"budget_after":22,"gp_after":8'
    '},"bob":{"dishes":[{"course":"starter","name":"Stuffed Figs","value":2,"gp":2},{"course"'
    ':"main","name":"Butternut Squash Pie","value":3,"gp":3},{"course":"dessert","name":"Swee'
    't Plum Roulade","value":2,"gp":2}],"meal":7,"gp_gained":7,"role":"stayed","owed":7,"iou_'
    'draws":0,"budget_after":23,"gp_after":7},"cy":{"dishes":[{"course":"starter","name":"Smo'
    'ked Ham","value":3,"gp":3},{"course":"main","name":"Soton Game Jam Burger","value":6,"gp'
    '":6},{"course":"dessert","name":"Rhubarb & Apple Pie","value":3,"gp":3}],"meal":12,"gp_g'
    'ained":12,"role":"stayed","owed":12,"iou_draws":0,"budget_after":18,"gp_after":12}},"run'
    'ners_total":0,"caught_share":0,"split_votes":1,"separate_votes":2,"verdict":"separate","'
    'split_share":0,"unpaid":0,"auto_played":[]}],"standings":[]}'
)


def test_a_game_stored_by_the_old_code_loads_and_plays_on() -> None:
    state = GAME.load_state(OLD_STATE)
    old = json.loads(OLD_STATE)
    record = state.history[0]
    for p, stored in old["history"][0]["players"].items():
        assert record.players[p].dishes == [d["name"] for d in stored["dishes"]]
        assert record.players[p].meal == stored["meal"]
        assert record.players[p].gp_gained == stored["gp_gained"]
        assert choices.eaten_names(state, p) == set(old["eaten_by"][p])
    for name in ("runners_total", "caught_share", "verdict", "split_share", "unpaid"):
        assert getattr(record, name) == old["history"][0][name], name
    assert state.round == 2 and state.confirmed == ["ann"] and state.options.no_repeats
    GAME.check_invariants(state)
    assert GAME.load_state(state.model_dump_json()) == state
    for _ in range(4):
        state = autoplay_round_rest(state)
        GAME.check_invariants(state)
    assert state.over and len(state.history) == 5
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.progress[0] == {"ann": 8, "bob": 7, "cy": 12}


def test_help_is_paged_by_sections_and_tells_the_decisions() -> None:
    help_text = GAME.help_text
    assert len(help_text) <= 3500 and help_text.startswith("## ")
    headings = [line for line in help_text.splitlines() if line.startswith("## ")]
    assert headings == [
        "## Café Carnage",
        "## A round",
        "## Security",
        "## End of game",
        "## Options",
    ]
    flat = " ".join(help_text.split())
    assert "isn't offered while that course of your menu has one you haven't eaten" in flat
    assert "0 GP but still costs its price" in flat and "Each Pay Separately" in flat


def test_an_order_beyond_your_money_says_it_means_an_iou() -> None:
    """Issue 29: nothing said that ordering beyond your money means an IOU (−5 GP)."""
    state = new_table(["a", "b", "c"])
    set_budget(state, "a", 2)
    card = max(state.menus["a"]["main"], key=lambda c: dish(c).value)
    assert dish(card).value > 2
    assert "IOU" not in GAME.panel(state, "a").fields[0].value
    state = apply(GAME, state, "a", Pick(card=card))
    order_field = GAME.panel(state, "a").fields[0].value
    assert "More than your $2" in order_field and "IOU" in order_field
    assert "More than your" not in GAME.panel(state, "b").fields[0].value
    assert "IOU (−5 GP)" in GAME.panel(state, None).description + state.announcements[0].description

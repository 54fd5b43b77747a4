"""The bots' normal level: the "shrewd" diner.

Why it plays as it does. A dish's value is both the points it gives and the price it costs, so a
meal paid for separately changes nothing (points up, budget down by the same) and an IOU costs only
the money left at the end. What wins is eating more than one pays for: under a split bill the
eater of a dear meal gains what the others pay for it; an escaped runner gains the whole meal.
So the diner always orders the dearest meal on offer, and the decision is the ballot: each player
holds two Split, two Separate and one RUN! for five rounds, so it plays each card where it is
worth most.

- RUN! early: the others' RUN! cards are public (only an escape discards one), and each still
  held is played about once in the rounds its holder has left, so company (and being caught with
  the dearer meal) only grows more likely; a table whose other runners all escaped is safe.
  Against random players no timing does better: each plays its RUN! in a uniformly random round,
  and waiting for them to spend theirs first leaves it alone less often than running at once.
- Split on its dearest meals: it ranks this round's meal against every meal a menu can offer and
  spends its Split cards on the top share of the rounds left, Separate on the plainest.
- The last round: anyone whose one card left is RUN! must run; one such runner escapes, and
  Separate leaves their meal unpaid instead of sharing it. Its meal is then chosen by the money
  it leaves at the end (``last_order.py``): past the budget, bills are paid in $5 IOUs.
"""

from __future__ import annotations

import itertools
from collections import Counter
from functools import cache
from typing import Any

from pydantic import BaseModel

from games.cafe_carnage.catalogue import (
    COURSE_CARDS,
    COURSES,
    ROUNDS,
    ActionKind,
    action_kind,
    dish,
    run_card,
)
from games.cafe_carnage.choices import offered
from games.cafe_carnage.last_order import last_dishes
from games.cafe_carnage.state import CafeState, Confirm, Pick, Play
from games.engine import PlayerId
from games.rng import Rng

# The chance of another runner that a run still takes (against random players, 3-4 seats,
# 1,000 games each: 0.4 and 0.55 alike at 3 seats, 0.55 better by 16 points at 4).
RUN_RISK = 0.6


ACTION_PREFERENCE: tuple[ActionKind, ...] = ("separate", "split", "run")  # for a plain meal


@cache
def _meal_rank() -> dict[int, float]:
    """For each meal total: the share of menus whose dearest meal is cheaper (ties count half).

    Exact: every 3-card menu of each course, the courses independent."""
    totals: Counter[int] = Counter({0: 1})
    for course in COURSES:
        values = [dish(card).value for card in COURSE_CARDS[course]]
        best: Counter[int] = Counter(max(trio) for trio in itertools.combinations(values, 3))
        merged: Counter[int] = Counter()
        for total, ways in totals.items():
            for value, count in best.items():
                merged[total + value] += ways * count
        totals = merged
    everything = sum(totals.values())
    rank: dict[int, float] = {}
    below = 0
    for total in sorted(totals):
        rank[total] = (below + totals[total] / 2) / everything
        below += totals[total]
    return rank


def meal_rank(total: int) -> float:
    """How dear a meal is among every menu's dearest meal, in [0, 1]."""
    rank = _meal_rank()
    if total in rank:
        return rank[total]
    return 0.0 if total < min(rank) else 1.0


def dearest(state: CafeState, player: PlayerId) -> dict[str, str]:
    """The dearest dish of each course on offer (the first on the menu among equals)."""
    out: dict[str, str] = {}
    for course in COURSES:
        menu = offered(state, player, course)
        out[course] = max(menu, key=lambda c: (dish(c).value, -menu.index(c)))
    return out


def others_may_run(state: CafeState, player: PlayerId) -> float:
    """The chance another player runs this round, read from public facts only: each one still
    holding RUN! (they never escaped) plays it about once in the rounds they have left."""
    rounds_left = ROUNDS - state.round + 1
    stay = 1.0
    for p in state.players:
        if p == player or p in state.run_discarded:
            continue
        stay *= 1 - 1 / max(1, min(rounds_left, len(state.hands[p])))
    return 1 - stay


def forced_runners(state: CafeState, player: PlayerId) -> int:
    """Others whose one card left is their RUN! (it leaves a hand only on an escape)."""
    return sum(
        1
        for p in state.players
        if p != player and p not in state.run_discarded and len(state.hands[p]) == 1
    )


def ballot(state: CafeState, player: PlayerId, meal: int) -> ActionKind:
    """Which kind of card to play this round, with ``meal`` on the plate."""
    have: Counter[ActionKind] = Counter()
    for card in state.hands[player]:
        kind = action_kind(card)
        assert kind is not None
        have[kind] += 1
    if len(have) == 1:
        return next(iter(have))
    rounds_left = ROUNDS - state.round + 1
    rank = meal_rank(meal)
    if state.round == ROUNDS:
        forced = forced_runners(state, player)
        if have["run"] and forced == 0:
            return "run"  # alone: a free meal
        if have["separate"] and forced == 1:
            return "separate"  # the lone runner escapes; separate leaves their meal unpaid
    # The cards this round and those left can still be played: RUN! first, then Split.
    runs = min(have["run"], rounds_left)
    splits = min(have["split"], rounds_left - runs)
    # Run early: each other RUN! card still held is played about once in the rounds its holder
    # has left, so the chance of company (and of being caught) only grows; later, a table whose
    # runners have all escaped is safe.
    if runs and others_may_run(state, player) <= RUN_RISK:
        return "run"
    if splits and rank >= 1 - splits / (rounds_left - runs):
        return "split"
    for fallback in ACTION_PREFERENCE:
        if have[fallback]:
            return fallback
    raise AssertionError("a hand is never empty")


Order = tuple[dict[str, str], ActionKind]

# The last order made for each player, with what it was made from. An order is asked for at each
# of a diner's five moves of a round, and it reads only what stays the same objects all round
# (copy-on-write states share them until the round ends); holding them keeps their ids unique.
_made: dict[PlayerId, tuple[int, tuple[object, ...], Order]] = {}


def order(state: CafeState, player: PlayerId) -> Order:
    """The dishes and the kind of ballot card: the dearest meal on offer and the card it is worth
    most to (see above); in the last round, unless it runs, the meal that wastes least money."""
    sources = (
        state.players,
        state.menus,
        state.hands,
        state.history,
        state.run_discarded,
        state.options,
    )
    made = _made.get(player)
    if (
        made is not None
        and made[0] == state.round
        and all(a is b for a, b in zip(made[1], sources, strict=True))
    ):
        return made[2]
    want = dearest(state, player)
    kind = ballot(state, player, sum(dish(want[course]).value for course in COURSES))
    if state.round == ROUNDS and kind != "run":
        want = last_dishes(state, player, kind)
    _made[player] = (state.round, sources, (want, kind))
    return want, kind


def shrewd(state: Any, player: PlayerId, rng: Rng) -> BaseModel:
    """The order above, made one move at a time and confirmed."""
    assert isinstance(state, CafeState)
    want, kind = order(state, player)
    picks = state.picks[player]
    for course in COURSES:
        have = picks.get(course)
        if have is None or dish(have).value != dish(want[course]).value:
            return Pick(card=want[course])
    played = state.played.get(player)
    if played is None or action_kind(played) != kind:
        card = run_card(player) if kind == "run" else None
        card = card or next(c for c in state.hands[player] if action_kind(c) == kind)
        return Play(card=card)
    return Confirm()

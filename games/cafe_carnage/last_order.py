"""The normal player's last order, weighed in money rather than in points.

Why. The final score is the points eaten plus, without an IOU, the budget left; past the $30
budget, every bill is covered by $5 IOUs of 5 GP each, and the budget left then counts for
nothing. Over a game that makes a player's final score ``eaten + 30 − paid`` while the bills stay
within $30, else ``eaten − 5 × ⌈(paid − 30) / 5⌉``: a game whose bills end $1 past a multiple of
$5 wastes $4. Before the last round the money still to be paid is unknown; in the last round the
diner picks the meal whose expected bill wastes least (a meal paid for separately is then worth
nothing more than a plainer one that lands on the $5 step), the dearest among equals.

What it assumes of the others (public facts only): whoever holds nothing but RUN! runs (one such
runner escapes and, under a split bill, is shared); each other diner votes Split half the time;
their meals are random cards of each course, as an easy player orders them.
"""

from __future__ import annotations

import itertools
from functools import cache, lru_cache
from math import comb

from games.cafe_carnage.catalogue import (
    COURSE_CARDS,
    COURSES,
    IOU_AMOUNT,
    START_BUDGET,
    ActionKind,
    dish,
)
from games.cafe_carnage.choices import offered, repeats
from games.cafe_carnage.state import CafeState
from games.engine import PlayerId


def money_score(paid: int) -> int:
    """What the bills paid over a game leave of the final score, the points eaten aside."""
    over = paid - START_BUDGET
    if over <= 0:
        return -over
    return -IOU_AMOUNT * -(-over // IOU_AMOUNT)


@cache
def _random_meals(diners: int) -> tuple[tuple[int, float], ...]:
    """The distribution of the total of ``diners`` random meals (a random card of each course)."""
    one: dict[int, float] = {0: 1.0}
    for course in COURSES:
        values = [dish(card).value for card in COURSE_CARDS[course]]
        one = _add(one, {v: values.count(v) / len(values) for v in set(values)})
    total: dict[int, float] = {0: 1.0}
    for _ in range(diners):
        total = _add(total, one)
    return tuple(sorted(total.items()))


def _add(a: dict[int, float], b: dict[int, float]) -> dict[int, float]:
    out: dict[int, float] = {}
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] = out.get(x + y, 0.0) + p * q
    return out


@lru_cache(maxsize=1 << 16)
def _expected(paid: int, gain: int, cost: int, sharers: int, shared: int, split: float) -> float:
    """The expected change of the final score: ``gain`` points, and a bill of ``cost`` paid alone,
    or (with probability ``split``) the bill split among ``sharers`` with ``shared`` random meals
    of others in it."""
    before = money_score(paid)
    alone = gain + money_score(paid + cost) - before
    if split <= 0:
        return alone
    under_split = sum(
        p * (gain + money_score(paid + -(-(cost + others) // sharers)) - before)
        for others, p in _random_meals(shared)
    )
    return split * under_split + (1 - split) * alone


def last_dishes(state: CafeState, player: PlayerId, kind: ActionKind) -> dict[str, str]:
    """The last round's dishes for a diner playing ``kind`` (Split or Separate)."""
    others = [p for p in state.players if p != player]
    # Only a kept RUN! is left in a one-card hand (RUN! leaves a hand only on an escape).
    forced = [p for p in others if p not in state.run_discarded and len(state.hands[p]) == 1]
    stayers = len(others) - len(forced)
    sharers = stayers + 1
    shared = stayers + (1 if len(forced) == 1 else 0)  # a lone runner escapes, unpaid
    # Split wins a strict majority of the stayers: how many of the others must vote it.
    need = sharers // 2 + (0 if kind == "split" else 1)
    split = sum(comb(stayers, j) for j in range(need, stayers + 1)) / 2**stayers
    paid = sum(record.players[player].owed for record in state.history)
    eaten = repeats(state, player)
    # Per course, one card for each (price, points) on offer (the first on the menu).
    choices: list[dict[tuple[int, int], str]] = []
    for course in COURSES:
        distinct: dict[tuple[int, int], str] = {}
        for card in offered(state, player, course):
            d = dish(card)
            distinct.setdefault((d.value, 0 if d.name in eaten else d.value), card)
        choices.append(distinct)
    best: tuple[tuple[float, int], tuple[str, ...]] | None = None
    for picked in itertools.product(*(c.items() for c in choices)):
        cost = sum(price for (price, _), _card in picked)
        gain = sum(points for (_, points), _card in picked)
        key = (_expected(paid, gain, cost, sharers, shared, split), cost)
        if best is None or key > best[0]:
            best = (key, tuple(card for _, card in picked))
    assert best is not None
    return dict(zip(COURSES, best[1], strict=True))

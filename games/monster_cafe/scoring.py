"""Scoring: each table feeds every matching monster; Anything Eaters take the best meal.

Also the standings and the outcome of a finished game."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from pydantic import BaseModel

from games.engine import Outcome, PlayerId
from games.monster_cafe.catalogue import (
    ANYTHING,
    COLLECTABLE_KINDS,
    KIND_OF_MEAL,
    MEAL_OF_KIND,
    MEALS,
    MONSTER_KIND,
    TABLE_MEAL,
    kind_label,
    meal_label,
)
from games.monster_cafe.state import MonsterCafeState
from games.presentation import player


@dataclass(frozen=True, slots=True)
class ScoreLine:
    """``count`` monsters of ``kind`` fed by ``plates`` tables of ``meal`` (None: unfed)."""

    kind: str
    count: int
    meal: str | None
    plates: int
    each: int
    points: int

    def describe(self) -> str:
        sign = f"{self.points:+d}"
        who = kind_label(self.kind, self.count)
        if self.meal is None:
            return f"{who} — unfed → {sign}"
        plates = meal_label(self.meal, self.plates)
        if self.kind == ANYTHING:
            return f"{who} — fed by {plates} → {sign}"
        return f"{who} + {plates} → {sign}"


@dataclass(frozen=True, slots=True)
class Breakdown:
    """A collection's score, line by line (plain data: scoring runs at every round's end)."""

    lines: list[ScoreLine]
    unused_tables: list[str]  # meals of tables that fed nobody
    total: int

    def in_short(self) -> str:
        """The breakdown in a few words: how many monsters were fed and unfed, for what."""
        fed = [line for line in self.lines if line.meal is not None]
        unfed = [line for line in self.lines if line.meal is None]
        parts = [
            f"{sum(line.count for line in group)} {word} ({sum(line.points for line in group):+d})"
            for group, word in ((fed, "fed"), (unfed, "unfed"))
            if group
        ]
        return ", ".join(parts) or "no monsters"

    def describe(self) -> list[str]:
        out = [line.describe() for line in self.lines]
        if self.unused_tables:
            unused = ", ".join(meal_label(m, n) for m, n in Counter(self.unused_tables).items())
            out.append(f"Unused: {unused} → 0")
        return out


def points_per_monster(plates: int) -> int:
    """+1 for one table of the meal, +2 for both, −1 when unfed."""
    return 2 if plates >= 2 else 1 if plates == 1 else -1


def best_meal_for_anything(plates: Counter[str], kinds: Counter[str]) -> str | None:
    """The meal that scores best for an Anything Eater: the most plates; on a tie the meal that
    also feeds the most of the player's other monsters, then catalogue order. None: no tables."""
    candidates = [m.key for m in MEALS if plates[m.key] > 0]
    if not candidates:
        return None
    return max(candidates, key=lambda m: (plates[m], kinds[KIND_OF_MEAL[m]]))


def score(monsters: Iterable[str], tables: Iterable[str]) -> Breakdown:
    """Score a collection of monster and table card ids."""
    kinds = Counter(MONSTER_KIND[c] for c in monsters)
    plates = Counter(TABLE_MEAL[t] for t in tables)
    lines: list[ScoreLine] = []
    used: set[str] = set()
    for kind in COLLECTABLE_KINDS:
        count = kinds[kind]
        if not count:
            continue
        meal = best_meal_for_anything(plates, kinds) if kind == ANYTHING else MEAL_OF_KIND[kind]
        n = plates[meal] if meal is not None else 0
        each = points_per_monster(n)
        lines.append(
            ScoreLine(
                kind=kind,
                count=count,
                meal=meal if n else None,
                plates=n,
                each=each,
                points=each * count,
            )
        )
        if n and meal is not None:
            used.add(meal)
    unused = [m.key for m in MEALS for _ in range(plates[m.key]) if m.key not in used]
    return Breakdown(lines=lines, unused_tables=unused, total=sum(x.points for x in lines))


def total(monsters: Iterable[str], tables: Iterable[str]) -> int:
    """``score(monsters, tables).total`` without the breakdown (the table shows it every move)."""
    plates: dict[str, int] = {}
    for card in tables:
        meal = TABLE_MEAL[card]
        plates[meal] = plates.get(meal, 0) + 1
    # An Anything Eater eats the meal with the most plates (the other tie-breaks don't score).
    most = max(plates.values(), default=0)
    points = 0
    for card in monsters:
        kind = MONSTER_KIND[card]
        points += points_per_monster(
            most if kind == ANYTHING else plates.get(MEAL_OF_KIND[kind], 0)
        )
    return points


def totals(state: MonsterCafeState) -> dict[PlayerId, int]:
    """Every player's score if the game ended now."""
    cols = state.collections
    return {p: total(cols[p].monsters, cols[p].tables) for p in state.players}


class Standing(BaseModel):
    player: str
    total: int
    lines: list[str]
    short: str = ""


def standings(state: MonsterCafeState) -> list[Standing]:
    """Players by score, best first (seat order on ties), with their breakdowns."""
    rows = []
    for pid in state.players:
        collection = state.collections[pid]
        breakdown = score(collection.monsters, collection.tables)
        rows.append(
            Standing(
                player=pid,
                total=breakdown.total,
                lines=breakdown.describe(),
                short=breakdown.in_short(),
            )
        )
    return sorted(rows, key=lambda r: -r.total)


def outcome(state: MonsterCafeState) -> Outcome:
    """The result of a finished game: highest total wins, ties share the win."""
    rows = standings(state)
    scores = {r.player: r.total for r in rows}
    best = max(scores.values())
    return Outcome(
        scores=scores,
        winners=[p for p in state.players if scores[p] == best],
        # Short (the final table and its picture show each café): the wall of every
        # monster's line was too long to read at the end.
        summary=[f"{player(r.player)}: {r.short}" for r in rows],
        progress=[dict(scores) for scores in state.round_scores],
    )

"""The cards of Monster Café: 60 monsters (M01..M60) and 16 tables (T01..T16).

Card ids are unique and stable, so every card can be tracked to exactly one place. Monsters are
numbered six per kind in catalogue order (M01-M06 Eyeball Eaters, ..., M55-M60 Lemon Sorbet);
tables two per meal (T01-T02 Spaghetti and Eyeballs, ...).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Meal:
    key: str
    name: str
    emoji: str
    short: str  # for the compact table


@dataclass(frozen=True)
class Kind:
    """A kind of monster card. ``meal`` is None for the wild Anything Eater and the sorbet."""

    key: str
    name: str
    emoji: str
    meal: str | None
    short: str  # for the compact table


MEALS: tuple[Meal, ...] = (
    Meal("spaghetti", "Spaghetti and Eyeballs", "🍝", "Spaghetti"),
    Meal("brains", "Boiled Brains", "🍲", "Brains"),
    Meal("roadkill", "Roasted Roadkill", "🍖", "Roadkill"),
    Meal("sockstew", "Stinky Sock Stew", "🥘", "Sock Stew"),
    Meal("tartare", "Toenail Tartare", "🥩", "Tartare"),
    Meal("dustbunnies", "Deviled Dust Bunnies", "🥚", "Dust Bunnies"),
    Meal("souffle", "Sludge Soufflé", "🍮", "Soufflé"),
    Meal("bblt", "B.B.L.T. (Bellybutton Lint and Tomato)", "🥪", "B.B.L.T."),
)

ANYTHING = "anything"
SORBET = "sorbet"

KINDS: tuple[Kind, ...] = (
    Kind("eyeball", "Eyeball Eater", "👁️", "spaghetti", "Eyeball"),
    Kind("brain", "Brain Eater", "🧠", "brains", "Brain"),
    Kind("roadkill", "Roadkill Eater", "🦝", "roadkill", "Roadkill"),
    Kind("sock", "Stinky Sock Eater", "🧦", "sockstew", "Sock"),
    Kind("toenail", "Toenail Eater", "🦶", "tartare", "Toenail"),
    Kind("dustbunny", "Dust Bunny Eater", "🐰", "dustbunnies", "Dust Bunny"),
    Kind("sludge", "Sludge Eater", "🤢", "souffle", "Sludge"),
    Kind("lint", "Bellybutton Lint Eater", "🧶", "bblt", "Lint"),
    Kind(ANYTHING, "Anything Eater", "🃏", None, "Anything"),
    Kind(SORBET, "Lemon Sorbet", "🍋", None, "Sorbet"),
)

COPIES_PER_KIND = 6
COPIES_PER_MEAL = 2
SEATS_PER_TABLE = 4
ROUNDS = 4
SLOTS = "ABCD"  # the places of a round's tables, stable for the round

MEAL_BY_KEY: dict[str, Meal] = {m.key: m for m in MEALS}
KIND_BY_KEY: dict[str, Kind] = {k.key: k for k in KINDS}
REGULAR_KINDS: tuple[str, ...] = tuple(k.key for k in KINDS if k.meal is not None)
# The monsters that can sit in a collection (everything but the sorbet), in catalogue order.
COLLECTABLE_KINDS: tuple[str, ...] = tuple(k.key for k in KINDS if k.key != SORBET)
MEAL_OF_KIND: dict[str, str] = {k.key: k.meal for k in KINDS if k.meal is not None}
KIND_OF_MEAL: dict[str, str] = {meal: kind for kind, meal in MEAL_OF_KIND.items()}

MONSTER_KIND: dict[str, str] = {
    f"M{i * COPIES_PER_KIND + j + 1:02d}": kind.key
    for i, kind in enumerate(KINDS)
    for j in range(COPIES_PER_KIND)
}
TABLE_MEAL: dict[str, str] = {
    f"T{i * COPIES_PER_MEAL + j + 1:02d}": meal.key
    for i, meal in enumerate(MEALS)
    for j in range(COPIES_PER_MEAL)
}
ALL_MONSTERS: tuple[str, ...] = tuple(MONSTER_KIND)
ALL_TABLES: tuple[str, ...] = tuple(TABLE_MEAL)


def kind_of(card: str) -> Kind:
    return KIND_BY_KEY[MONSTER_KIND[card]]


def meal_of(table: str) -> Meal:
    return MEAL_BY_KEY[TABLE_MEAL[table]]


def monsters_of_kind(kind: str) -> list[str]:
    return [card for card, k in MONSTER_KIND.items() if k == kind]


def tables_of_meal(meal: str) -> list[str]:
    return [card for card, m in TABLE_MEAL.items() if m == meal]


def kind_label(kind: str, count: int = 1) -> str:
    """``🧠 Brain Eater`` or ``🧠 Brain Eater ×3``."""
    k = KIND_BY_KEY[kind]
    return f"{k.emoji} {k.name}" + (f" ×{count}" if count != 1 else "")


def meal_label(meal: str, count: int = 1) -> str:
    m = MEAL_BY_KEY[meal]
    return f"{m.emoji} {m.name}" + (f" ×{count}" if count != 1 else "")


def kind_short(kind: str, count: int = 1) -> str:
    """``🧠 Brain`` or ``🧠 Brain ×3`` (the compact table)."""
    k = KIND_BY_KEY[kind]
    return f"{k.emoji} {k.short}" + (f" ×{count}" if count != 1 else "")


def meal_short(meal: str, count: int = 1) -> str:
    m = MEAL_BY_KEY[meal]
    return f"{m.emoji} {m.short}" + (f" ×{count}" if count != 1 else "")


def monster_label(card: str) -> str:
    return kind_label(MONSTER_KIND[card])


def table_label(card: str) -> str:
    return meal_label(TABLE_MEAL[card])

"""The components of Café Carnage: 105 dish cards and each player's 5 action cards.

Dish card ids are unique and stable: S01-S35 (starters), M01-M35 (mains), D01-D35 (desserts),
numbered in catalogue order (S01-S04 Tomato Soup, S05-S08 Watermelon Salad, ...). A dish's value is
both its Gourmet Points and its price in $ (our values: the printed ones are not public).

Action cards are per player: ``f"{pid}:split1"``, ``f"{pid}:split2"``, ``f"{pid}:sep1"``,
``f"{pid}:sep2"`` and ``f"{pid}:run"``. Because their ids name the owner, a played ballot card is
never put anywhere public: the discard pile only counts them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Course = Literal["starter", "main", "dessert"]
COURSES: tuple[Course, ...] = ("starter", "main", "dessert")
COURSE_PREFIX: dict[Course, str] = {"starter": "S", "main": "M", "dessert": "D"}
COURSE_NAME: dict[Course, str] = {"starter": "Starter", "main": "Main", "dessert": "Dessert"}
COURSE_EMOJI: dict[Course, str] = {"starter": "🥗", "main": "🍝", "dessert": "🍰"}
CARDS_PER_COURSE = 35
MENU_SIZE = 3  # cards of each course dealt to each player per round

ROUNDS = 5
START_BUDGET = 30
IOU_AMOUNT = 5  # $ taken from the supply per IOU, and GP lost with it
# The box's coins: 42 x $1 + 24 x $5 + 21 x $10. Players' $ + the supply always add up to this.
MONEY_TOTAL = 42 * 1 + 24 * 5 + 21 * 10


@dataclass(frozen=True)
class Dish:
    name: str
    course: Course
    value: int  # GP gained and $ owed


# (name, value, copies) per course, in catalogue order (shared/rules/cafe-carnage.md).
_CATALOGUE: dict[Course, tuple[tuple[str, int, int], ...]] = {
    "starter": (
        ("Tomato Soup", 1, 4),
        ("Watermelon Salad", 1, 4),
        ("Steamed Pears", 1, 4),
        ("Vegetable Samosas", 2, 4),
        ("Spring Rolls", 2, 4),
        ("Rice Dumplings", 2, 3),
        ("Stuffed Figs", 2, 3),
        ("Smoked Ham", 3, 3),
        ("Toasted Prawns", 3, 3),
        ("Seafood Tempura", 3, 3),
    ),
    "main": (
        ("Masala Omelette", 1, 4),
        ("Vegetable Tacos", 2, 4),
        ("Chicken Noodles", 2, 4),
        ("Butternut Squash Pie", 3, 4),
        ("Spaghetti Bolognese", 3, 4),
        ("Pizza Diavola", 3, 3),
        ("Sushi Rolls", 4, 3),
        ("Jamaican Fish Stew", 4, 3),
        ("Buffalo Steak", 5, 2),
        ("Lobster Thermidor", 5, 2),
        ("Soton Game Jam Burger", 6, 2),
    ),
    "dessert": (
        ("Coffee Espresso", 1, 4),
        ("Fruit Salad", 1, 4),
        ("Mochi Ice Cream", 2, 4),
        ("Sweet Plum Roulade", 2, 4),
        ("Banana Split", 2, 4),
        ("Ice Cream Sundae", 2, 3),
        ("Rhubarb & Apple Pie", 3, 3),
        ("Crème Chocolate", 3, 3),
        ("Neapolitan Cake", 3, 3),
        ("Raspberry Cheesecake", 4, 3),
    ),
}


def _build() -> dict[str, Dish]:
    dishes: dict[str, Dish] = {}
    for course, rows in _CATALOGUE.items():
        number = 0
        for name, value, copies in rows:
            for _ in range(copies):
                number += 1
                dishes[f"{COURSE_PREFIX[course]}{number:02d}"] = Dish(name, course, value)
        assert number == CARDS_PER_COURSE, (course, number)
    return dishes


DISHES: dict[str, Dish] = _build()
COURSE_CARDS: dict[Course, list[str]] = {
    course: [card for card, dish in DISHES.items() if dish.course == course] for course in COURSES
}


DISH_VALUE: dict[str, int] = {d.name: d.value for d in DISHES.values()}


def dish(card: str) -> Dish:
    return DISHES[card]


# -- action cards ---------------------------------------------------------------------------------

ActionKind = Literal["split", "separate", "run"]
ACTION_KINDS: tuple[ActionKind, ...] = ("split", "separate", "run")
ACTION_NAME: dict[ActionKind, str] = {
    "split": "Split the Bill Evenly",
    "separate": "Each Pay Separately",
    "run": "RUN!",
}
ACTION_SHORT: dict[ActionKind, str] = {"split": "Split", "separate": "Separate", "run": "RUN!"}
ACTION_EMOJI: dict[ActionKind, str] = {"split": "🤝", "separate": "🧾", "run": "🏃"}
_SUFFIX_KIND: dict[str, ActionKind] = {
    "split1": "split",
    "split2": "split",
    "sep1": "separate",
    "sep2": "separate",
    "run": "run",
}
HAND_SIZE = len(_SUFFIX_KIND)


def action_cards(player: str) -> list[str]:
    """A player's starting hand: 2 x Split, 2 x Separate, 1 x RUN!."""
    return [f"{player}:{suffix}" for suffix in _SUFFIX_KIND]


def run_card(player: str) -> str:
    return f"{player}:run"


def action_owner(card: str) -> str:
    return card.rpartition(":")[0]


def action_kind(card: str) -> ActionKind | None:
    """The kind of an action card id, or None when it is not one."""
    return _SUFFIX_KIND.get(card.rpartition(":")[2]) if ":" in card else None

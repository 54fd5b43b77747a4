"""The 60 cards of Breakfast vs Aliens (our deck, from the rules file) and their words.

Card ids are distinctive (``H07``, ``A12``, ``T03``, ``D05``) so that the secrecy checks can
search for them; names never look like ids.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Colour = Literal["R", "B", "P", "Y"]
COLOURS: tuple[Colour, ...] = ("R", "B", "P", "Y")
EMOJI: dict[Colour, str] = {"R": "🟥", "B": "🟦", "P": "🟪", "Y": "🟨"}
COLOUR_NAME: dict[Colour, str] = {"R": "red", "B": "blue", "P": "purple", "Y": "yellow"}
HERO_TRAIT: dict[Colour, str] = {"R": "Courage", "B": "Wisdom", "P": "Respect", "Y": "Effort"}
ALIEN_TRAIT: dict[Colour, str] = {"R": "Fear", "B": "Dishonesty", "P": "Rudeness", "Y": "Laziness"}

Kind = Literal["hero", "alien", "treasure", "disaster"]
KIND_EMOJI: dict[Kind, str] = {"hero": "🍩", "alien": "🛸", "treasure": "💎", "disaster": "🌪️"}

Effect = Literal[
    "",
    "jam_jar",
    "golden_spatula",
    "syrup_shield",
    "magic_toaster",
    "cereal_compass",
    "breakfast_rush",
    "burnt_toast",
    "spilled_milk",
    "alien_reinforcements",
    "kitchen_fire",
]

EFFECT_TEXT: dict[Effect, str] = {
    "": "",
    "jam_jar": "Attach to a hero: it gains one trait of a colour you choose.",
    "golden_spatula": "Use: capture an alien ignoring one of its traits. Discard the spatula.",
    "syrup_shield": "Any time: cancel a disaster as it is revealed. Discard both.",
    "magic_toaster": "Use: look at the top 2 cards; keep a hero or treasure, the rest go under.",
    "cereal_compass": "Use: look at the top 3 cards and put them back in any order.",
    "breakfast_rush": "Play instantly: keep it and take another turn after this one.",
    "burnt_toast": "Discard one of your heroes (your choice) with its treasures.",
    "spilled_milk": "Every player passes one hero of their choice to the player on their left.",
    "alien_reinforcements": "The next alien captured, by anyone, is worth 2 extra points.",
    "kitchen_fire": "Discard the 3 play cards and refill them (disasters go to the bottom).",
}


class Card(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    kind: Kind
    name: str
    traits: tuple[Colour, ...] = ()  # heroes and aliens
    points: int = 0  # aliens
    bar: Colour | None = None  # the colour bar of treasures and disasters (Mini-Muffin)
    effect: Effect = ""  # the text of treasures and disasters (Full Pancake)


HEROES: list[tuple[str, tuple[Colour, ...]]] = [
    ("Captain Pancake", ("R",)),
    ("Sir Toast", ("R",)),
    ("Bacon the Brave", ("R",)),
    ("Waffle Wizard", ("B",)),
    ("Professor Porridge", ("B",)),
    ("Oatmeal Oracle", ("B",)),
    ("Polite Plum Muffin", ("P",)),
    ("Earl Grey Crumpet", ("P",)),
    ("Madame Croissant", ("P",)),
    ("Busy Bagel", ("Y",)),
    ("Hash Brown Hustler", ("Y",)),
    ("Eggcellent Ed", ("Y",)),
    ("French Toast Knight", ("R", "B")),
    ("Cinnamon Sage", ("R", "B")),
    ("Sunny Side Squire", ("R", "P")),
    ("Honey Hero", ("R", "P")),
    ("Sausage Sprinter", ("R", "Y")),
    ("Muesli Muscle", ("R", "Y")),
    ("Granola Guru", ("B", "P")),
    ("Baron von Biscuit", ("B", "P")),
    ("Yogurt Yogi", ("B", "Y")),
    ("Marmalade Mastermind", ("B", "Y")),
    ("Scone Sweetheart", ("P", "Y")),
    ("Doughnut Dynamo", ("P", "Y")),
]

ALIENS: list[tuple[str, tuple[Colour, ...], int]] = [
    ("Shivery Zorp", ("R",), 1),
    ("Quiver Quark", ("R",), 1),
    ("Fibbing Flib", ("B",), 1),
    ("Sneaky Snib", ("B",), 1),
    ("Rude Rorg", ("P",), 1),
    ("Burping Blorp", ("P",), 1),
    ("Lazy Lumpo", ("Y",), 1),
    ("Snoozy Zot", ("Y",), 1),
    ("Glitch Gloop", ("R", "B"), 3),
    ("Snarl Snerk", ("R", "P"), 3),
    ("Yawning Yonk", ("R", "Y"), 3),
    ("Trickster Trax", ("B", "P"), 3),
    ("Loafing Lurk", ("B", "Y"), 3),
    ("Grumble Grub", ("P", "Y"), 3),
    ("Commander Cringe", ("R", "B", "P"), 5),
    ("Baron Blurgh", ("R", "B", "Y"), 5),
    ("Duchess Drool", ("B", "P", "Y"), 5),
    ("Emperor Zlorg", ("R", "B", "P", "Y"), 8),
]

TREASURES: list[tuple[str, Colour, Effect]] = [
    ("Jam Jar", "R", "jam_jar"),
    ("Jam Jar", "B", "jam_jar"),
    ("Golden Spatula", "Y", "golden_spatula"),
    ("Golden Spatula", "P", "golden_spatula"),
    ("Syrup Shield", "R", "syrup_shield"),
    ("Syrup Shield", "B", "syrup_shield"),
    ("Magic Toaster", "Y", "magic_toaster"),
    ("Cereal Compass", "P", "cereal_compass"),
    ("Breakfast Rush", "R", "breakfast_rush"),
    ("Breakfast Rush", "B", "breakfast_rush"),
]

DISASTERS: list[tuple[str, Colour, Effect]] = [
    ("Burnt Toast", "R", "burnt_toast"),
    ("Burnt Toast", "Y", "burnt_toast"),
    ("Spilled Milk", "B", "spilled_milk"),
    ("Spilled Milk", "P", "spilled_milk"),
    ("Alien Reinforcements", "R", "alien_reinforcements"),
    ("Alien Reinforcements", "B", "alien_reinforcements"),
    ("Kitchen Fire", "P", "kitchen_fire"),
    ("Kitchen Fire", "Y", "kitchen_fire"),
]


def _build() -> dict[str, Card]:
    cards: list[Card] = []
    cards += [
        Card(id=f"H{i:02d}", kind="hero", name=name, traits=traits)
        for i, (name, traits) in enumerate(HEROES, start=1)
    ]
    cards += [
        Card(id=f"A{i:02d}", kind="alien", name=name, traits=traits, points=points)
        for i, (name, traits, points) in enumerate(ALIENS, start=1)
    ]
    cards += [
        Card(id=f"T{i:02d}", kind="treasure", name=name, bar=bar, effect=effect)
        for i, (name, bar, effect) in enumerate(TREASURES, start=1)
    ]
    cards += [
        Card(id=f"D{i:02d}", kind="disaster", name=name, bar=bar, effect=effect)
        for i, (name, bar, effect) in enumerate(DISASTERS, start=1)
    ]
    return {c.id: c for c in cards}


CARDS: dict[str, Card] = _build()
ALL_CARDS: tuple[str, ...] = tuple(CARDS)
DECK_SIZE = 60
HAND_HEROES = 3  # heroes dealt to each player
PLAY_CARDS = 3  # face-up play cards (Full Pancake)


def card(card_id: str) -> Card:
    return CARDS[card_id]


def kind(card_id: str) -> Kind:
    return CARDS[card_id].kind


def effect(card_id: str) -> Effect:
    return CARDS[card_id].effect


def colours_text(colours: tuple[Colour, ...] | list[Colour]) -> str:
    """``🟥🟦`` in the fixed colour order."""
    return "".join(EMOJI[c] * colours.count(c) for c in COLOURS)


def letters(colours: tuple[Colour, ...] | list[Colour]) -> str:
    """``R B`` for colour-blind players, in the fixed colour order."""
    return " ".join(c for c in COLOURS for _ in range(colours.count(c)))


def legend() -> str:
    return " · ".join(f"{EMOJI[c]} {c} {COLOUR_NAME[c]}" for c in COLOURS)


def short(card_id: str) -> str:
    """A card in words for the table: ``🍩 Sir Toast 🟥``, ``🛸 Glitch Gloop 🟥🟦 (3)``."""
    c = CARDS[card_id]
    if c.kind == "hero":
        return f"{c.name} {colours_text(c.traits)}"
    if c.kind == "alien":
        return f"{c.name} {colours_text(c.traits)} ({c.points})"
    return c.name


def bar_text(card_id: str) -> str:
    """A treasure or disaster with its colour bar: ``Jam Jar 🟥``."""
    c = CARDS[card_id]
    return f"{c.name} {EMOJI[c.bar]}" if c.bar else c.name

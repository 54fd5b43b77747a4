"""The 104 tiles of Alien Café: ids, kinds, types, placement conditions and how they read.

Ids are distinctive so conservation and secrecy can be checked:
- ``A01``–``A40`` red bag: 36 coloured aliens (9 per colour: 3 want a main, 3 a dessert, 3 a
  drink) then 4 alien Jokers (``A37``–``A40``);
- ``O01``–``O40`` blue bag: 36 orders (12 per category: 3 want each alien colour) then 4 order
  Jokers (``O37``–``O40``);
- ``X01``–``X24`` special tiles, 6 per level (see ``SPECIALS``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

TileType = Literal["purple", "green", "blue", "orange", "main", "dessert", "drink"]
Kind = Literal["alien", "order", "seasoning", "house"]
CondKind = Literal["none", "next_to", "not_next_to", "at_least", "house"]

COLOURS: tuple[TileType, ...] = ("purple", "green", "blue", "orange")
CATEGORIES: tuple[TileType, ...] = ("main", "dessert", "drink")
TYPES: tuple[TileType, ...] = COLOURS + CATEGORIES

COLOUR_DOT = {"purple": "🟣", "green": "🟢", "blue": "🔵", "orange": "🟠"}
CATEGORY_ICON = {"main": "🍔", "dessert": "🍰", "drink": "🥤"}
CATEGORY_NAME = {"main": "main", "dessert": "dessert", "drink": "drink"}
KIND_ICON = {"alien": "👽", "order": "🍽️"}
LEVELS = (1, 2, 3, 4)
BAG_NAME = {"red": "red bag 👽", "blue": "blue bag 🍽️"}
TILES_PER_LEVEL = 6


def kind_of(tile_type: str) -> str:
    """The kind a type belongs to: colours are aliens, categories are orders."""
    return "alien" if tile_type in COLOURS else "order"


def type_icon(tile_type: str) -> str:
    if tile_type in COLOUR_DOT:
        return COLOUR_DOT[tile_type] + "👽"
    return CATEGORY_ICON[tile_type]


def type_symbol(tile_type: str) -> str:
    """One emoji for a type (compact grids): the colour dot for aliens, the dish for orders."""
    return COLOUR_DOT.get(tile_type) or CATEGORY_ICON[tile_type]


def type_name(tile_type: str) -> str:
    if tile_type in COLOUR_DOT:
        return f"{tile_type} alien"
    return CATEGORY_NAME[tile_type]


@dataclass(frozen=True)
class Cond:
    """A placement condition about the tile's orthogonal neighbours (or, for House Rules, the
    whole tray). ``target`` is a type (next_to, house) or a kind (not_next_to, at_least)."""

    kind: CondKind
    target: str = ""
    n: int = 1

    def short(self) -> str:
        if self.kind == "next_to":
            return "↔" + type_icon(self.target)
        if self.kind == "not_next_to":
            return "✗" + KIND_ICON[self.target]
        if self.kind == "at_least":
            return f"≥{self.n}" + KIND_ICON[self.target]
        if self.kind == "house":
            return "no " + type_icon(self.target)
        return "any"

    def words(self) -> str:
        """Plain ASCII words for pictures (the bundled font has no emoji): "wants main"."""
        if self.kind == "next_to":
            return f"wants {self.target}"
        if self.kind == "not_next_to":
            return f"no {self.target}s near"
        if self.kind == "at_least":
            return f"{self.n}+ {self.target}s"
        if self.kind == "house":
            return f"no {self.target}"
        return "any type"

    def text(self) -> str:
        if self.kind == "next_to":
            name = type_name(self.target)
            article = "an" if name[0] in "aeiou" else "a"  # "an orange alien"
            return f"must be next to {article} {name} {type_icon(self.target)}"
        if self.kind == "not_next_to":
            if self.target == "alien":
                return "must not be next to any other alien 👽"
            return "must not be next to any order 🍽️"
        if self.kind == "at_least":
            plural = "aliens 👽" if self.target == "alien" else "orders 🍽️"
            return f"must be next to at least {self.n} {plural}"
        if self.kind == "house":
            return f"your whole tray must have no {type_name(self.target)} {type_icon(self.target)}"
        return "no condition; scores 0 and counts as the type you declare"


@dataclass(frozen=True)
class Tile:
    id: str
    kind: Kind
    type: TileType | None  # None: Jokers and the colourless/categoryless special tiles
    joker: bool
    name: str
    icon: str
    cond: Cond
    level: int = 0  # 0: bag tiles; 1-4: special tiles

    @property
    def special(self) -> bool:
        return self.level > 0

    @property
    def label(self) -> str:
        """Short face, e.g. ``🟣👽 ↔🍔``."""
        return f"{self.icon} {self.cond.short()}"

    @property
    def symbol(self) -> str:
        """One emoji for compact grids: 🟣 (purple alien), 🍔, 😠, 🃏 …"""
        if self.type is not None:
            return type_symbol(self.type)
        return "🃏" if self.joker else self.icon.removesuffix("👽")

    @property
    def text(self) -> str:
        """The face spelled out, e.g. ``🟣👽 ↔🍔 — Purple alien: must be next to a main 🍔``."""
        lvl = f" (level {self.level})" if self.level else ""
        return f"{self.label} — {self.name}{lvl}: {self.cond.text()}"


def _build() -> dict[str, Tile]:
    tiles: dict[str, Tile] = {}
    n = 0
    for colour in COLOURS:
        for category in CATEGORIES:
            for _ in range(3):
                n += 1
                tid = f"A{n:02d}"
                tiles[tid] = Tile(
                    tid,
                    "alien",
                    colour,
                    False,
                    f"{colour.capitalize()} alien",
                    COLOUR_DOT[colour] + "👽",
                    Cond("next_to", category),
                )
    for _ in range(4):
        n += 1
        tid = f"A{n:02d}"
        tiles[tid] = Tile(tid, "alien", None, True, "Alien Joker", "🃏👽", Cond("none"))
    n = 0
    for category in CATEGORIES:
        for colour in COLOURS:
            for _ in range(3):
                n += 1
                tid = f"O{n:02d}"
                tiles[tid] = Tile(
                    tid,
                    "order",
                    category,
                    False,
                    category.capitalize(),
                    CATEGORY_ICON[category],
                    Cond("next_to", colour),
                )
    for _ in range(4):
        n += 1
        tid = f"O{n:02d}"
        tiles[tid] = Tile(tid, "order", None, True, "Order Joker", "🃏🍽️", Cond("none"))
    specials: list[tuple[Kind, str, str, Cond, int]] = [
        ("seasoning", "Seasoning", "🧂", Cond("not_next_to", "order"), 1),
        ("alien", "Grumpy alien", "😠👽", Cond("not_next_to", "alien"), 1),
        ("order", "Sharing Platter", "🍱", Cond("at_least", "alien", 2), 2),
        ("alien", "Hungry alien", "😋👽", Cond("at_least", "order", 2), 2),
        ("order", "Banquet", "🦃", Cond("at_least", "alien", 3), 3),
        ("alien", "Glutton", "🤤👽", Cond("at_least", "order", 3), 3),
    ]
    n = 0
    for kind, name, icon, cond, level in specials:
        for _ in range(3):
            n += 1
            tid = f"X{n:02d}"
            tiles[tid] = Tile(tid, kind, None, False, name, icon, cond, level)
    for banned in ("purple", "green", "blue", "orange", "drink", "dessert"):
        n += 1
        tid = f"X{n:02d}"
        name = f"House Rule: no {type_name(banned)}s"
        tiles[tid] = Tile(tid, "house", None, False, name, "📜", Cond("house", banned), 4)
    return tiles


TILES: dict[str, Tile] = _build()
RED_BAG: tuple[str, ...] = tuple(t for t in TILES if t.startswith("A"))
BLUE_BAG: tuple[str, ...] = tuple(t for t in TILES if t.startswith("O"))
SPECIALS: dict[int, tuple[str, ...]] = {
    level: tuple(t.id for t in TILES.values() if t.level == level) for level in LEVELS
}
ALL_TILES: frozenset[str] = frozenset(TILES)


def tile(tile_id: str) -> Tile:
    return TILES[tile_id]


def bag_of(tile_id: str) -> str:
    """Where a tile goes back after the round: "red", "blue" or the level pile "L1".."L4"."""
    t = TILES[tile_id]
    if t.level:
        return f"L{t.level}"
    return "red" if t.kind == "alien" else "blue"

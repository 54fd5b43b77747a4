"""Monster Café in words: cards, tables, collections and the events of a turn."""

from __future__ import annotations

from games.monster_cafe.catalogue import (
    COLLECTABLE_KINDS,
    MEALS,
    MONSTER_KIND,
    SEATS_PER_TABLE,
    TABLE_MEAL,
    kind_label,
    kind_short,
    meal_short,
    monster_label,
    table_label,
)
from games.monster_cafe.state import Table, Taken
from games.presentation import player

COLOUR = 0x8E44AD  # the café's colour, on the table and every announcement
FREE_SEAT = "▫️"
LINE = 44  # characters in a line of the table (a phone's width)


def table_name(table: Table) -> str:
    """``A · 🍝 Spaghetti and Eyeballs``."""
    return f"{table.slot} · {table_label(table.card)}"


def table_short(table: Table) -> str:
    """``A · 🍝 Spaghetti`` (the compact table)."""
    return f"{table.slot} · {meal_short(TABLE_MEAL[table.card])}"


def seats_text(table: Table) -> str:
    """``👁️ Eyeball, 🃏 Anything ▫️▫️``: who sits there (grouped by kind), then the free seats."""
    seated = monsters_short(table.seats) if table.seats else ""
    free = FREE_SEAT * (SEATS_PER_TABLE - len(table.seats))
    return f"{seated} {free}" if seated and free else seated or free


KIND_ORDER = {k: i for i, k in enumerate(COLLECTABLE_KINDS)}
MEAL_ORDER = {m.key: i for i, m in enumerate(MEALS)}


def _kind_counts(monsters: list[str]) -> list[tuple[str, int]]:
    """(kind, count) in catalogue order."""
    counts: dict[str, int] = {}
    for card in monsters:
        kind = MONSTER_KIND[card]
        counts[kind] = counts.get(kind, 0) + 1
    return sorted(counts.items(), key=lambda item: KIND_ORDER[item[0]])


def monsters_text(monsters: list[str]) -> str:
    """``🧠 Brain Eater ×2, 🃏 Anything Eater`` (announcements)."""
    if not monsters:
        return "no monsters"
    return ", ".join(kind_label(k, n) for k, n in _kind_counts(monsters))


def monsters_short(monsters: list[str]) -> str:
    """``🧠 Brain ×2, 🃏 Anything`` (the compact table)."""
    if not monsters:
        return "no monsters"
    return ", ".join(kind_short(k, n) for k, n in _kind_counts(monsters))


def monster_lines(monsters: list[str]) -> str:
    """A collection's monsters for the table: ``👾 🧠 Brain ×2, 🃏 Anything``, wrapped."""
    return wrapped("👾 ", [kind_short(k, n) for k, n in _kind_counts(monsters)] or ["none yet"])


def table_lines(tables: list[str]) -> str:
    """A collection's tables for the table: ``🍽️ 🍝 Spaghetti, 🥘 Sock Stew ×2``, wrapped."""
    return wrapped("🍽️ ", [meal_short(m, n) for m, n in _meal_counts(tables)] or ["none yet"])


def wrapped(prefix: str, items: list[str], width: int = LINE) -> str:
    """``items`` after ``prefix``, comma-separated, broken between items into lines of about
    ``width`` characters (a phone's line), so no item is split over two lines."""
    lines = [prefix + items[0]]
    for item in items[1:]:
        if len(lines[-1]) + 2 + len(item) + 1 > width:  # + 1: the comma if a break follows
            lines[-1] += ","
            lines.append("   " + item)
        else:
            lines[-1] += ", " + item
    return "\n".join(lines)


def _meal_counts(tables: list[str]) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for card in tables:
        meal = TABLE_MEAL[card]
        counts[meal] = counts.get(meal, 0) + 1
    return sorted(counts.items(), key=lambda item: MEAL_ORDER[item[0]])


def take_text(taken: Taken) -> str:
    what = monsters_text(taken.monsters) if taken.monsters else "no monsters (an empty table)"
    return f"{player(taken.player)} took {taken.slot} · {table_label(taken.table)} with {what}"


def points(n: int) -> str:
    return f"{n} pt" if abs(n) == 1 else f"{n} pts"


# -- the events of a turn (the table's log, and what the bot played for an absent player) --------


def sorbet_wasted(pid: str) -> str:
    return f"🍋 {player(pid)}'s sorbet scared nobody off."


def seated(pid: str, card: str, table: Table) -> str:
    return f"🪑 {player(pid)}: {monster_label(card)} → {table.slot}."


def scared_off(pid: str, victims: list[str]) -> str:
    return f"🍋 Sorbet! {player(pid)} lost {monsters_short(victims)}."


def cleared(taken: Taken) -> str:
    table = f"{taken.slot} · {meal_short(TABLE_MEAL[taken.table])}"
    return f"✅ {player(taken.player)} took {table} ({len(taken.monsters)} 👾)."

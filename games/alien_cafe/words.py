"""Words and compact text shared by the panels and announcements (labels only — never tile ids).

Grids are phone-sized: each cell is two emoji (what the tile is, then ✅/❌, or 🃏 for a Joker),
so a row of four cells stays on one line of a phone screen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from games.alien_cafe.catalogue import TILES, type_icon, type_name, type_symbol
from games.alien_cafe.scoring import Evaluation
from games.alien_cafe.state import LOSSES_ALLOWED, MAX_ROUNDS, SIDE, WINS_NEEDED, AlienCafeState

EMPTY_CELL = "▫️▫️"
GREEN, RED, GREY = 0x2ECC71, 0xE74C3C, 0x9B59B6
LEGEND = "✅ +1 met · ❌ −1 failed · 🃏 Joker: 0 (shown after its type)"

LEVEL_INFO = {
    0: "Training: 3 aliens + 3 orders",
    1: "+ Seasoning 🧂 or Grumpy alien 😠 (not next to orders / aliens)",
    2: "+ level 1 + Sharing Platter 🍱 or Hungry alien 😋 (≥ 2 aliens / orders)",
    3: "+ levels 1–2 + Banquet 🦃 or Glutton 🤤 (≥ 3 aliens / orders)",
    4: "+ levels 1–3 + a House Rule 📜 (no tiles of one type on your tray)",
}


def mark(points: int | None) -> str:
    if points is None:
        return ""
    return "✅" if points > 0 else "❌" if points < 0 else ""


def cell_text(tile_id: str | None, points: int | None, decls: Mapping[str, str]) -> str:
    """One cell of a compact grid: ``🟣✅`` (a purple alien, met), ``🥤🃏`` (a Joker-drink)."""
    if tile_id is None:
        return EMPTY_CELL
    t = TILES[tile_id]
    if t.joker:
        declared = decls.get(tile_id)
        return (type_symbol(declared) if declared else "❔") + "🃏"
    return t.symbol + (mark(points) or "▫️")


def grid_text(
    tray: Sequence[str | None],
    marks: Sequence[int | None],
    decls: Mapping[str, str],
) -> str:
    lines = []
    for row in range(SIDE):
        cells = range(row * SIDE, row * SIDE + SIDE)
        lines.append(" ".join(cell_text(tray[c], marks[c], decls) for c in cells))
    return "\n".join(lines)


def breakdown(ev: Evaluation) -> str:
    """The score in one short line: ``✅ +9 · ❌ −1 · ✋ 1 left in hand −1 · 🃏=🥤 0 → **7**``."""
    parts = [f"✅ +{ev.good}", f"❌ −{ev.bad}"]
    if ev.in_hand:
        parts.append(f"✋ {ev.in_hand} left in hand −{ev.in_hand}")
    for hid, points in ev.house:
        parts.append(f"📜 no {type_symbol(TILES[hid].cond.target)} {'+1' if points > 0 else '−1'}")
    if ev.declarations:
        jokers = "".join(f"🃏={type_symbol(t)}" for t in ev.declarations.values())
        parts.append(f"{jokers} 0")
    return " · ".join(parts) + f" → **{ev.total}**"


def tally(state: AlienCafeState) -> str:
    return (
        f"Services ✅ {state.successes}/{WINS_NEEDED} · ❌ {state.failures}/{LOSSES_ALLOWED} · "
        f"round {state.round}/{MAX_ROUNDS}"
    )


def type_words(tile_type: str) -> str:
    """``🟢👽 green alien``."""
    return f"{type_icon(tile_type)} {type_name(tile_type)}"


def offer_words(tile_id: str) -> str:
    """What the table may see of an offered tile: its type, never which tile it is."""
    t = TILES[tile_id]
    if t.type is None:
        return f"{t.icon} {t.name.lower()}"
    return type_words(t.type)

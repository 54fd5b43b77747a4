"""Text helpers and public announcements (labels only — never tile ids)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from games.alien_cafe.scoring import Evaluation
from games.alien_cafe.state import (
    CELLS,
    LOSSES_ALLOWED,
    MAX_ROUNDS,
    SIDE,
    TARGET,
    WINS_NEEDED,
    AlienCafeState,
    RoundResult,
)
from games.alien_cafe.tiles import TILES, type_icon, type_name
from games.presentation import Announcement, PanelField, player

EMPTY = "▫️"
GREEN, RED, GREY = 0x2ECC71, 0xE74C3C, 0x9B59B6


def fmt_time(seconds: int) -> str:
    if seconds % 86400 == 0:
        days = seconds // 86400
        return f"{days} day" + ("s" if days > 1 else "")
    if seconds % 3600 == 0:
        return f"{seconds // 3600} h"
    if seconds % 60 == 0:
        return f"{seconds // 60} min"
    return f"{seconds} s"


def mark(points: int | None) -> str:
    if points is None:
        return ""
    return "✅" if points > 0 else "❌" if points < 0 else ""


def cell_text(tile_id: str | None, points: int | None, decls: Mapping[str, str]) -> str:
    """One cell of a text grid, e.g. ``🟣👽↔🍔✅`` or ``🃏=🥤``."""
    if tile_id is None:
        return EMPTY
    t = TILES[tile_id]
    if t.joker:
        declared = decls.get(tile_id)
        return "🃏=" + type_icon(declared) if declared else t.icon
    return t.icon + t.cond.short() + mark(points)


def grid_text(
    tray: Sequence[str | None],
    marks: Sequence[int | None],
    decls: Mapping[str, str],
) -> str:
    lines = []
    for row in range(SIDE):
        cells = [cell_text(tray[c], marks[c], decls) for c in range(row * SIDE, row * SIDE + SIDE)]
        lines.append(f"`{row + 1}` " + "  ".join(cells))
    return "\n".join(lines)


def breakdown(ev: Evaluation) -> str:
    parts = [f"✅ {ev.good} (+{ev.good})", f"❌ {ev.bad} (−{ev.bad})"]
    if ev.in_hand:
        parts.append(f"✋ {ev.in_hand} left in hand (−{ev.in_hand})")
    for hid, points in ev.house:
        sign = "+1" if points > 0 else "−1"
        parts.append(f"📜 no {type_name(TILES[hid].cond.target)}s ({sign})")
    jokers = len(ev.declarations)
    if jokers:
        parts.append(f"🃏 {jokers} (0)")
    return " · ".join(parts) + f" → **{ev.total}**"


def round_start(state: AlienCafeState) -> Announcement:
    levels = ", ".join(f"{player(p)} L{state.seats[p].level}" for p in state.players)
    return Announcement(
        title=f"🛸 Round {state.round} — the service begins!",
        description=(
            "Your tiles are in your DM: 3 aliens 👽, 3 orders 🍽️ (+ a special tile for each level "
            "up to yours). "
            f"Fill your 4×4 tray — every player needs **{TARGET}+ points**. "
            f"⏳ {fmt_time(state.options.round_time)}.\nLevels: {levels}"
        ),
        colour=GREY,
        ping=list(state.players),
    )


def round_results(
    state: AlienCafeState,
    evaluations: Mapping[str, Evaluation],
    result: RoundResult,
    over: bool,
) -> list[Announcement]:
    fields = []
    for pid in state.players:
        seat = state.seats[pid]
        ev = evaluations[pid]
        ok = "✅" if ev.total >= TARGET else "❌"
        value = grid_text(seat.tray, ev.marks, ev.declarations) + "\n" + breakdown(ev)
        fields.append(
            PanelField(
                name=f"{ok} {player(pid)} — {ev.total} points (level {seat.level})",
                value=value[:1024],
            )
        )
    verdict = "succeeded ✅" if result.success else "failed ❌"
    tally = f"Services: ✅ {state.successes}/{WINS_NEEDED} · ❌ {state.failures}/{LOSSES_ALLOWED}."
    if over:
        follow = "That was the last service."
    else:
        follow = f"Round {state.round + 1}: pick your level (0–4) in your DM."
    out = [
        Announcement(
            title=f"🍽️ Round {result.round} — the service {verdict}",
            description=(
                f"Every player needed {TARGET}+ points. {tally}\n"
                "✅ +1 condition met · ❌ −1 failed · 🃏 Joker (0, shown as its declared type)\n"
                + follow
            ),
            fields=fields,
            colour=GREEN if result.success else RED,
            ping=[] if over else list(state.players),
        )
    ]
    if over:
        out.append(final_announcement(state))
    return out


def final_summary(state: AlienCafeState) -> list[str]:
    won = state.successes >= WINS_NEEDED
    rounds = len(state.results)
    lines = [
        (
            f"The table won with {state.successes} successful services in {rounds} rounds."
            if won
            else f"The table lost: {state.failures} failed services in {rounds} rounds "
            f"(only {state.successes} succeeded; {WINS_NEEDED} were needed, at most {MAX_ROUNDS} "
            "rounds)."
        )
    ]
    for r in state.results:
        scores = ", ".join(f"{player(p)} {s}" for p, s in r.scores.items())
        lines.append(f"Round {r.round}: {'✅' if r.success else '❌'} {scores}")
    return lines


def final_announcement(state: AlienCafeState) -> Announcement:
    won = state.successes >= WINS_NEEDED
    return Announcement(
        title="🏆 The table wins — five-star café!" if won else "💥 The café closes — table lost",
        description="\n".join(final_summary(state)),
        colour=GREEN if won else RED,
        ping=list(state.players),
    )


def empty_marks() -> list[int | None]:
    return [None] * CELLS

"""Public announcements: the opening, each service's start and results, the final verdict.

They ping nobody: every player gets their private panel by DM as a new message at each step
(their level pick, their tiles), and that DM notifies them already.
"""

from __future__ import annotations

from collections.abc import Mapping

from games.alien_cafe.scoring import Evaluation, final_summary
from games.alien_cafe.state import LOSSES_ALLOWED, TARGET, WINS_NEEDED, AlienCafeState, RoundResult
from games.alien_cafe.words import GREEN, GREY, LEGEND, RED, breakdown, grid_text
from games.kit import duration
from games.presentation import Announcement, PanelField, player


def opening() -> Announcement:
    return Announcement(
        title="🛸 Alien Café is open!",
        description=(
            "Round 1: everyone picks a level (0–4) in their DM, then the service starts. "
            f"The table wins at {WINS_NEEDED} successful services and loses at "
            f"{LOSSES_ALLOWED} failed ones."
        ),
    )


def round_start(state: AlienCafeState) -> Announcement:
    levels = ", ".join(f"{player(p)} L{state.seats[p].level}" for p in state.players)
    return Announcement(
        title=f"🛸 Round {state.round} — the service begins!",
        description=(
            f"Your tiles are in your DM. Fill your 4×4 tray: everyone needs **{TARGET}+ points**. "
            f"⏳ {duration(state.options.round_time)} · Levels: {levels}"
        ),
        colour=GREY,
    )


def round_results(
    state: AlienCafeState,
    evaluations: Mapping[str, Evaluation],
    result: RoundResult,
    over: bool,
) -> list[Announcement]:
    """The service's verdict with every tray as a compact grid (the text twin of the picture
    the table shows)."""
    fields = []
    for pid in state.players:
        ev = evaluations[pid]
        ok = "✅" if ev.total >= TARGET else "❌"
        tray = state.seats[pid].tray
        value = breakdown(ev)
        if any(tray):
            value = grid_text(tray, ev.marks, ev.declarations) + "\n" + value
        fields.append(
            PanelField(
                name=f"{ok} {player(pid)} — {ev.total} points · L{state.seats[pid].level}",
                value=value[:1024],
            )
        )
    verdict = "succeeded ✅" if result.success else "failed ❌"
    tally = f"Services ✅ {state.successes}/{WINS_NEEDED} · ❌ {state.failures}/{LOSSES_ALLOWED}."
    follow = "That was the last service." if over else f"Round {state.round + 1}: pick a level."
    out = [
        Announcement(
            title=f"🍽️ Round {result.round} — the service {verdict}",
            description=f"Everyone needed {TARGET}+ points. {tally}\n{LEGEND}\n{follow}",
            fields=fields,
            colour=GREEN if result.success else RED,
        )
    ]
    if over:
        out.append(final_announcement(state))
    return out


def final_announcement(state: AlienCafeState) -> Announcement:
    won = state.successes >= WINS_NEEDED
    return Announcement(
        title="🏆 The table wins — five-star café!" if won else "💥 The café closes — table lost",
        description="\n".join(final_summary(state)),
        colour=GREEN if won else RED,
    )

"""Panels: the public table (everyone's progress, requests and offers, the last service's picture)
and each player's private DM panel: their level pick here, their tray in tray_panel.py. Public
progress lives on the table only, so another player's move leaves a DM as it is.
"""

from __future__ import annotations

from games.alien_cafe.actions import LEVELS, Action
from games.alien_cafe.picture import results_alt, results_spec
from games.alien_cafe.scoring import final_summary
from games.alien_cafe.state import TARGET, AlienCafeState
from games.alien_cafe.tray_panel import service_panel
from games.alien_cafe.views import evaluation
from games.alien_cafe.words import (
    GREY,
    LEGEND,
    LEVEL_INFO,
    grid_text,
    offer_words,
    tally,
    type_words,
)
from games.kit import choice_controls, duration
from games.presentation import Control, Option, Panel, PanelField, Picture, player


def _dump(action: Action) -> dict[str, object]:
    return action.model_dump(mode="json")


# -- the table -------------------------------------------------------------------------------------
def last_service_picture(state: AlienCafeState) -> Picture | None:
    if not state.results or not state.last_trays:
        return None
    spec = results_spec(state)
    return Picture(name=f"service-{spec['round']}.png", alt=results_alt(spec), spec=spec)


def _last_service_lines(state: AlienCafeState) -> list[str]:
    if not state.results:
        return []
    last = state.results[-1]
    verdict = "✅" if last.success else "❌"
    scores = " · ".join(
        f"{n}. {player(p)} {last.scores.get(p, 0)}" for n, p in enumerate(state.players, start=1)
    )
    return [f"Last service (round {last.round}) {verdict}: {scores}"]


def table_panel(state: AlienCafeState) -> Panel:
    if state.phase == "over":
        return Panel(
            title="🛸 Alien Café — closed",
            description="\n".join([*final_summary(state), *_last_service_lines(state)[:1]]),
            colour=GREY,
            stamp="over",
            image=last_service_picture(state),
        )
    lines = [tally(state)]
    fields = []
    image = None
    if state.phase == "levels":
        waiting = [player(p) for p in state.players if not state.seats[p].ready]
        lines.append(
            f"🎚️ Picking levels for round {state.round} — waiting for {', '.join(waiting)}."
        )
        lines += _last_service_lines(state)
        image = last_service_picture(state)
        for pid in state.players:
            seat = state.seats[pid]
            status = f"✅ ready at level {seat.level}" if seat.ready else "⏳ choosing…"
            fields.append(PanelField(name=player(pid), value=status, inline=True))
    else:
        working = [player(p) for p in state.players if not state.seats[p].done]
        lines.append(
            f"🍽️ Service ({duration(state.options.round_time)}) — still working: "
            + ", ".join(working)
        )
        lines.append(f"👽 Red bag: {len(state.red)} · 🍽️ Blue bag: {len(state.blue)}")
        lines.append(LEGEND)
        for pid in state.players:
            seat = state.seats[pid]
            ev = evaluation(seat)
            placed = sum(1 for t in seat.tray if t is not None)
            status = "✅ done" if seat.done else "⏳"
            ok = "🟢" if ev.total >= TARGET else "🔴"
            value = f"{ok} {ev.total} pts · 🧩 {placed} placed · ✋ {len(seat.hand)} in hand"
            if placed:
                value += "\n" + grid_text(seat.tray, ev.marks, ev.declarations)
            fields.append(PanelField(name=f"{player(pid)} · L{seat.level} · {status}", value=value))
        posts = _posts(state)
        if posts:
            fields.append(PanelField(name="📣 Requests & offers", value="\n".join(posts)))
    return Panel(
        title=f"🛸 Alien Café — round {state.round}",
        description="\n".join(lines),
        fields=fields,
        colour=GREY,
        footer=f"Everyone needs {TARGET}+ points per service.",
        stamp=f"round-{state.round}-{state.phase}",
        image=image,
    )


def _posts(state: AlienCafeState) -> list[str]:
    lines = []
    for pid in state.players:
        seat = state.seats[pid]
        if seat.request is not None:
            lines.append(f"🙋 {player(pid)} needs {type_words(seat.request)}")
        if seat.offer is not None:
            lines.append(f"🎁 {player(pid)} has {offer_words(seat.offer)} to give")
    return lines


# -- private panels --------------------------------------------------------------------------------
def private_panel(state: AlienCafeState, pid: str) -> Panel:
    if pid not in state.seats:
        return table_panel(state)
    if state.phase == "over":
        return Panel(
            title="🛸 Alien Café — closed",
            description="\n".join(final_summary(state)),
            colour=GREY,
            stamp="over",
            layout="components",
        )
    if state.phase == "levels":
        return _levels_panel(state, pid)
    return service_panel(state, pid)


def _levels_panel(state: AlienCafeState, pid: str) -> Panel:
    seat = state.seats[pid]
    lines = [tally(state)]
    if state.results:
        last = state.results[-1]
        lines.append(f"Last service: you scored {last.scores.get(pid, 0)} points.")
    controls: list[Control] = []
    if seat.ready:
        lines.append(
            f"✅ You're ready at **level {seat.level}**. The service starts when everyone is "
            "ready (see the table)."
        )
    else:
        lines.append(
            f"🎚️ Pick your level for round {state.round}. Level L gives you one random special "
            "tile of each level from 1 to L on top of your 3 aliens and 3 orders."
        )
        options = [
            Option(
                label=f"Keep level {lvl}" if lvl == seat.level else f"Level {lvl}",
                emoji="✅" if lvl == seat.level else "🎚️",
                action=_dump(LEVELS[lvl]),
            )
            for lvl in range(5)
        ]
        controls += choice_controls(options, "Pick your level…", row=0)
    levels = "\n".join(f"**{lvl}** — {text}" for lvl, text in LEVEL_INFO.items())
    return Panel(
        title=f"🛸 Alien Café — round {state.round}: your level",
        description="\n".join(lines),
        fields=[PanelField(name="🎚️ Levels", value=levels)],
        colour=GREY,
        footer=f"The service lasts {duration(state.options.round_time)}.",
        controls=controls,
        stamp=f"round-{state.round}-levels",
        layout="components",
    )

"""Views and panels: the public table and each player's DM with the 4×4 tray as buttons.

Private panel layout in the service (Discord: 5 rows × 5 buttons, a select fills a row):
rows 0–3 hold the tray's 4 cells of that row plus one control (Draw 👽, Draw 🍽️, Take back /
Put down, Done); row 4 is a select: pick a hand tile to hold, give the held tile, declare a held
Joker. Clicking: with a hand tile held, an empty cell places it; with a tray tile held, any other
cell moves it there (swapping with a tile); with nothing held, a tile is picked up.
"""

from __future__ import annotations

from pydantic import BaseModel

from games.alien_cafe.actions import (
    Action,
    DeclareAction,
    DoneAction,
    DrawAction,
    GiveAction,
    HoldAction,
    LevelAction,
    MoveAction,
    PlaceAction,
    TakeBackAction,
)
from games.alien_cafe.rules import active_players, where
from games.alien_cafe.scoring import Evaluation, score
from games.alien_cafe.state import (
    CELLS,
    LOSSES_ALLOWED,
    MAX_ROUNDS,
    SIDE,
    TARGET,
    WINS_NEEDED,
    AlienCafeState,
    RoundResult,
    Seat,
)
from games.alien_cafe.text import (
    GREY,
    breakdown,
    final_summary,
    fmt_time,
    grid_text,
    mark,
)
from games.alien_cafe.tiles import TILES, TYPES, type_icon, type_name
from games.presentation import Button, Control, Option, Panel, PanelField, Select, Style, player

LEVEL_INFO = {
    0: "Training: 3 aliens + 3 orders",
    1: "+ Seasoning 🧂 or Grumpy alien 😠 (not next to orders / aliens)",
    2: "+ level 1 + Sharing Platter 🍱 or Hungry alien 😋 (≥ 2 aliens / orders)",
    3: "+ levels 1–2 + Banquet 🦃 or Glutton 🤤 (≥ 3 aliens / orders)",
    4: "+ levels 1–3 + a House Rule 📜 (no tiles of one type on your tray)",
}


# -- views ---------------------------------------------------------------------------------------
class TileView(BaseModel):
    id: str | None = None  # only in its owner's view
    label: str
    text: str


class PlayerPublic(BaseModel):
    player: str
    ready: bool
    level: int | None  # None while still choosing
    done: bool
    placed: int
    in_hand: int
    score_now: int | None
    tray: list[str | None]  # tile faces, row-major (no ids)


class PublicView(BaseModel):
    round: int
    max_rounds: int
    phase: str
    successes: int
    failures: int
    red_bag: int
    blue_bag: int
    players: list[PlayerPublic]
    results: list[RoundResult]


class PrivateView(PublicView):
    me: str
    my_level: int
    hand: list[TileView]
    my_tray: list[TileView | None]
    house: list[TileView]
    held: str | None
    declared: dict[str, str]
    best_declarations: dict[str, str]
    marks: list[int | None]
    my_score: int | None


def tile_view(tile_id: str, with_id: bool) -> TileView:
    t = TILES[tile_id]
    return TileView(id=tile_id if with_id else None, label=t.label, text=t.text)


def evaluation(seat: Seat) -> Evaluation:
    return score(seat.tray, seat.house, len(seat.hand), seat.declared)


def public_view(state: AlienCafeState) -> PublicView:
    players = []
    for pid in state.players:
        seat = state.seats[pid]
        service = state.phase == "service"
        players.append(
            PlayerPublic(
                player=pid,
                ready=seat.ready,
                level=seat.level if (seat.ready or service) else None,
                done=seat.done,
                placed=sum(1 for t in seat.tray if t is not None),
                in_hand=len(seat.hand),
                score_now=evaluation(seat).total if service else None,
                tray=[None if t is None else TILES[t].label for t in seat.tray],
            )
        )
    return PublicView(
        round=state.round,
        max_rounds=MAX_ROUNDS,
        phase=state.phase,
        successes=state.successes,
        failures=state.failures,
        red_bag=len(state.red),
        blue_bag=len(state.blue),
        players=players,
        results=state.results,
    )


def private_view(state: AlienCafeState, pid: str) -> PrivateView:
    seat = state.seats[pid]
    ev = evaluation(seat)
    base = public_view(state)
    return PrivateView(
        **base.model_dump(),
        me=pid,
        my_level=seat.level,
        hand=[tile_view(t, True) for t in seat.hand],
        my_tray=[None if t is None else tile_view(t, True) for t in seat.tray],
        house=[tile_view(t, True) for t in seat.house],
        held=seat.held,
        declared=dict(seat.declared),
        best_declarations=dict(ev.declarations),
        marks=ev.marks,
        my_score=ev.total if state.phase == "service" else None,
    )


# -- the public panel ----------------------------------------------------------------------------
def tally(state: AlienCafeState) -> str:
    return (
        f"Services: ✅ {state.successes}/{WINS_NEEDED} · ❌ {state.failures}/{LOSSES_ALLOWED} · "
        f"round {state.round} of at most {MAX_ROUNDS}"
    )


def public_panel(state: AlienCafeState) -> Panel:
    if state.phase == "over":
        return Panel(
            title="🛸 Alien Café — closed",
            description="\n".join(final_summary(state)),
            colour=GREY,
            stamp="over",
        )
    lines = [tally(state)]
    fields = []
    if state.phase == "levels":
        waiting = [player(p) for p in state.players if not state.seats[p].ready]
        lines.append(
            f"🎚️ Picking levels for round {state.round} — waiting for {', '.join(waiting)}."
        )
        for pid in state.players:
            seat = state.seats[pid]
            status = f"✅ ready at level {seat.level}" if seat.ready else "⏳ choosing a level…"
            fields.append(PanelField(name=player(pid), value=status, inline=True))
    else:
        working = [player(p) for p in state.players if not state.seats[p].done]
        lines.append(
            f"🍽️ Service in progress ({fmt_time(state.options.round_time)}) — still working: "
            + ", ".join(working)
        )
        for pid in state.players:
            seat = state.seats[pid]
            ev = evaluation(seat)
            placed = sum(1 for t in seat.tray if t is not None)
            status = "✅ done" if seat.done else "⏳ working"
            ok = "🟢" if ev.total >= TARGET else "🔴"
            value = (
                f"🧩 {placed} placed · ✋ {len(seat.hand)} in hand · {ok} {ev.total} pts · "
                f"{status}\n" + grid_text(seat.tray, ev.marks, ev.declarations)
            )
            fields.append(PanelField(name=f"{player(pid)} · level {seat.level}", value=value))
    lines.append(
        f"🔴 Red bag: {len(state.red)} aliens 👽 · 🔵 Blue bag: {len(state.blue)} orders 🍽️"
    )
    if state.results:
        history = " ".join(f"R{r.round}{'✅' if r.success else '❌'}" for r in state.results)
        lines.append(f"Past services: {history}")
    return Panel(
        title=f"🛸 Alien Café — round {state.round}",
        description="\n".join(lines),
        fields=fields,
        colour=GREY,
        footer=f"Everyone needs {TARGET}+ points per service · {WINS_NEEDED} successes win, "
        f"{LOSSES_ALLOWED} failures lose.",
        stamp=f"round-{state.round}-{state.phase}",
    )


# -- private panels ------------------------------------------------------------------------------
def private_panel(state: AlienCafeState, pid: str) -> Panel:
    if pid not in state.seats:
        return public_panel(state)
    if state.phase == "over":
        return Panel(
            title="🛸 Alien Café — closed",
            description="\n".join(final_summary(state)),
            colour=GREY,
            stamp="over",
        )
    if state.phase == "levels":
        return _levels_panel(state, pid)
    return _service_panel(state, pid)


def _levels_panel(state: AlienCafeState, pid: str) -> Panel:
    seat = state.seats[pid]
    lines = [tally(state)]
    if state.results:
        last = state.results[-1]
        lines.append(f"Last service: you scored {last.scores.get(pid, 0)} points.")
    controls: list[Control] = []
    if seat.ready:
        waiting = [player(p) for p in state.players if not state.seats[p].ready]
        lines.append(
            f"✅ You're ready at **level {seat.level}**. Waiting for {', '.join(waiting)}."
        )
    else:
        lines.append(
            f"🎚️ Pick your level for round {state.round}. Level L gives you one random special "
            "tile of each level from 1 to L on top of your 3 aliens and 3 orders."
        )
        controls.append(
            Button(
                label=f"Keep level {seat.level}",
                emoji="✅",
                style="success",
                action=LevelAction(level=seat.level).model_dump(mode="json"),
                row=0,
            )
        )
        controls.append(
            Select(
                placeholder="…or pick another level",
                options=[
                    Option(
                        label=f"Level {lvl}",
                        description=LEVEL_INFO[lvl],
                        default=lvl == seat.level,
                        action=LevelAction(level=lvl).model_dump(mode="json"),
                    )
                    for lvl in range(5)
                ],
                row=1,
            )
        )
    levels = "\n".join(f"**{lvl}** — {text}" for lvl, text in LEVEL_INFO.items())
    return Panel(
        title=f"🛸 Alien Café — round {state.round}: your level",
        description="\n".join(lines),
        fields=[PanelField(name="🎚️ Levels", value=levels)],
        colour=GREY,
        footer=f"The service lasts {fmt_time(state.options.round_time)}.",
        controls=controls,
        stamp=f"round-{state.round}-levels",
    )


def _dump(action: Action) -> dict[str, object]:
    return action.model_dump(mode="json")


def _cell_button(seat: Seat, ev: Evaluation, cell: int, active: bool) -> Button:
    tid = seat.tray[cell]
    held = seat.held
    held_at = where(seat, held)
    row = cell // SIDE
    style: Style = "secondary"
    disabled = not active
    action: Action
    if tid is None:
        label = "·"
        if held is not None and held_at == "hand":
            action = PlaceAction(tile=held, cell=cell)
            label = "⬇️"
        elif held is not None and held_at == "tray":
            action = MoveAction(tile=held, cell=cell)
            label = "⬇️"
        else:
            action = HoldAction(tile=None)
            disabled = True
    else:
        t = TILES[tid]
        if t.joker:
            declared = ev.declarations.get(tid)
            label = t.icon + ("=" + type_icon(declared) if declared else "")
        else:
            label = t.label + " " + mark(ev.marks[cell])
            style = "success" if (ev.marks[cell] or 0) > 0 else "danger"
        if held == tid:
            action = HoldAction(tile=None)
            style = "primary"
        elif held is not None and held_at == "tray":
            action = MoveAction(tile=held, cell=cell)
        else:
            action = HoldAction(tile=tid)
    return Button(
        label=label.strip(), style=style, action=_dump(action), disabled=disabled, row=row
    )


def _hand_lines(seat: Seat) -> str:
    counts: dict[str, int] = {}
    for tid in seat.hand:
        counts[TILES[tid].text] = counts.get(TILES[tid].text, 0) + 1
    lines = [f"{'×' + str(n) + ' ' if n > 1 else ''}{text}" for text, n in counts.items()]
    out = ""
    for i, line in enumerate(lines):
        if len(out) + len(line) + 40 > 1000:
            out += f"… and {len(lines) - i} more"
            break
        out += line + "\n"
    return out.strip() or "(empty)"


def _select(state: AlienCafeState, pid: str, seat: Seat) -> Select | None:
    options: list[Option] = []
    held = seat.held
    held_at = where(seat, held)
    if held is not None and held_at == "hand":
        t = TILES[held]
        if not t.special:
            for other in state.players:
                if other != pid and not state.seats[other].done:
                    options.append(
                        Option(
                            label=f"Give {t.label} to {player(other)}",
                            emoji="🎁",
                            action=_dump(GiveAction(tile=held, to=other)),
                        )
                    )
        options.append(
            Option(label="Put it down (hold nothing)", emoji="✖️", action=_dump(HoldAction()))
        )
    elif held is not None and held_at == "tray":
        t = TILES[held]
        options.append(
            Option(
                label=f"Take {t.label} back to hand",
                emoji="↩️",
                action=_dump(TakeBackAction(tile=held)),
            )
        )
        if t.joker:
            current = seat.declared.get(held)
            for ty in TYPES:
                if ty != current:
                    options.append(
                        Option(
                            label=f"This Joker counts as {type_icon(ty)} {type_name(ty)}",
                            emoji="🃏",
                            action=_dump(DeclareAction(tile=held, as_type=ty)),
                        )
                    )
            if current is not None:
                options.append(
                    Option(
                        label="This Joker: automatic (best type)",
                        emoji="🃏",
                        action=_dump(DeclareAction(tile=held, as_type="auto")),
                    )
                )
        options.append(
            Option(label="Put it down (hold nothing)", emoji="✖️", action=_dump(HoldAction()))
        )
    faces: dict[str, list[str]] = {}
    for tid in seat.hand:
        faces.setdefault(TILES[tid].label, []).append(tid)
    room = 25 - len(options)
    for label, ids in list(faces.items())[:room]:
        pick = next((t for t in ids if t != held), ids[0])
        t = TILES[pick]
        count = f" ×{len(ids)}" if len(ids) > 1 else ""
        options.append(
            Option(
                label=f"Hold {label}{count}",
                description=f"{t.name}: {t.cond.text()}"[:100],
                emoji="✋",
                default=held in ids,
                action=_dump(HoldAction(tile=pick)),
            )
        )
    if not options:
        return None
    if held is not None:
        placeholder = f"Holding {TILES[held].label} — more options…"
    else:
        placeholder = "✋ Pick a tile from your hand…"
    return Select(placeholder=placeholder, options=options, row=4)


def _service_panel(state: AlienCafeState, pid: str) -> Panel:
    seat = state.seats[pid]
    ev = evaluation(seat)
    active = pid in active_players(state)
    lines = [f"**Round {state.round} · service** — {tally(state)}"]
    if seat.note:
        lines.append(seat.note)
    held_at = where(seat, seat.held)
    if not active:
        lines.append("✅ You're done — your tray is locked until everyone is done or time is up.")
    elif seat.held is not None and held_at == "hand":
        if TILES[seat.held].special:
            give = " (a special tile can't be given away)."
        elif any(o != pid and not state.seats[o].done for o in state.players):
            give = ", or use the menu to give it away."
        else:
            give = "."  # solo, or everyone else is done: nobody to give it to
        lines.append(
            f"✋ Holding **{TILES[seat.held].label}** — click an empty cell ⬇️ to place it{give}"
        )
    elif seat.held is not None:
        lines.append(
            f"✋ Holding **{TILES[seat.held].label}** from your tray — click another cell to move "
            "it there (onto a tile: they swap), click it again to put it down, or take it back."
        )
    else:
        lines.append(
            "Pick a tile from your hand (menu below), then click an empty cell to place it. "
            "Click a placed tile to pick it up (move it or take it back)."
        )
    lines.append("")
    lines.append("Your tray (✅ +1 · ❌ −1 · 🃏 0):")
    lines.append(grid_text(seat.tray, ev.marks, ev.declarations))
    ok = "🟢" if ev.total >= TARGET else "🔴"
    fields = [
        PanelField(
            name=f"✋ Hand ({len(seat.hand)}) — each tile left in hand scores −1",
            value=_hand_lines(seat),
        ),
        PanelField(
            name=f"📊 Score if the round ended now: {ev.total} {ok} (need {TARGET})",
            value=breakdown(ev),
        ),
    ]
    if ev.declarations:
        jokers = []
        for cell, tid in enumerate(seat.tray):
            if tid in ev.declarations:
                how = "you declared" if tid in seat.declared else "auto — best"
                ty = ev.declarations[tid]
                jokers.append(
                    f"{TILES[tid].icon} row {cell // SIDE + 1}, col {cell % SIDE + 1}: counts as "
                    f"{type_icon(ty)} {type_name(ty)} ({how})"
                )
        fields.append(
            PanelField(name="🃏 Jokers (pick one up to declare it)", value="\n".join(jokers))
        )
    level_lines = [f"Level {seat.level}"]
    level_lines += [f"{TILES[h].text} — {'+1' if p > 0 else '−1'} now" for h, p in ev.house]
    fields.append(PanelField(name="🎚️ Level & House Rules", value="\n".join(level_lines)))
    others = []
    for other in state.players:
        if other == pid:
            continue
        o = state.seats[other]
        placed = sum(1 for t in o.tray if t is not None)
        status = "✅ done" if o.done else "⏳"
        others.append(
            f"{player(other)}: {evaluation(o).total} pts · 🧩 {placed} · ✋ {len(o.hand)} {status}"
        )
    if others:
        fields.append(PanelField(name="🍽️ The others", value="\n".join(others)))
    controls: list[Control] = []
    if active:
        for cell in range(CELLS):
            controls.append(_cell_button(seat, ev, cell, active))
        if state.red:
            controls.append(
                Button(
                    label=f"Draw 👽 ({len(state.red)})",
                    style="primary",
                    action=_dump(DrawAction(bag="red")),
                    row=0,
                )
            )
        if state.blue:
            controls.append(
                Button(
                    label=f"Draw 🍽️ ({len(state.blue)})",
                    style="primary",
                    action=_dump(DrawAction(bag="blue")),
                    row=1,
                )
            )
        if seat.held is not None and held_at == "tray":
            controls.append(
                Button(
                    label="↩️ Take back",
                    action=_dump(TakeBackAction(tile=seat.held)),
                    row=2,
                )
            )
        elif seat.held is not None:
            controls.append(Button(label="✖️ Put down", action=_dump(HoldAction()), row=2))
        controls.append(Button(label="✅ Done", style="success", action=_dump(DoneAction()), row=3))
        select = _select(state, pid, seat)
        if select is not None:
            controls.append(select)
    return Panel(
        title=f"🛸 Your tray — round {state.round}",
        description="\n".join(lines),
        fields=fields,
        colour=GREY,
        footer="Next to = same row or column, touching. Done is final for the round.",
        controls=controls,
        stamp=f"round-{state.round}-service",
    )

"""The service DM: a player's own tray, hand and posts, as a Components V2 message (≤ 40
components).

Rows 0–3 hold the tray's 4×4 cells and nothing else, so the grid stays square on a phone; then the
hand, a button per face five a row, so tile → cell places a tile in two taps (a drawn tile is held
already: one); then the commands (Draw 👽, Draw 🍽️, Take back, Done); then what can be done with the
held tile (give it to a player, offer it, declare a Joker) or, with nothing held, a request to the
table. A hand larger than the 40 components hold (rare) shows its last faces in a select.

It shows nothing that another player's move can change, except what its controls must follow to
stay legal: whether a bag is empty (Draw) and, while a hand tile is held, who can still receive
it (Give). Public progress lives on the table only.
"""

from __future__ import annotations

from games.alien_cafe.actions import (
    DECLARE,
    DONE,
    DRAW_BLUE,
    DRAW_RED,
    HOLD,
    HOLD_NOTHING,
    MOVE,
    OFFER,
    PLACE,
    REQUEST,
    TAKE_BACK,
    WITHDRAW_OFFER,
    WITHDRAW_REQUEST,
    Action,
    give,
)
from games.alien_cafe.catalogue import TILES, TYPES, type_icon, type_name
from games.alien_cafe.legality import can_post, where
from games.alien_cafe.scoring import Evaluation
from games.alien_cafe.state import CELLS, SIDE, TARGET, AlienCafeState, Seat
from games.alien_cafe.views import evaluation
from games.alien_cafe.words import GREY, breakdown, grid_text, mark, tally, type_words
from games.presentation import (
    MAX_V2_COMPONENTS,
    Button,
    Control,
    Option,
    Panel,
    PanelField,
    Select,
    Style,
    player,
)

HAND_ROW = SIDE  # the first row under the grid


# Each action's JSON, made once: actions are frozen, and the tables of them (PLACE, HOLD, …) are
# made once, so the grid's buttons dump the same few actions panel after panel. By identity; an
# entry holds its action, so the id cannot be another's while it is kept. Panels never change a
# control's action once drawn, so they may share it.
DUMPS_KEPT = 4096
_DUMPS: dict[int, tuple[Action, dict[str, object]]] = {}


def _dump(action: Action) -> dict[str, object]:
    found = _DUMPS.get(id(action))
    if found is not None and found[0] is action:
        return found[1]
    dumped = action.model_dump(mode="json")
    if len(_DUMPS) >= DUMPS_KEPT:
        _DUMPS.clear()
    _DUMPS[id(action)] = (action, dumped)
    return dumped


def _cell_button(seat: Seat, ev: Evaluation, cell: int) -> Button:
    tid = seat.tray[cell]
    held = seat.held
    held_at = where(seat, held)
    style: Style = "secondary"
    disabled = False
    action: Action
    if tid is None:
        label = "·"
        if held is not None and held_at == "hand":
            action, label = PLACE[held][cell], "⬇️"
        elif held is not None and held_at == "tray":
            action, label = MOVE[held][cell], "⬇️"
        else:
            action, disabled = HOLD_NOTHING, True
    else:
        t = TILES[tid]
        if t.joker:
            declared = ev.declarations.get(tid)
            label = t.icon + ("=" + type_icon(declared) if declared else "")
        else:
            label = t.label + " " + mark(ev.marks[cell])
            style = "success" if (ev.marks[cell] or 0) > 0 else "danger"
        if held == tid:
            action, style = HOLD_NOTHING, "primary"
        elif held is not None and held_at == "tray":
            action = MOVE[held][cell]
        else:
            action = HOLD[tid]
    return Button(
        label=label.strip(),
        style=style,
        action=_dump(action),
        disabled=disabled,
        row=cell // SIDE,
    )


def _hand_faces(seat: Seat) -> list[tuple[str, list[str]]]:
    """The hand grouped by face (label → tile ids), in the order the tiles came."""
    faces: dict[str, list[str]] = {}
    for tid in seat.hand:
        faces.setdefault(TILES[tid].label, []).append(tid)
    return list(faces.items())


def _hand_controls(seat: Seat, room: int) -> list[Control]:
    """A button per face (tap to hold it; tap the held one to put it down), five a row from
    HAND_ROW, in at most ``room`` components; the faces that do not fit go in a select after."""
    faces = _hand_faces(seat)
    shown = len(faces)
    if _rows(shown) + shown > room:  # room for k buttons and a select's row: k + rows(k) + 2
        shown = max((k for k in range(len(faces)) if _rows(k) + k + 2 <= room), default=0)
    controls: list[Control] = []
    for n, (label, ids) in enumerate(faces[:shown]):
        count = f" ×{len(ids)}" if len(ids) > 1 else ""
        holding = seat.held in ids
        controls.append(
            Button(
                label=f"{label}{count}",
                style="primary" if holding else "secondary",
                action=_dump(HOLD_NOTHING if holding else HOLD[ids[0]]),
                row=HAND_ROW + n // ROW,
            )
        )
    more = faces[shown:]
    if more:
        options = []
        for label, ids in more[:25]:
            t = TILES[ids[0]]
            count = f" ×{len(ids)}" if len(ids) > 1 else ""
            options.append(
                Option(
                    label=f"Hold {label}{count}",
                    description=f"{t.name}: {t.cond.text()}"[:100],
                    emoji="✋",
                    default=seat.held in ids,
                    action=_dump(HOLD[ids[0]]),
                )
            )
        controls.append(
            Select(
                placeholder=f"✋ {len(more)} more in your hand…",
                options=options,
                row=HAND_ROW + _rows(shown),
            )
        )
    return controls


ROW = 5  # buttons a row


def _rows(buttons: int) -> int:
    return -(-buttons // ROW)


def _size(controls: list[Control]) -> int:
    """Components of ``controls`` laid out in rows: each row, each control."""
    return len({c.row for c in controls}) + len(controls)


def _receivers(state: AlienCafeState, pid: str) -> list[str]:
    return [p for p in state.players if p != pid and not state.seats[p].done]


def _context_controls(state: AlienCafeState, pid: str, seat: Seat) -> list[Control]:
    """The last row: what to do with the held tile, or a request to the table when nothing is
    held (rows are numbered when the panel is put together)."""
    held, held_at = seat.held, where(seat, seat.held)
    if held is not None and held_at == "hand":
        if TILES[held].special:
            return []
        controls: list[Control] = [
            Button(label=f"🎁 {player(o)}", style="success", action=_dump(give(held, o)))
            for o in _receivers(state, pid)
        ]
        if can_post(state):
            if seat.offer == held:
                controls.append(Button(label="📣 Withdraw offer", action=_dump(WITHDRAW_OFFER)))
            else:
                controls.append(Button(label="📣 Offer it", action=_dump(OFFER[held])))
        return controls
    if held is not None and TILES[held].joker:
        current = seat.declared.get(held)
        options = [
            Option(
                label=f"Counts as {type_icon(ty)} {type_name(ty)}",
                emoji="🃏",
                action=_dump(DECLARE[held, ty]),
            )
            for ty in TYPES
            if ty != current
        ]
        if current is not None:
            options.append(
                Option(
                    label="Automatic (best type)", emoji="🃏", action=_dump(DECLARE[held, "auto"])
                )
            )
        return [Select(placeholder="🃏 This Joker counts as…", options=options)]
    if held is not None or not can_post(state):
        return []
    options = [
        Option(label=f"Need {type_words(ty)}", emoji="🙋", action=_dump(REQUEST[ty]))
        for ty in TYPES
        if ty != seat.request
    ]
    if seat.request is not None:
        options.append(
            Option(label="Withdraw my request", emoji="✖️", action=_dump(WITHDRAW_REQUEST))
        )
    if seat.offer is not None:
        options.append(Option(label="Withdraw my offer", emoji="✖️", action=_dump(WITHDRAW_OFFER)))
    return [Select(placeholder="📣 Ask the table for a tile…", options=options)]


def _status_line(state: AlienCafeState, pid: str, seat: Seat) -> str:
    held, held_at = seat.held, where(seat, seat.held)
    if seat.done:
        return "✅ You're done — your tray is locked until everyone is done or time is up."
    if held is not None and held_at == "hand":
        t = TILES[held]
        if t.special:
            give_hint = " (a special tile can't be given away)."
        elif _receivers(state, pid):
            give_hint = ", or 🎁 give it away."
        else:
            give_hint = "."  # solo, or everyone else is done: nobody to give it to
        return f"✋ Holding **{t.label}** — tap an empty cell ⬇️ to place it{give_hint}"
    if held is not None:
        return (
            f"✋ Holding **{TILES[held].label}** from your tray — tap another cell to move it "
            "(onto a tile: they swap), tap it again to put it down, or take it back."
        )
    return "Tap a tile of your hand, then an empty cell. Tap a placed tile to move it."


def _hand_lines(seat: Seat) -> str:
    lines = []
    for _, ids in _hand_faces(seat):
        n = len(ids)
        lines.append(f"{'×' + str(n) + ' ' if n > 1 else ''}{TILES[ids[0]].text}")
    out = ""
    for i, line in enumerate(lines):
        if len(out) + len(line) + 40 > 1000:
            out += f"… and {len(lines) - i} more"
            break
        out += line + "\n"
    return out.strip() or "(empty)"


def _service_controls(state: AlienCafeState, pid: str, seat: Seat, ev: Evaluation) -> list[Control]:
    """The grid (rows 0–3), the hand, the commands' row, the held tile's or request's row."""
    grid: list[Control] = [_cell_button(seat, ev, cell) for cell in range(CELLS)]
    commands: list[Control] = []
    if state.red:
        commands.append(Button(label="Draw 👽", style="primary", action=_dump(DRAW_RED)))
    if state.blue:
        commands.append(Button(label="Draw 🍽️", style="primary", action=_dump(DRAW_BLUE)))
    if seat.held is not None and where(seat, seat.held) == "tray":
        commands.append(Button(label="↩️ Take back", action=_dump(TAKE_BACK[seat.held])))
    commands.append(Button(label="✅ Done", style="success", action=_dump(DONE)))
    context = _context_controls(state, pid, seat)
    # What the hand may use of the 40 components: the container and its text, the grid, the
    # commands' row and the context's row take the rest.
    room = MAX_V2_COMPONENTS - 2 - _size(grid) - (1 + len(commands))
    room -= (1 + len(context)) if context else 0
    hand = _hand_controls(seat, room)
    below = max(c.row or 0 for c in hand) + 1 if hand else HAND_ROW
    for control in commands:
        control.row = below
    for control in context:
        control.row = below + 1
    return [*grid, *hand, *commands, *context]


def service_panel(state: AlienCafeState, pid: str) -> Panel:
    seat = state.seats[pid]
    ev = evaluation(seat)
    lines = [f"**Round {state.round} · service** — {tally(state)}"]
    if seat.note:
        lines.append(seat.note)
    lines.append(_status_line(state, pid, seat))
    posts = []
    if seat.request is not None:
        posts.append(f"you need {type_words(seat.request)}")
    if seat.offer is not None:
        posts.append(f"you offer {TILES[seat.offer].label}")
    if posts:
        lines.append("📣 On the table: " + " · ".join(posts))
    if seat.done:
        lines.append(grid_text(seat.tray, ev.marks, ev.declarations))
    ok = "🟢" if ev.total >= TARGET else "🔴"
    fields = [
        PanelField(
            name=f"✋ Hand ({len(seat.hand)}) — each left in hand: −1", value=_hand_lines(seat)
        ),
        PanelField(name=f"📊 Score now: {ev.total} {ok} (need {TARGET})", value=breakdown(ev)),
    ]
    if ev.declarations:
        jokers = []
        for cell, tid in enumerate(seat.tray):
            if tid in ev.declarations:
                how = "you declared" if tid in seat.declared else "auto — best"
                ty = ev.declarations[tid]
                jokers.append(
                    f"{TILES[tid].icon} row {cell // SIDE + 1}, col {cell % SIDE + 1}: "
                    f"{type_words(ty)} ({how})"
                )
        fields.append(PanelField(name="🃏 Jokers (tap one to declare it)", value="\n".join(jokers)))
    level_lines = [f"Level {seat.level}"]
    level_lines += [f"{TILES[h].text} — {'+1' if p > 0 else '−1'} now" for h, p in ev.house]
    fields.append(PanelField(name="🎚️ Level & House Rules", value="\n".join(level_lines)))
    controls: list[Control] = []
    if not seat.done:
        controls = _service_controls(state, pid, seat, ev)
    return Panel(
        title=f"🛸 Your tray — round {state.round}",
        description="\n".join(lines),
        fields=fields,
        colour=GREY,
        footer="Next to = same row or column, touching. Done is final for the round.",
        controls=controls,
        stamp=f"round-{state.round}-service",
        layout="components",
    )

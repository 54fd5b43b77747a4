"""Views, panels, pictures' specs and announcements of Cube Café (nothing here changes a state)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from games import kit
from games.cube_cafe.actions import (
    Action,
    Bus,
    Cook,
    Done,
    Drive,
    Manager,
    Order,
    Refill,
    Rotate,
    Seat,
    Serve,
)
from games.cube_cafe.catalogue import (
    COLOURS,
    FIRST_CAR_ROUND,
    GUEST,
    JOBS,
    LETTER,
    REWARD_NAME,
    ROUNDS,
    TAG,
    VIP_ROUNDS,
    VIPS,
    tag,
)
from games.cube_cafe.rounds import Arrivals, Feeding
from games.cube_cafe.rules import legal_actions
from games.cube_cafe.scoring import standings, summary
from games.cube_cafe.state import Board, CubeCafeState
from games.cube_cafe.words import board_text, button_words, guest_words, label
from games.engine import PlayerId
from games.presentation import Announcement, Button, Control, Option, Panel, Picture
from games.presentation import player as token

COLOUR = 0xC8553D
DONE_COLOUR = 0x2E8B57

# -- views ---------------------------------------------------------------------------------------


class PublicView(BaseModel):
    """Everything is open in Cube Café except the bags' order and the VIP cards still face down."""

    round: int
    over: bool
    dice: list[str]
    vips: list[str]  # revealed VIP cards
    hidden_vips: int
    plates_in_bag: dict[str, int]
    cars_in_bag: dict[str, int]
    boards: dict[PlayerId, Board]
    progress: list[dict[str, int]]


class PlayerView(PublicView):
    you: PlayerId


def public_view(state: CubeCafeState) -> PublicView:
    revealed = state.revealed_vips()
    return PublicView(
        round=state.round,
        over=state.over,
        dice=list(state.dice),
        vips=revealed,
        hidden_vips=len(state.vips) - len(revealed),
        plates_in_bag={c: state.plate_bag.count(c) for c in COLOURS},
        cars_in_bag={c: state.car_bag.count(c) for c in COLOURS},
        boards=state.boards,
        progress=state.progress,
    )


def player_view(state: CubeCafeState, pid: PlayerId) -> PlayerView:
    return PlayerView(**public_view(state).model_dump(), you=pid)


# -- the picture ---------------------------------------------------------------------------------


def seat_number(state: CubeCafeState, pid: PlayerId) -> int:
    return state.players.index(pid) + 1


def restaurant_spec(state: CubeCafeState, pid: PlayerId) -> dict[str, Any]:
    """Exactly what the restaurant picture shows (games.cube_cafe.picture.RestaurantSpec)."""
    board = state.boards[pid]
    when = "final" if state.over else f"Round {state.round}/{ROUNDS}"
    return {
        "title": f"Restaurant {seat_number(state, pid)} · {when}",
        "money": board.money,
        "wheel": [board.colour_at(s) for s in range(len(JOBS))],
        "staff": list(board.hand),
        "tables": [
            {
                "guest": _short(t.guest) if t.guest else "",
                "satisfaction": t.satisfaction,
                "plate": t.plate or "",
                "dirty": t.dirty,
                "cube": t.cube or "",
                "refill": t.refill,
            }
            for t in board.tables
        ],
        "queue": [_short(g) for g in board.queue],
        "grill": list(board.grill),
        "hot": list(board.hot),
        "cold": list(board.cold),
        "menu": dict(board.menu),
        "manager": board.manager,
        "dishwasher": [p or "" for p in board.dishwasher],
        "drive": [
            None
            if car is None
            else {"colour": car.colour, "satisfaction": car.satisfaction, "cube": car.cube or ""}
            for car in board.drive
        ],
        "drive_open": state.round >= FIRST_CAR_ROUND,
        "done": board.done,
    }


def _short(guest: str) -> str:
    return VIPS[guest].short if guest in VIPS else GUEST


def alt_text(state: CubeCafeState, pid: PlayerId) -> str:
    """The picture in words (a sentence or two per part)."""
    board = state.boards[pid]
    wheel = ", ".join(f"{j} {board.colour_at(s)}" for s, j in enumerate(JOBS))
    tables = []
    for n, t in enumerate(board.tables, start=1):
        if t.guest is None:
            tables.append(f"table {n} {'has a dirty plate' if t.dirty else 'is empty'}")
            continue
        order = f"wants {t.plate}" if t.plate else "has not ordered"
        food = f", served {t.cube}" if t.cube else ""
        name = guest_words(t.guest).split(" ", 1)[-1] if t.guest in VIPS else "a customer"
        tables.append(f"table {n}: {name} at {t.satisfaction} of 5, {order}{food}")
    cars = [
        f"a {c.colour} car at {c.satisfaction}" + (" (fed)" if c.cube else "")
        for c in board.drive
        if c is not None
    ]
    text = (
        f"Restaurant {seat_number(state, pid)}, ${board.money}. Wheel: {wheel}. "
        + "; ".join(tables)
        + f". Queue of {len(board.queue)}. Grill {', '.join(board.grill) or 'empty'}; "
        f"hot {', '.join(board.hot) or 'empty'}; cold {', '.join(board.cold) or 'empty'}. "
        f"Manager on space {board.manager}. "
        f"{sum(p is not None for p in board.dishwasher)} plates in the dishwasher."
        + (f" Drive-thru: {', '.join(cars)}." if cars else "")
    )
    return text[:1000]


def picture(state: CubeCafeState, pid: PlayerId, name: str) -> Picture:
    return Picture(name=name, alt=alt_text(state, pid), spec=restaurant_spec(state, pid))


# -- the private panel ---------------------------------------------------------------------------


def player_panel(state: CubeCafeState, pid: PlayerId) -> Panel:
    board = state.boards[pid]
    if state.over:
        title = "☕ Your restaurant — final"
    else:
        title = f"☕ Your restaurant — round {state.round}/{ROUNDS}"
    lines = [board_text(board, state.round)]
    if board.notes:
        lines.append("📝 " + " · ".join(board.notes[-3:]))
    if state.over:
        lines.append("🏁 The game is over.")
    elif board.done:
        lines.append("✅ You're done this round — waiting for the others.")
    elif board.pending:
        lines.append(f"🎁 **Choose your reward:** {REWARD_NAME[board.pending[0]]}.")
    else:
        lines.append(
            "👉 Tap a job: the button's colour is the staff it spends (🌟 a wild), then Done."
        )
    return Panel(
        title=title,
        description="\n".join(lines),
        colour=DONE_COLOUR if board.done or state.over else COLOUR,
        controls=player_controls(state, pid),
        stamp=f"round-{state.round}",
        image=picture(state, pid, "restaurant.png"),
        footer="Nothing is secret: the table shows every restaurant.",
    )


def player_controls(state: CubeCafeState, pid: PlayerId) -> list[Control]:
    """Every move as a button (one tap) while they fit in the message's 5 rows; the largest
    groups become selects only when they do not (kit.grouped_controls)."""
    board = state.boards[pid]
    moves = legal_actions(state, pid)
    if not moves:
        return []
    if board.pending:
        reward = [_option(board, a) for a in moves]
        return kit.grouped_controls([(f"Choose: {REWARD_NAME[board.pending[0]]}", reward)])
    groups: dict[str, list[Option]] = {
        "jobs": [],
        "serve": [],
        "manager": [],
        "turn": [],
        "bus": [],
    }
    seen: set[str] = set()
    for move in moves:
        if isinstance(move, Done):
            continue
        # A wild does what the slot's own colour does: offer the job once, with the colour first.
        key = repr(move.model_dump(exclude={"staff"})) if not isinstance(move, Rotate) else ""
        if key and key in seen:
            continue
        seen.add(key)
        groups[_GROUP[type(move)]].append(_option(board, move))
    placeholders = {
        "jobs": "🧑‍🍳 Seat · Drive-thru · Order · Cook · Refill…",
        "serve": "🍽️ Serve a cube…",
        "manager": "👔 Move the manager…",
        "turn": "🎡 Turn the wheel…",
        "bus": "🧽 Bus a table (free)…",
    }
    staff_left = len(board.hand)
    done = Button(
        label=f"Done (forfeit {staff_left} staff)" if staff_left else "Done",
        action=Done().model_dump(mode="json"),
        style="success",
    )
    return kit.grouped_controls(
        [(placeholders[g], options) for g, options in groups.items()], tail=[done]
    )


_GROUP: dict[type[BaseModel], str] = {
    Seat: "jobs",
    Drive: "jobs",
    Order: "jobs",
    Cook: "jobs",
    Refill: "jobs",
    Serve: "serve",
    Manager: "manager",
    Rotate: "turn",
    Bus: "bus",
}


def _option(board: Board, action: Action) -> Option:
    """The move as a short button label (and its staff as the emoji); in a select, the full
    words as the description."""
    emoji, text = button_words(board, action)
    return Option(
        label=text,
        emoji=emoji,
        description=label(board, action)[:100],
        action=action.model_dump(mode="json"),
    )


# -- the table -----------------------------------------------------------------------------------


def header_panel(state: CubeCafeState) -> Panel:
    """Round, phase, dice, who is done; the money so far."""
    if state.over:
        title = "☕ Cube Café — final"
        lines = ["🏁 **The game is over.**", *summary(state)]
    else:
        title = f"☕ Cube Café — round {state.round}/{ROUNDS}"
        done = [token(p) for p in state.players if state.boards[p].done]
        working = [token(p) for p in state.players if not state.boards[p].done]
        lines = [
            "**Phase 3 · Assign jobs** — everyone works their own restaurant from their "
            "private panel.",
            f"🎲 Staff: {' '.join(tag(d) for d in state.dice)}",
            f"⏳ Working: {', '.join(working) or '—'}",
        ]
        if done:
            lines.append(f"✅ Done: {', '.join(done)}")
    lines.append(_vip_line(state))
    ranking = standings(state)
    lines.append("💵 " + " · ".join(f"{token(p)} ${state.boards[p].money}" for p in ranking))
    return Panel(
        title=title,
        description="\n".join(lines),
        colour=COLOUR,
        stamp=f"round-{state.round}",
        footer="Phase 1, 2 and 4 are played by the bot. /game help for the rules.",
    )


def _vip_line(state: CubeCafeState) -> str:
    parts = []
    for vip, arrival in zip(state.vips, VIP_ROUNDS, strict=True):
        if state.round >= arrival:
            card = VIPS[vip]
            parts.append(f"{card.emoji} {card.name} (round {arrival}: {card.effect})")
        else:
            parts.append(f"❔ a face-down VIP (round {arrival})")
    return "👑 VIPs: " + " · ".join(parts)


def restaurant_panel(state: CubeCafeState, pid: PlayerId) -> Panel:
    board = state.boards[pid]
    seated = sum(t.guest is not None for t in board.tables)
    cars = sum(c is not None for c in board.drive)
    status = "✅ done" if board.done else ("🏁" if state.over else "⏳ working")
    lines = [
        f"{token(pid)} · {status}",
        f"💵 **${board.money}** · 🍽️ seated {seated} · 🚗 cars {cars} · "
        f"🧍 queue {len(board.queue)} · 🧑‍🍳 staff {len(board.hand)}",
    ]
    return Panel(
        title=f"🍽️ Restaurant {seat_number(state, pid)} — ${board.money}",
        description="\n".join(lines),
        colour=DONE_COLOUR if board.done else COLOUR,
        image=picture(state, pid, f"restaurant-{seat_number(state, pid)}.png"),
    )


def table_panels(state: CubeCafeState) -> list[Panel]:
    return [header_panel(state)] + [restaurant_panel(state, p) for p in state.players]


# -- announcements -------------------------------------------------------------------------------


def round_start(state: CubeCafeState, arrivals: Arrivals) -> Announcement:
    lines = [
        f"🎲 The staff dice: {' '.join([TAG[d] for d in arrivals.dice])}",
        "Every restaurant recruits these 6 staff.",
    ]
    if arrivals.cars:
        cars = [
            f"{token(p)} {tag(c)}" if c else f"{token(p)} none (bag empty)"
            for p, c in arrivals.cars.items()
        ]
        lines.append(f"🚗 Drive-thru cars: {', '.join(cars)}")
    if arrivals.vip is not None:
        vip = VIPS[arrivals.vip]
        lines.append(
            f"👑 VIP: **{vip.emoji} {vip.name}** joins the front of every queue "
            f"(seated at {vip.seated_at}; {vip.effect})."
        )
    lines.append("Assign your jobs from your private panel, then say **Done**.")
    return Announcement(
        title=f"☕ Round {arrivals.round}/{ROUNDS} — shift change",
        description="\n".join(lines),
        colour=COLOUR,
        ping=list(state.players),
    )


def round_end(
    state: CubeCafeState, round_no: int, reports: dict[PlayerId, Feeding]
) -> Announcement:
    lines = []
    for pid, report in reports.items():
        line = f"{token(pid)}: **+${report.money}**"
        if report.meals:
            line += " — " + ", ".join(report.meals)
        if report.left:
            line += f"; left unfed: {', '.join(report.left)}"
        if report.thrown:
            line += f"; thrown out: {' '.join([LETTER[c] for c in report.thrown])}"
        if report.timed_out:
            line += f"; ⏰ out of time: {report.forfeited} staff forfeited"
        lines.append(line)
    boards = state.boards
    money = " · ".join([f"{token(p)} ${boards[p].money}" for p in standings(state)])
    lines.append(f"💵 {money}")
    return Announcement(
        title=f"🍽️ Round {round_no} — feed your people",
        description="\n".join(lines),
        colour=COLOUR,
    )


def _customers(count: int) -> str:
    return f"{count} customer{'' if count == 1 else 's'}"


def final(state: CubeCafeState) -> Announcement:
    lines = [
        f"{rank}. {token(p)} — ${state.boards[p].money}, "
        f"{_customers(state.boards[p].customers())} left"
        for rank, p in enumerate(standings(state), start=1)
    ]
    return Announcement(
        title="🏁 Cube Café — final standings",
        description="\n".join([*summary(state), *lines]),
        colour=DONE_COLOUR,
    )

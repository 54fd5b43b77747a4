"""Cube Café in words: move labels and the restaurant as compact text (the accessible fallback)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

from games.cube_cafe.actions import (
    Action,
    Bus,
    Cash,
    Cook,
    Done,
    Drive,
    FreeRefill,
    Manager,
    Order,
    Recruit,
    Refill,
    Rotate,
    Seat,
    Serve,
    Wheel,
)
from games.cube_cafe.catalogue import (
    BIRTHDAY,
    BONUS_NAME,
    CASH,
    DISHWASHER,
    DRIVE_SLOTS,
    EMOJI,
    JOBS,
    LETTER,
    MANAGER_REWARDS,
    MANAGER_SPACES,
    MAX_SATISFACTION,
    SOURCE_BONUS,
    SOURCE_NAME,
    TAG,
    VIPS,
    seated_at,
    slot_colour,
    tag,
)
from games.cube_cafe.state import Board, Table

SHORT_JOB = {"seat": "Seat", "order": "Order", "cook": "Cook", "serve": "Serve", "refill": "Refill"}


def guest_words(guest: str) -> str:
    vip = VIPS.get(guest)
    return f"{vip.emoji} {vip.name}" if vip else "customer"


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def wheel_words(rotation: int) -> str:
    """The wheel in one line: "Seat 🟦B · Order ⬜W · …"."""
    return " · ".join(f"{SHORT_JOB[j]} {tag(slot_colour(rotation, s))}" for s, j in enumerate(JOBS))


def serve_change(board: Board, source: str, cube: str, table: Table) -> int:
    change = SOURCE_BONUS[source] - (1 if cube != table.plate else 0)
    return change + (1 if board.seated(BIRTHDAY) else 0)


def label(board: Board, action: Action) -> str:
    """A move as an option label (≤ 80 characters), from its player's board before the move."""
    return _LABELS[type(action)](board, action)


def _done_label(board: Board, action: Done) -> str:
    return "Done for this round"


def _bus_label(board: Board, action: Bus) -> str:
    bonus = BONUS_NAME[DISHWASHER[action.space - 1]]
    return f"Bus table {action.table} → dishwasher {action.space}: {bonus}"


def _recruit_label(board: Board, action: Recruit) -> str:
    return f"Recruit {TAG[action.staff]}"


def _cash_label(board: Board, action: Cash) -> str:
    return f"Take ${CASH.get(board.pending[0], 0) if board.pending else 0}"


def _wheel_label(board: Board, action: Wheel) -> str:
    return f"Turn the wheel: {TAG[action.seat]} on Seat"


def _free_refill_label(board: Board, action: FreeRefill) -> str:
    return f"Free refill → table {action.table}{_stars_up(board, action.table)}"


def _rotate_label(board: Board, action: Rotate) -> str:
    return _rotate_words(action.staff, action.direction, board.rotation)


# The most common moves' labels, each worded once (there are a few hundred).
@lru_cache(maxsize=1024)
def _rotate_words(staff: str, direction: str, rotation: int) -> str:
    if direction == "ccw":
        seat, arrow = slot_colour(rotation + 1, 0), "⟲"
    else:
        seat, arrow = slot_colour(rotation - 1, 0), "⟳"
    return f"{TAG[staff]} turns the wheel {arrow} ({TAG[seat]} to Seat)"


def _manager_label(board: Board, action: Manager) -> str:
    return _manager_words(action.staff, action.slot, board.manager)


@lru_cache(maxsize=1024)
def _manager_words(staff: str, slot: int, manager: int) -> str:
    target = (manager + slot) % MANAGER_SPACES
    return f"{TAG[staff]} Manager +{slot} (space {manager} → {target})"


def _seat_label(board: Board, action: Seat) -> str:
    guest = board.queue[0] if board.queue else "customer"
    return (
        f"{TAG[action.staff]} Seat {guest_words(guest)} → table {action.table} "
        f"(★{seated_at(guest)})"
    )


def _drive_label(board: Board, action: Drive) -> str:
    car = board.drive[DRIVE_SLOTS.index(action.stars)] if action.stars in DRIVE_SLOTS else None
    colour = car.colour if car else "?"
    return f"{TAG[action.staff]} Drive-thru: {colour} cube → {action.stars}★ car"


def _order_label(board: Board, action: Order) -> str:
    return f"{TAG[action.staff]} Take order → table {action.table}"


def _cook_label(board: Board, action: Cook) -> str:
    return f"{TAG[action.staff]} Cook a {board.colour_at(2)} cube"


def _serve_label(board: Board, action: Serve) -> str:
    table = board.tables[action.table - 1]
    change = serve_change(board, action.source, action.cube, table)
    wants = TAG[table.plate] if table.plate else "?"
    source = SOURCE_NAME[action.source].split()[0]
    return (
        f"{TAG[action.staff]} Serve {TAG[action.cube]} from {source} → table {action.table} "
        f"(wants {wants}, {signed(change)})"
    )


def _refill_label(board: Board, action: Refill) -> str:
    return f"{TAG[action.staff]} Refill → table {action.table}{_stars_up(board, action.table)}"


# By the kind of move (a label is worded on every move played: one look-up, not a chain of tests).
_LABELS: dict[type[BaseModel], Callable[[Board, Any], str]] = {
    Done: _done_label,
    Bus: _bus_label,
    Recruit: _recruit_label,
    Cash: _cash_label,
    Wheel: _wheel_label,
    FreeRefill: _free_refill_label,
    Rotate: _rotate_label,
    Manager: _manager_label,
    Seat: _seat_label,
    Drive: _drive_label,
    Order: _order_label,
    Cook: _cook_label,
    Serve: _serve_label,
    Refill: _refill_label,
}


def _stars_up(board: Board, number: int) -> str:
    table = board.tables[number - 1]
    after = min(MAX_SATISFACTION, table.satisfaction + 1)
    return f" (★{table.satisfaction}→{after})"


def table_line(number: int, table: Table) -> str:
    if table.guest is None:
        if table.plate is not None:
            return f"{number}. 🍽️ dirty plate {tag(table.plate)} (bus it)"
        return f"{number}. empty"
    parts = [f"{number}. {guest_words(table.guest)} ★{table.satisfaction}"]
    if table.plate is None:
        parts.append("no order")
    else:
        parts.append(f"wants {tag(table.plate)}")
        parts.append(f"served {tag(table.cube)}" if table.cube else "no food")
    if table.refill:
        parts.append("🥤")
    return " · ".join(parts)


def track_words(cubes: Sequence[str]) -> str:
    return " ".join(tag(c) for c in cubes) or "—"


def manager_words(board: Board) -> str:
    unpaid = [s for s in MANAGER_REWARDS if s not in board.paid]
    if not unpaid:
        return f"space {board.manager} (all rewards paid this round)"
    ahead = sorted(unpaid, key=lambda s: (s - board.manager - 1) % MANAGER_SPACES)
    steps = (ahead[0] - board.manager - 1) % MANAGER_SPACES + 1
    return f"space {board.manager} (next reward in {steps})"


def car_words(board: Board) -> str:
    cars = []
    for stars, car in zip(DRIVE_SLOTS, board.drive, strict=True):
        if car is not None:
            fed = f" fed {tag(car.cube)}" if car.cube else ""
            cars.append(f"{stars}★ slot: 🚗 {tag(car.colour)} ★{car.satisfaction}{fed}")
    return " · ".join(cars) or "no cars"


def board_text(board: Board, round_no: int) -> str:
    """The whole restaurant in a few short lines."""
    menu = " ".join(f"{tag(c)}×{n}" for c, n in board.menu.items())
    dishwasher = " ".join(
        f"{i}{tag(p)}" if p else f"{i}·" for i, p in enumerate(board.dishwasher, start=1)
    )
    queue = ", ".join(guest_words(g) for g in board.queue) or "empty"
    lines = [
        f"💵 **${board.money}** · 🧑‍🍳 staff: {' '.join(tag(s) for s in board.hand) or 'none'}",
        f"🎡 {wheel_words(board.rotation)}",
        *[table_line(n, t) for n, t in enumerate(board.tables, start=1)],
        f"🧍 Queue: {queue}",
        f"🔥 Grill {track_words(board.grill)} · Hot {track_words(board.hot)} · "
        f"Cold {track_words(board.cold)}",
        f"📋 Menu: {menu}",
        f"👔 Manager {manager_words(board)} · 🧽 {dishwasher}",
    ]
    if round_no >= 4 or any(board.drive):
        lines.append(f"🚗 {car_words(board)}")
    return "\n".join(lines)


# -- buttons: a move in a few characters (phones show about 25), the staff spent as the emoji --

BONUS_SHORT = {
    "manager": "👔+3",
    "plate": "recruit",
    "copy": "copy",
    "wheel": "wheel",
    "refill": "🥤",
}


def button_words(board: Board, action: Action) -> tuple[str | None, str]:
    """A move as a button: (emoji, label). The emoji is the staff spent (or the colour chosen);
    the label says the job and its target briefly; :func:`label` says it in full."""
    return _BUTTONS[type(action)](board, action)


def _seat_button(board: Board, action: Seat) -> tuple[str | None, str]:
    guest = board.queue[0] if board.queue else ""
    who = f"{VIPS[guest].emoji} " if guest in VIPS else ""
    return EMOJI[action.staff], f"Seat {who}→ T{action.table}"


def _drive_button(board: Board, action: Drive) -> tuple[str | None, str]:
    car = board.drive[DRIVE_SLOTS.index(action.stars)] if action.stars in DRIVE_SLOTS else None
    colour = LETTER[car.colour] if car else "?"
    return EMOJI[action.staff], f"Car {action.stars}★ {colour}"


def _serve_button(board: Board, action: Serve) -> tuple[str | None, str]:
    table = board.tables[action.table - 1]
    change = serve_change(board, action.source, action.cube, table)
    return (
        EMOJI[action.staff],
        f"Serve {action.source} {LETTER[action.cube]}→T{action.table} {signed(change)}",
    )


_BUTTONS: dict[type[BaseModel], Callable[[Board, Any], tuple[str | None, str]]] = {
    Done: lambda b, a: (None, "Done"),
    Bus: lambda b, a: (
        "🧽",
        f"Bus T{a.table}→{a.space} {BONUS_SHORT[DISHWASHER[a.space - 1]]}",
    ),
    Recruit: lambda b, a: (EMOJI[a.staff], f"Recruit {LETTER[a.staff]}"),
    Cash: lambda b, a: ("💵", f"Take ${CASH.get(b.pending[0], 0) if b.pending else 0}"),
    Wheel: lambda b, a: (EMOJI[a.seat], f"{LETTER[a.seat]} to Seat"),
    FreeRefill: lambda b, a: ("🥤", f"Refill T{a.table}"),
    Rotate: lambda b, a: (
        EMOJI[a.staff],
        "⟲ " + LETTER[slot_colour(b.rotation + 1, 0)] + "→Seat"
        if a.direction == "ccw"
        else "⟳ " + LETTER[slot_colour(b.rotation - 1, 0)] + "→Seat",
    ),
    Manager: lambda b, a: (EMOJI[a.staff], f"Manager +{a.slot}"),
    Seat: _seat_button,
    Drive: _drive_button,
    Order: lambda b, a: (EMOJI[a.staff], f"Order T{a.table}"),
    Cook: lambda b, a: (EMOJI[a.staff], f"Cook {LETTER[b.colour_at(2)]}"),
    Serve: _serve_button,
    Refill: lambda b, a: (EMOJI[a.staff], f"Refill T{a.table}"),
}

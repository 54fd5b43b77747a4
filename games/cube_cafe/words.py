"""Cube Café in words: move labels and the restaurant as compact text (the accessible fallback)."""

from __future__ import annotations

from collections.abc import Sequence

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
    JOBS,
    MANAGER_REWARDS,
    MANAGER_SPACES,
    MAX_SATISFACTION,
    SOURCE_BONUS,
    SOURCE_NAME,
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
    if isinstance(action, Done):
        return "Done for this round"
    if isinstance(action, Bus):
        bonus = BONUS_NAME[DISHWASHER[action.space - 1]]
        return f"Bus table {action.table} → dishwasher {action.space}: {bonus}"
    if isinstance(action, Recruit):
        return f"Recruit {tag(action.staff)}"
    if isinstance(action, Cash):
        return f"Take ${CASH.get(board.pending[0], 0) if board.pending else 0}"
    if isinstance(action, Wheel):
        return f"Turn the wheel: {tag(action.seat)} on Seat"
    if isinstance(action, FreeRefill):
        return f"Free refill → table {action.table}{_stars_up(board, action.table)}"
    who = tag(action.staff)
    if isinstance(action, Rotate):
        step = 1 if action.direction == "ccw" else -1
        seat = slot_colour(board.rotation + step, 0)
        arrow = "⟲" if action.direction == "ccw" else "⟳"
        return f"{who} turns the wheel {arrow} ({tag(seat)} to Seat)"
    if isinstance(action, Manager):
        target = (board.manager + action.slot) % MANAGER_SPACES
        return f"{who} Manager +{action.slot} (space {board.manager} → {target})"
    if isinstance(action, Seat):
        guest = board.queue[0] if board.queue else "customer"
        return f"{who} Seat {guest_words(guest)} → table {action.table} (★{seated_at(guest)})"
    if isinstance(action, Drive):
        car = board.drive[DRIVE_SLOTS.index(action.stars)] if action.stars in DRIVE_SLOTS else None
        colour = car.colour if car else "?"
        return f"{who} Drive-thru: {colour} cube → {action.stars}★ car"
    if isinstance(action, Order):
        return f"{who} Take order → table {action.table}"
    if isinstance(action, Cook):
        return f"{who} Cook a {board.colour_at(2)} cube"
    if isinstance(action, Serve):
        table = board.tables[action.table - 1]
        change = serve_change(board, action.source, action.cube, table)
        wants = tag(table.plate) if table.plate else "?"
        source = SOURCE_NAME[action.source].split()[0]
        return (
            f"{who} Serve {tag(action.cube)} from {source} → table {action.table} "
            f"(wants {wants}, {signed(change)})"
        )
    return f"{who} Refill → table {action.table}{_stars_up(board, action.table)}"


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

"""A picture of one restaurant (Pillow, PNG) drawn from a JSON spec.

Equal specs draw identical bytes: only the font bundled with Pillow is used, and nothing depends
on the machine. Every colour carries its letter (R/Y/G/B/W) and a wild its star, so the picture
reads without telling colours apart. Text is ASCII (the bundled font has no other glyphs).
"""

from __future__ import annotations

import math
from typing import Any

from PIL import Image, ImageDraw
from pydantic import BaseModel, Field

from games.drawing import flat_png, font

WIDTH, HEIGHT = 800, 500
RGB = tuple[int, int, int]

BACKGROUND: RGB = (251, 246, 236)
INK: RGB = (40, 36, 32)
MUTED: RGB = (150, 140, 128)
PANEL: RGB = (241, 232, 216)
LINE: RGB = (196, 182, 160)
FILL: dict[str, RGB] = {
    "red": (214, 39, 40),
    "yellow": (246, 194, 48),
    "green": (44, 140, 80),
    "blue": (31, 104, 196),
    "white": (255, 255, 255),
    "wild": (122, 70, 170),
}
LETTER_INK: dict[str, RGB] = {
    "red": (255, 255, 255),
    "yellow": INK,
    "green": (255, 255, 255),
    "blue": (255, 255, 255),
    "white": INK,
    "wild": (255, 255, 255),
}
LETTER = {"red": "R", "yellow": "Y", "green": "G", "blue": "B", "white": "W"}
JOBS = ("0 Seat/Drive", "1 Order", "2 Cook", "3 Serve", "4 Refill")
REWARDS = {0: "OPEN", 3: "any", 5: "any/$1", 7: "wild/$2"}
BONUSES = ("Mgr +3", "plate col.", "copy col.", "turn wheel", "refill", "Mgr +3")
STAR_GOLD: RGB = (232, 170, 20)
PALETTE_COLOURS = 96


class TableSpec(BaseModel):
    guest: str = ""  # "" (empty), "guest", or a VIP's short name
    satisfaction: int = 0
    plate: str = ""  # "" or a colour
    dirty: bool = False
    cube: str = ""
    refill: bool = False


class CarSpec(BaseModel):
    colour: str
    satisfaction: int
    cube: str = ""


class RestaurantSpec(BaseModel):
    """Exactly what the picture shows."""

    title: str
    money: int = 0
    wheel: list[str]  # the colour on each slot, Seat first
    staff: list[str] = Field(default_factory=list)  # unspent staff
    tables: list[TableSpec]
    queue: list[str] = Field(default_factory=list)  # front first
    grill: list[str] = Field(default_factory=list)
    hot: list[str] = Field(default_factory=list)
    cold: list[str] = Field(default_factory=list)
    menu: dict[str, int] = Field(default_factory=dict)
    manager: int = 0
    dishwasher: list[str] = Field(default_factory=list)  # "" or the plate's colour, per space
    drive: list[CarSpec | None] = Field(default_factory=list)  # 3★ slot, 2★ slot
    drive_open: bool = False
    done: bool = False


def draw_restaurant(spec: dict[str, Any]) -> bytes:
    """The PNG of a restaurant spec (see :class:`RestaurantSpec`)."""
    board = RestaurantSpec.model_validate(spec)
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    pen = ImageDraw.Draw(image)
    _header(pen, board)
    _wheel(pen, board, 130, 190)
    _tables(pen, board, 262, 52)
    _prep(pen, board, 556, 52)
    _drive(pen, board, 556, 196)
    _manager(pen, board, 10, 318)
    _dishwasher(pen, board, 318, 318)
    _menu(pen, board, 584, 318)
    return flat_png(image, PALETTE_COLOURS, level=3)


# -- pieces --------------------------------------------------------------------------------------


def _text(
    pen: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    size: int = 14,
    fill: RGB = INK,
    anchor: str = "la",
) -> None:
    pen.text(xy, text, font=font(size), fill=fill, anchor=anchor)


def _box(pen: ImageDraw.ImageDraw, x: int, y: int, w: int, h: int, title: str) -> None:
    pen.rounded_rectangle((x, y, x + w, y + h), radius=10, fill=PANEL, outline=LINE, width=2)
    _text(pen, (x + 10, y + 6), title, 13, MUTED)


def _disc(pen: ImageDraw.ImageDraw, cx: float, cy: float, r: float, colour: str) -> None:
    """A colour disc with its letter (or a star for a wild)."""
    pen.ellipse((cx - r, cy - r, cx + r, cy + r), fill=FILL[colour], outline=INK, width=2)
    if colour == "wild":
        _star(pen, cx, cy, r * 0.7, (255, 255, 255))
    else:
        _text(pen, (cx, cy), LETTER[colour], int(r * 1.1), LETTER_INK[colour], "mm")


def _cube(pen: ImageDraw.ImageDraw, cx: float, cy: float, s: float, colour: str) -> None:
    """A food cube: a square with its letter; an empty outline when ``colour`` is ""."""
    box = (cx - s, cy - s, cx + s, cy + s)
    if not colour:
        pen.rectangle(box, outline=LINE, width=2)
        return
    pen.rectangle(box, fill=FILL[colour], outline=INK, width=2)
    _text(pen, (cx, cy), LETTER[colour], int(s * 1.3), LETTER_INK[colour], "mm")


def _star(
    pen: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill: RGB, outline: RGB | None = None
) -> None:
    points = []
    for i in range(10):
        radius = r if i % 2 == 0 else r * 0.45
        angle = -math.pi / 2 + i * math.pi / 5
        points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    pen.polygon(points, fill=fill, outline=outline)


def _meeple(pen: ImageDraw.ImageDraw, cx: float, cy: float, s: float, fill: RGB) -> None:
    """A customer: a head and shoulders."""
    pen.ellipse((cx - s * 0.45, cy - s, cx + s * 0.45, cy - s * 0.1), fill=fill, outline=INK)
    pen.pieslice((cx - s, cy - s * 0.1, cx + s, cy + s * 1.6), 180, 360, fill=fill, outline=INK)


def _header(pen: ImageDraw.ImageDraw, board: RestaurantSpec) -> None:
    _text(pen, (14, 12), board.title[:48], 22)
    _text(pen, (786, 10), f"${board.money}", 26, INK, "ra")
    x = 470.0
    _text(pen, (x - 8, 24), "done" if board.done else "staff:", 14, MUTED, "rm")
    for staff in board.staff[:10]:
        _disc(pen, x + 12, 24, 12, staff)
        x += 28


def _wheel(pen: ImageDraw.ImageDraw, board: RestaurantSpec, cx: int, cy: int) -> None:
    _text(pen, (14, 56), "ACTION WHEEL", 13, MUTED)
    radius = 108
    pen.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=PANEL, outline=LINE)
    pen.ellipse((cx - 22, cy - 22, cx + 22, cy + 22), fill=BACKGROUND, outline=LINE)
    for slot, colour in enumerate(board.wheel[:5]):
        angle = -math.pi / 2 + slot * 2 * math.pi / 5
        dx, dy = math.cos(angle), math.sin(angle)
        pen.line((cx + 22 * dx, cy + 22 * dy, cx + radius * dx, cy + radius * dy), fill=LINE)
        middle = angle + math.pi / 5  # the job label sits between two spokes
        _disc(pen, cx + 52 * math.cos(middle), cy + 52 * math.sin(middle), 17, colour)
        lx, ly = cx + 88 * math.cos(middle), cy + 88 * math.sin(middle)
        number, name = JOBS[slot].split(" ")
        _text(pen, (lx, ly - 7), name, 12, INK, "mm")
        _text(pen, (lx, ly + 8), number, 13, MUTED, "mm")


def _tables(pen: ImageDraw.ImageDraw, board: RestaurantSpec, x0: int, y0: int) -> None:
    for index, table in enumerate(board.tables[:3]):
        x = x0 + index * 96
        _box(pen, x, y0, 90, 190, f"TABLE {index + 1}")
        cx = x + 45
        if table.guest:
            vip = table.guest != "guest"
            _meeple(pen, cx, y0 + 50, 16, (255, 214, 120) if vip else (230, 224, 214))
            label = table.guest[:11] if vip else "customer"
            _text(pen, (cx, y0 + 84), label, 12, INK, "mm")
            for i in range(5):
                filled = i < table.satisfaction
                _star(pen, x + 13 + i * 16, y0 + 102, 7, STAR_GOLD if filled else BACKGROUND, INK)
            _text(pen, (cx, y0 + 118), f"{table.satisfaction} of 5", 12, INK, "mm")
        if table.plate:
            py = y0 + 148
            if table.dirty:
                pen.ellipse((cx - 22, py - 16, cx + 22, py + 16), fill=(200, 196, 188), outline=INK)
                _text(pen, (cx, py - 4), "dirty", 11, INK, "mm")
                _text(pen, (cx, py + 8), LETTER[table.plate], 11, INK, "mm")
            else:
                _text(pen, (x + 8, py - 14), "wants", 11, MUTED)
                _disc(pen, cx - 12, py + 8, 13, table.plate)
                _cube(pen, cx + 22, py + 8, 10, table.cube)
        if table.refill:
            pen.rectangle((x + 70, y0 + 30, x + 82, y0 + 48), fill=(150, 210, 235), outline=INK)
            _text(pen, (x + 76, y0 + 56), "+1", 11, INK, "mm")
    _text(pen, (x0, y0 + 204), "QUEUE (front first)", 13, MUTED)
    for index, guest in enumerate(board.queue[:4]):
        gx = x0 + 20 + index * 70
        vip = guest != "guest"
        _meeple(pen, gx, y0 + 236, 11, (255, 214, 120) if vip else (230, 224, 214))
        _text(pen, (gx + 14, y0 + 240), guest[:7] if vip else "", 11, INK, "lm")


def _prep(pen: ImageDraw.ImageDraw, board: RestaurantSpec, x0: int, y0: int) -> None:
    _box(pen, x0, y0, 234, 136, "FOOD PREP")
    rows = (("Grill  -1", board.grill), ("Hot  +1", board.hot), ("Cold  0", board.cold))
    for index, (name, cubes) in enumerate(rows):
        y = y0 + 40 + index * 34
        _text(pen, (x0 + 12, y), name, 14, INK, "lm")
        for i in range(2):
            _cube(pen, x0 + 120 + i * 34, y, 12, cubes[i] if i < len(cubes) else "")
    _text(pen, (x0 + 224, y0 + 108), "then out", 11, MUTED, "rm")


def _drive(pen: ImageDraw.ImageDraw, board: RestaurantSpec, x0: int, y0: int) -> None:
    _box(pen, x0, y0, 234, 96, "DRIVE-THRU")
    if not board.drive_open:
        _text(pen, (x0 + 117, y0 + 55), "opens in round 4", 14, MUTED, "mm")
        return
    for index, stars in enumerate((3, 2)):
        x = x0 + 14 + index * 112
        _text(pen, (x, y0 + 30), f"{stars} star slot", 12, MUTED)
        car = board.drive[index] if index < len(board.drive) else None
        if car is None:
            pen.rounded_rectangle((x, y0 + 48, x + 90, y0 + 84), radius=8, outline=LINE, width=2)
            continue
        pen.rounded_rectangle(
            (x, y0 + 48, x + 62, y0 + 84), radius=8, fill=FILL[car.colour], outline=INK, width=2
        )
        _text(pen, (x + 31, y0 + 66), f"car {LETTER[car.colour]}", 14, LETTER_INK[car.colour], "mm")
        if car.cube:
            _cube(pen, x + 78, y0 + 66, 10, car.cube)
        else:
            _text(pen, (x + 78, y0 + 66), str(car.satisfaction), 14, INK, "mm")


def _manager(pen: ImageDraw.ImageDraw, board: RestaurantSpec, x0: int, y0: int) -> None:
    _box(pen, x0, y0, 298, 172, "MANAGER TRACK (a loop)")
    for space in range(8):
        # Spaces 0-3 run left to right on top, 4-7 right to left below: a loop.
        col = space if space < 4 else 7 - space
        x, y = x0 + 12 + col * 70, y0 + 30 + (0 if space < 4 else 70)
        here = space == board.manager
        reward = space in REWARDS and space != 0
        fill = (255, 236, 180) if reward else BACKGROUND
        pen.rounded_rectangle((x, y, x + 64, y + 62), radius=6, fill=fill, outline=LINE, width=2)
        _text(pen, (x + 6, y + 4), str(space), 12, MUTED)
        _text(pen, (x + 32, y + 22), REWARDS.get(space, ""), 12, INK, "mm")
        if here:
            pen.ellipse((x + 20, y + 34, x + 44, y + 58), fill=INK)
            _text(pen, (x + 32, y + 46), "M", 13, (255, 255, 255), "mm")


def _dishwasher(pen: ImageDraw.ImageDraw, board: RestaurantSpec, x0: int, y0: int) -> None:
    _box(pen, x0, y0, 258, 172, "DISHWASHER")
    for space in range(6):
        x, y = x0 + 10 + (space % 3) * 82, y0 + 28 + (space // 3) * 70
        pen.rounded_rectangle((x, y, x + 76, y + 64), radius=6, fill=BACKGROUND, outline=LINE)
        _text(pen, (x + 4, y + 4), f"{space + 1} {BONUSES[space]}", 11, INK)
        plate = board.dishwasher[space] if space < len(board.dishwasher) else ""
        if plate:
            _disc(pen, x + 38, y + 42, 14, plate)


def _menu(pen: ImageDraw.ImageDraw, board: RestaurantSpec, x0: int, y0: int) -> None:
    _box(pen, x0, y0, 206, 172, "MENU CUBES")
    for index, colour in enumerate(LETTER):
        y = y0 + 42 + index * 26
        count = board.menu.get(colour, 0)
        for i in range(2):
            _cube(pen, x0 + 30 + i * 30, y, 10, colour if i < count else "")
        _text(pen, (x0 + 80, y), f"{colour} x{count}", 13, INK, "lm")

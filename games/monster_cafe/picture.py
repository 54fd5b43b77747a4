"""A picture of Monster Café's table (Pillow, PNG) drawn from a JSON spec: the round's tables
with the monsters seated at them, then each player's collection.

Equal specs draw identical bytes: only the font bundled with Pillow is used. Text is ASCII (the
bundled font has no other glyphs); each kind is a coloured disc carrying its two letters, so the
picture reads without telling colours apart. Drawn 800 px wide with large type: legible at half
that on a phone.
"""

from __future__ import annotations

from typing import Any

from PIL import Image, ImageDraw
from pydantic import BaseModel, Field

from games.drawing import ascii_text, flat_png, font, label_of

WIDTH = 800
RGB = tuple[int, int, int]
BACKGROUND: RGB = (250, 244, 236)
INK: RGB = (40, 34, 44)
MUTED: RGB = (140, 128, 140)
PANEL: RGB = (238, 226, 240)
CURRENT: RGB = (255, 236, 180)
KIND_FILL: dict[str, RGB] = {
    "eyeball": (214, 39, 40),
    "brain": (236, 120, 160),
    "roadkill": (120, 84, 50),
    "sock": (110, 140, 40),
    "toenail": (230, 150, 40),
    "dustbunny": (150, 150, 160),
    "sludge": (60, 150, 90),
    "lint": (40, 100, 190),
    "anything": (110, 60, 160),
}
PAD = 16
TABLE_H = 190
ROW_H = 112
DISC = 30  # radius of a seat


class TableSpec(BaseModel):
    slot: str
    meal: str
    seats: list[str] = Field(default_factory=list)  # kind keys, in seat order


class PlayerSpec(BaseModel):
    label: str  # the player's name (a token until the front end writes it)
    seat: int = 0
    score: int
    current: bool = False
    monsters: list[tuple[str, int]] = Field(default_factory=list)  # (kind key, count)
    tables: int = 0


class TableViewSpec(BaseModel):
    """Exactly what the picture shows."""

    title: str
    tables: list[TableSpec]
    players: list[PlayerSpec]
    abbrev: dict[str, str]  # kind key → two letters
    seats_per_table: int = 4


def _disc(draw: ImageDraw.ImageDraw, x: int, y: int, kind: str | None, letters: str) -> None:
    box = (x - DISC, y - DISC, x + DISC, y + DISC)
    if kind is None:
        draw.ellipse(box, outline=MUTED, width=3)
        return
    draw.ellipse(box, fill=KIND_FILL.get(kind, MUTED), outline=INK, width=2)
    draw.text((x, y), letters, font=font(26), fill=(255, 255, 255), anchor="mm")


def draw(raw: dict[str, Any]) -> bytes:
    spec = TableViewSpec.model_validate(raw)
    height = PAD + 44 + TABLE_H + PAD + ROW_H * len(spec.players) + PAD
    image = Image.new("RGB", (WIDTH, height), BACKGROUND)
    d = ImageDraw.Draw(image)
    d.text((PAD, PAD), ascii_text(spec.title), font=font(32), fill=INK)
    top = PAD + 44
    count = max(1, len(spec.tables))
    w = (WIDTH - PAD * (count + 1)) // count
    for i, table in enumerate(spec.tables):
        x0 = PAD + i * (w + PAD)
        d.rounded_rectangle((x0, top, x0 + w, top + TABLE_H), radius=14, fill=PANEL)
        d.text((x0 + 12, top + 10), table.slot, font=font(40), fill=INK)
        d.text((x0 + 50, top + 20), ascii_text(table.meal)[:14], font=font(24), fill=INK)
        # The seats in two rows of two.
        for s in range(spec.seats_per_table):
            cx = x0 + w // 4 + (s % 2) * (w // 2)
            cy = top + 95 + (s // 2) * 66
            kind = table.seats[s] if s < len(table.seats) else None
            _disc(d, cx, cy, kind, spec.abbrev.get(kind or "", "?"))
    y = top + TABLE_H + PAD
    for p in spec.players:
        if p.current:
            d.rectangle((0, y, WIDTH, y + ROW_H - 6), fill=CURRENT)
        d.text((PAD, y + 8), label_of(p.label, p.seat), font=font(30), fill=INK)
        tail = f"{p.score} pts" + (f" - {p.tables} table(s)" if p.tables else "")
        d.text((WIDTH - PAD, y + 8), tail, font=font(28), fill=INK, anchor="ra")
        x = PAD + DISC
        for kind, n in p.monsters:
            if x > WIDTH - 2 * DISC:
                break
            _disc(d, x, y + 72, kind, spec.abbrev.get(kind, "?"))
            d.text((x + DISC + 6, y + 72), f"x{n}", font=font(26), fill=INK, anchor="lm")
            x += 2 * DISC + 56
        if not p.monsters:
            d.text((PAD, y + 60), "no monsters yet", font=font(26), fill=MUTED)
        y += ROW_H
    return flat_png(image)

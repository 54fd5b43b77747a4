"""A picture of Breakfast vs Aliens' table (Pillow, PNG) drawn from a JSON spec: the alien to
capture and the play cards, then each player's heroes and captures.

Equal specs draw identical bytes: only the font bundled with Pillow is used. Text is ASCII (the
bundled font has no other glyphs); each trait colour is a square carrying its letter, so the
picture reads without telling colours apart. 800 px wide with large type: legible at half that.
"""

from __future__ import annotations

from typing import Any

from PIL import Image, ImageDraw
from pydantic import BaseModel, Field

from games.drawing import ascii_text, flat_png, font, label_of

WIDTH = 800
RGB = tuple[int, int, int]
BACKGROUND: RGB = (252, 246, 232)
INK: RGB = (40, 34, 30)
MUTED: RGB = (140, 128, 118)
ALIEN: RGB = (214, 236, 214)
PLAY: RGB = (240, 230, 210)
CURRENT: RGB = (255, 236, 180)
TRAIT: dict[str, RGB] = {
    "R": (214, 39, 40),
    "B": (31, 104, 196),
    "P": (130, 70, 170),
    "Y": (240, 190, 40),
}
PAD = 16
CARD_H = 70
ROW_H = 118


class CardSpec(BaseModel):
    name: str
    traits: list[str] = Field(default_factory=list)
    points: int = 0


class SeatSpec(BaseModel):
    label: str  # the player's name (a token until the front end writes it)
    seat: int = 0
    score: int
    awaited: bool = False
    heroes: list[CardSpec] = Field(default_factory=list)
    captured: int = 0  # cards in their jail


class TableSpec(BaseModel):
    """Exactly what the picture shows."""

    title: str
    alien: CardSpec | None = None
    play: list[CardSpec] = Field(default_factory=list)
    seats: list[SeatSpec]
    deck: int = 0


def _traits(d: ImageDraw.ImageDraw, x: int, y: int, traits: list[str]) -> int:
    for t in traits:
        d.rectangle((x, y, x + 26, y + 26), fill=TRAIT.get(t, MUTED), outline=INK)
        ink = INK if t == "Y" else (255, 255, 255)
        d.text((x + 13, y + 13), t, font=font(20), fill=ink, anchor="mm")
        x += 30
    return x


def _card(d: ImageDraw.ImageDraw, box: tuple[int, int, int, int], c: CardSpec, fill: RGB) -> None:
    x0, y0, x1, _ = box
    d.rounded_rectangle(box, radius=10, fill=fill, outline=MUTED)
    d.text((x0 + 10, y0 + 6), ascii_text(c.name)[:18], font=font(24), fill=INK)
    x = _traits(d, x0 + 10, y0 + 38, c.traits)
    if c.points:
        d.text((x1 - 10, y0 + 40), f"{c.points} pts", font=font(22), fill=INK, anchor="ra")
    del x


def draw(raw: dict[str, Any]) -> bytes:
    spec = TableSpec.model_validate(raw)
    plays = (len(spec.play) + 1) // 2
    height = PAD + 44 + (CARD_H + PAD) * (1 + plays) + ROW_H * len(spec.seats) + PAD
    image = Image.new("RGB", (WIDTH, height), BACKGROUND)
    d = ImageDraw.Draw(image)
    d.text((PAD, PAD), ascii_text(spec.title), font=font(32), fill=INK)
    d.text((WIDTH - PAD, PAD + 6), f"deck {spec.deck}", font=font(26), fill=MUTED, anchor="ra")
    y = PAD + 44
    half = (WIDTH - 3 * PAD) // 2
    if spec.alien is not None:
        d.text((PAD, y + 20), "Alien:", font=font(26), fill=INK)
        _card(d, (PAD + 90, y, PAD + 90 + half, y + CARD_H), spec.alien, ALIEN)
    else:
        d.text((PAD, y + 20), "No alien to capture now", font=font(26), fill=MUTED)
    y += CARD_H + PAD
    for i, c in enumerate(spec.play):
        x0 = PAD + (i % 2) * (half + PAD)
        top = y + (i // 2) * (CARD_H + PAD)
        _card(d, (x0, top, x0 + half, top + CARD_H), c, PLAY)
    y += plays * (CARD_H + PAD)
    for seat in spec.seats:
        if seat.awaited:
            d.rectangle((0, y, WIDTH, y + ROW_H - 6), fill=CURRENT)
        d.text((PAD, y + 6), label_of(seat.label, seat.seat), font=font(30), fill=INK)
        tail = f"{seat.score} pts - {seat.captured} in jail"
        d.text((WIDTH - PAD, y + 8), tail, font=font(26), fill=INK, anchor="ra")
        x = PAD
        for hero in seat.heroes:
            name = ascii_text(hero.name)[:18]
            width = int(max(d.textlength(name, font=font(22)), 30 * len(hero.traits)))
            if x + width > WIDTH - PAD:
                break
            d.text((x, y + 46), name, font=font(22), fill=INK)
            _traits(d, x, y + 76, hero.traits)
            x += width + 22
        if not seat.heroes:
            d.text((PAD, y + 56), "no heroes", font=font(24), fill=MUTED)
        y += ROW_H
    return flat_png(image)

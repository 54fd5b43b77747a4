"""The end-of-game chart: how the game went, as a line per player (Pillow, PNG).

Drawn from a JSON spec (the outcome's ``progress`` and the players' labels), so equal specs
draw identical bytes and the picture cache can key on the spec. Each line has its own colour
and its own marker, so the chart reads without telling colours apart. Text is ASCII: the font
bundled with Pillow has no other glyphs.
"""

from __future__ import annotations

import io
import unicodedata
from typing import Any

from PIL import Image, ImageDraw
from pydantic import BaseModel

from games.drawing import font

WIDTH, HEIGHT = 720, 360
RGB = tuple[int, int, int]
BACKGROUND: RGB = (251, 246, 236)
INK: RGB = (40, 36, 32)
GRID: RGB = (222, 212, 196)
MUTED: RGB = (130, 120, 108)
COLOURS: list[RGB] = [
    (31, 104, 196),
    (214, 39, 40),
    (44, 140, 80),
    (232, 150, 20),
    (122, 70, 170),
    (0, 150, 160),
    (200, 80, 150),
    (110, 90, 60),
]
MARKERS = ("circle", "square", "triangle", "diamond")
LEFT, RIGHT, TOP, BOTTOM = 56, 180, 34, 40  # margins around the plot


class ChartSpec(BaseModel):
    """Exactly what the chart shows."""

    title: str
    progress: list[dict[str, int]]  # the running score of each key after each round
    labels: dict[str, str]  # key → what the legend calls it (ASCII)
    round_word: str = "round"  # the x axis: "round", "service"…


def plain(text: str) -> str:
    """``text`` in the characters the bundled font can draw (Café → Cafe; emoji dropped)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if 32 <= ord(c) < 127).strip()


def ascii_label(text: str, fallback: str) -> str:
    return (plain(text) or fallback)[:18]


def draw_chart(spec: dict[str, Any]) -> bytes:
    """The PNG of a :class:`ChartSpec`."""
    chart = ChartSpec.model_validate(spec)
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    pen = ImageDraw.Draw(image)
    pen.text((LEFT, 8), plain(chart.title)[:60], fill=INK, font=font(16))
    keys = list(chart.labels)
    values = [row.get(k, 0) for row in chart.progress for k in keys] or [0]
    low, high = min(0, *values), max(1, *values)
    rounds = max(1, len(chart.progress))
    x0, x1, y0, y1 = LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM

    def at(index: int, value: int) -> tuple[float, float]:
        x = x0 + (x1 - x0) * (index / rounds)
        y = y1 - (y1 - y0) * ((value - low) / (high - low))
        return x, y

    small = font(12)
    for tick in _ticks(low, high):
        _, y = at(0, tick)
        pen.line([(x0, y), (x1, y)], fill=GRID, width=1)
        pen.text((x0 - 6, y), str(tick), fill=MUTED, font=small, anchor="rm")
    for index in range(rounds + 1):
        x, _ = at(index, low)
        pen.line([(x, y1), (x, y1 + 4)], fill=MUTED, width=1)
        if rounds <= 12 or index % 2 == 0:
            pen.text((x, y1 + 6), str(index), fill=MUTED, font=small, anchor="ma")
    pen.line([(x0, y1), (x1, y1)], fill=INK, width=2)
    pen.line([(x0, y0), (x0, y1)], fill=INK, width=2)
    pen.text(
        ((x0 + x1) / 2, HEIGHT - 14),
        f"after each {chart.round_word}",
        fill=MUTED,
        font=small,
        anchor="mm",
    )

    for n, key in enumerate(keys):
        colour, marker = COLOURS[n % len(COLOURS)], MARKERS[n % len(MARKERS)]
        points = [at(0, 0)] + [at(i + 1, row.get(key, 0)) for i, row in enumerate(chart.progress)]
        pen.line(points, fill=colour, width=3, joint="curve")
        for x, y in points[1:]:
            _marker(pen, marker, x, y, colour)
        ly = TOP + 10 + n * 24
        _marker(pen, marker, x1 + 24, ly, colour)
        pen.line([(x1 + 12, ly), (x1 + 36, ly)], fill=colour, width=3)
        label = ascii_label(chart.labels[key], f"P{n + 1}")
        pen.text((x1 + 44, ly), label, fill=INK, font=font(13), anchor="lm")
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _ticks(low: int, high: int) -> list[int]:
    span = high - low
    step = 1
    for candidate in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000):
        step = candidate
        if span / candidate <= 6:
            break
    first = (low // step) * step
    return [t for t in range(first, high + step, step) if low <= t <= high]


def _marker(pen: ImageDraw.ImageDraw, kind: str, x: float, y: float, colour: RGB) -> None:
    r = 5
    if kind == "circle":
        pen.ellipse([(x - r, y - r), (x + r, y + r)], fill=colour, outline=INK)
    elif kind == "square":
        pen.rectangle([(x - r, y - r), (x + r, y + r)], fill=colour, outline=INK)
    elif kind == "triangle":
        pen.polygon(
            [(x, y - r - 1), (x + r + 1, y + r), (x - r - 1, y + r)], fill=colour, outline=INK
        )
    else:
        pen.polygon(
            [(x, y - r - 1), (x + r + 1, y), (x, y + r + 1), (x - r - 1, y)],
            fill=colour,
            outline=INK,
        )

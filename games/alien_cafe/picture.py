"""The end-of-service picture: every player's 4×4 tray with each tile's condition met or failed.

Drawn with Pillow from a JSON spec only (see :func:`results_spec`), with the font bundled in
Pillow, so equal specs give identical PNG bytes on every machine. Met and failed are told apart
by shape and symbol, not only by colour (a round badge with a tick, a square badge with a cross;
Jokers a diamond with 0), and every tile carries its type in words.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from games.alien_cafe.catalogue import TILES
from games.alien_cafe.scoring import evaluate
from games.alien_cafe.state import SIDE, TARGET, AlienCafeState
from games.drawing import flat_png, font, label_of
from games.presentation import player

WIDTH = 800
MARGIN = 16
GAP = 4  # between cells
TITLE_H = 50
HEADER_H = 36
FOOTER_H = 28
LEGEND_H = 44
BLOCK_W = (WIDTH - 3 * MARGIN) // 2
CELL = (BLOCK_W - (SIDE - 1) * GAP) // SIDE
GRID = SIDE * CELL + (SIDE - 1) * GAP
BLOCK_H = HEADER_H + GRID + FOOTER_H

INK, PAPER, EMPTY = (33, 33, 33), (250, 248, 242), (226, 224, 218)
MET, FAILED, JOKER = (30, 132, 73), (192, 57, 43), (110, 110, 110)
# Fill colours by tile type (the rulebook's: orange mains, green desserts, yellow drinks).
FILL: dict[str, tuple[int, int, int]] = {
    "purple": (142, 68, 173),
    "green": (39, 174, 96),
    "blue": (41, 128, 185),
    "orange": (230, 126, 34),
    "main": (245, 176, 65),
    "dessert": (171, 235, 198),
    "drink": (249, 231, 159),
    "alien": (127, 140, 141),  # special aliens (no colour)
    "order": (215, 189, 160),  # special orders (no category)
    "seasoning": (245, 183, 206),
    "joker": (200, 200, 200),
}
DARK_FILLS = {"purple", "green", "blue", "orange", "alien"}  # white text on these


# -- the spec --------------------------------------------------------------------------------------
def _short_name(tile_id: str) -> str:
    t = TILES[tile_id]
    if t.joker:
        return "Joker"
    if t.type is not None:
        return t.type.capitalize()
    return t.name.split()[0]  # Seasoning, Grumpy, Hungry, Glutton, Sharing, Banquet


def results_spec(state: AlienCafeState) -> dict[str, Any]:
    """The picture's spec for the last service: faces and marks only (never tile ids); players
    as tokens, which front ends write as names."""
    result = state.results[-1]
    trays = []
    for seat_no, pid in enumerate(state.players, start=1):
        record = state.last_trays[pid]
        ev = evaluate(record.tray, record.jokers, record.house, record.in_hand)
        cells: list[dict[str, Any] | None] = []
        for cell, tid in enumerate(record.tray):
            if tid is None:
                cells.append(None)
                continue
            t = TILES[tid]
            fill = "joker" if t.joker else t.type or t.kind
            cond = f"= {record.jokers.get(tid, '?')}" if t.joker else t.cond.words()
            name = _short_name(tid)
            cells.append({"fill": fill, "name": name, "cond": cond, "mark": ev.marks[cell]})
        house = [{"cond": TILES[h].cond.words(), "mark": points} for h, points in ev.house]
        trays.append(
            {
                "label": player(pid),  # a token: front ends write the name
                "seat": seat_no,
                "score": ev.total,
                "level": result.levels.get(pid, 0),
                "in_hand": record.in_hand,
                "house": house,
                "cells": cells,
            }
        )
    return {"round": result.round, "success": result.success, "target": TARGET, "trays": trays}


def results_alt(spec: Mapping[str, Any]) -> str:
    """The picture in words (its alt text)."""
    verdict = "succeeded" if spec["success"] else "failed"
    parts = [f"Round {spec['round']}: the service {verdict}."]
    for tray in spec["trays"]:
        marks = [c["mark"] for c in tray["cells"] if c is not None]
        met, failed = marks.count(1), marks.count(-1)
        hand = f", {tray['in_hand']} left in hand" if tray["in_hand"] else ""
        parts.append(f"{tray['label']}: {tray['score']} points ({met} met, {failed} failed{hand}).")
    return " ".join(parts)[:1024]


# -- drawing ---------------------------------------------------------------------------------------
def draw(spec: Mapping[str, Any]) -> bytes:
    trays = spec["trays"]
    columns = 1 if len(trays) == 1 else 2
    rows = (len(trays) + columns - 1) // columns
    height = TITLE_H + rows * (BLOCK_H + MARGIN) + LEGEND_H
    image = Image.new("RGB", (WIDTH, height), PAPER)
    pen = ImageDraw.Draw(image)
    verdict = "succeeded" if spec["success"] else "failed"
    pen.text(
        (MARGIN, 12),
        f"Round {spec['round']}: the service {verdict}  (everyone needs {spec['target']}+)",
        font=font(24),
        fill=INK,
    )
    for index, tray in enumerate(trays):
        row, col = divmod(index, columns)
        x = (WIDTH - BLOCK_W) // 2 if columns == 1 else MARGIN + col * (BLOCK_W + MARGIN)
        y = TITLE_H + row * (BLOCK_H + MARGIN)
        _tray(pen, x, y, tray, spec["target"])
    _legend(pen, height - LEGEND_H + 6)
    return flat_png(image)


def _tray(pen: ImageDraw.ImageDraw, x: int, y: int, tray: Mapping[str, Any], target: int) -> None:
    ok = tray["score"] >= target
    pen.text(
        (x, y + 4),
        f"{label_of(tray['label'], tray['seat'])}: {tray['score']} pts  (level {tray['level']})",
        font=font(22),
        fill=INK,
    )
    _badge(pen, x + BLOCK_W - 30, y + 2, 28, 1 if ok else -1)
    top = y + HEADER_H
    for cell, face in enumerate(tray["cells"]):
        r, c = divmod(cell, SIDE)
        cx, cy = x + c * (CELL + GAP), top + r * (CELL + GAP)
        _cell(pen, cx, cy, face)
    notes = []
    if tray["in_hand"]:
        notes.append(f"{tray['in_hand']} left in hand: -{tray['in_hand']}")
    for rule in tray["house"]:
        notes.append(f"house rule {rule['cond']}: {'+1' if rule['mark'] > 0 else '-1'}")
    if notes:
        pen.text((x, top + GRID + 6), " | ".join(notes), font=font(16), fill=INK)


def _cell(pen: ImageDraw.ImageDraw, x: int, y: int, face: Mapping[str, Any] | None) -> None:
    box = (x, y, x + CELL - 1, y + CELL - 1)
    if face is None:
        pen.rounded_rectangle(box, radius=8, fill=EMPTY)
        return
    fill = FILL.get(face["fill"], FILL["joker"])
    text = (255, 255, 255) if face["fill"] in DARK_FILLS else INK
    pen.rounded_rectangle(box, radius=8, fill=fill, outline=INK, width=1)
    pen.text((x + 6, y + 34), face["name"], font=_fitting(face["name"], (19, 17, 15)), fill=text)
    pen.text((x + 6, y + CELL - 22), face["cond"], font=_fitting(face["cond"]), fill=text)
    _badge(pen, x + CELL - 32, y + 4, 28, face["mark"])


@cache
def _fitting(
    text: str, sizes: tuple[int, ...] = (15, 14, 13, 12, 11)
) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """The largest of ``sizes`` in which ``text`` fits a cell (else the smallest)."""
    for size in sizes:
        if font(size).getlength(text) <= CELL - 10:
            return font(size)
    return font(sizes[-1])


def _badge(pen: ImageDraw.ImageDraw, x: int, y: int, size: int, mark: int | None) -> None:
    """Met: a green disc with a tick. Failed: a red square with a cross. Joker: a grey diamond
    with 0. Shapes differ, so colour is never the only cue."""
    x1, y1 = x + size, y + size
    white = (255, 255, 255)
    w = max(3, size // 8)
    if mark is not None and mark > 0:
        pen.ellipse((x, y, x1, y1), fill=MET, outline=white, width=2)
        pen.line(
            [(x + size * 0.25, y + size * 0.52), (x + size * 0.43, y + size * 0.72)],
            fill=white,
            width=w,
        )
        pen.line(
            [(x + size * 0.43, y + size * 0.72), (x + size * 0.76, y + size * 0.3)],
            fill=white,
            width=w,
        )
    elif mark is not None and mark < 0:
        pen.rectangle((x, y, x1, y1), fill=FAILED, outline=white, width=2)
        inset = size * 0.27
        pen.line([(x + inset, y + inset), (x1 - inset, y1 - inset)], fill=white, width=w)
        pen.line([(x + inset, y1 - inset), (x1 - inset, y + inset)], fill=white, width=w)
    else:
        half = size / 2
        diamond = [(x + half, y), (x1, y + half), (x + half, y1), (x, y + half)]
        pen.polygon(diamond, fill=JOKER, outline=white)
        pen.text((x + half, y + half), "0", font=font(16), fill=white, anchor="mm")


def _legend(pen: ImageDraw.ImageDraw, y: int) -> None:
    x = MARGIN
    for mark, words in ((1, "met: +1"), (-1, "failed: -1"), (0, "Joker: 0")):
        _badge(pen, x, y, 26, mark)
        pen.text((x + 34, y + 3), words, font=font(18), fill=INK)
        x += 190

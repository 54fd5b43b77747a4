"""Alien Café's end-of-service picture: deterministic, small, quick, colour-blind safe, and shown
on the table (with alt text) once a service has ended."""

from __future__ import annotations

import io
import json
import re

from PIL import Image

from games.alien_cafe import GAME
from games.alien_cafe.actions import DoneAction, LevelAction
from games.alien_cafe.picture import (
    BLOCK_W,
    CELL,
    FAILED,
    GAP,
    HEADER_H,
    MARGIN,
    MET,
    TITLE_H,
    WIDTH,
    results_spec,
)
from games.alien_cafe.state import AlienCafeState
from games.engine import apply
from games.presentation import panel_problems, player
from tests.games.test_alien_cafe import (
    ORDER_JOKERS,
    P1,
    P2,
    alien,
    new_game,
    order,
    stack,
    start,
)

P3, P4 = "333", "444"


def served(players: list[str]) -> AlienCafeState:
    """A service ended with known trays: P1's purple alien and its main (met), a blue alien that
    wants a drink (failed), a Joker; the others empty-handed."""
    state = start(players)
    stack(
        state,
        P1,
        {
            0: alien("purple", "main"),
            1: order("main", "purple"),
            2: ORDER_JOKERS,
            15: alien("blue", "drink"),
        },
        hand=[alien("green", "drink")],
    )
    for pid in players:
        state = apply(GAME, state, pid, DoneAction())
    assert state.phase == "levels"
    return state


def rgb_at(png: bytes, x: int, y: int) -> tuple[int, int, int]:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    pixel = image.getpixel((x, y))
    assert isinstance(pixel, tuple)
    return (int(pixel[0]), int(pixel[1]), int(pixel[2]))


def close(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    return sum(abs(p - q) for p, q in zip(a, b, strict=True)) < 45


def badge_point(cell: int) -> tuple[int, int]:
    """A point inside the badge of P1's tray cell (both badge shapes cover it, off the symbol)."""
    row, col = divmod(cell, 4)
    x = MARGIN + col * (CELL + GAP) + CELL - 32 + 14
    y = TITLE_H + HEADER_H + row * (CELL + GAP) + 4 + 4
    return x, y


def test_the_table_shows_the_last_service_as_a_picture_with_alt_text() -> None:
    state = served([P1, P2])
    table = GAME.panel(state, None)
    assert table.image is not None and panel_problems(table) == []
    assert table.image.name == "service-1.png"
    alt = table.image.alt
    assert alt.startswith("Round 1: the service failed.")
    # Players are tokens, which front ends write as names. +1 +1 −1 −1, the Joker 0:
    assert f"{player(P1)}: 0 points (2 met, 1 failed, 1 left in hand)." in alt
    assert f"{player(P2)}: -6 points (0 met, 0 failed, 6 left in hand)." in alt
    # The text stays as the fallback: the results announcement has every tray as a grid.
    assert "✅" in state.announcements[-1].fields[0].value
    # Faces and marks only: no tile id in the spec.
    assert not re.search(r"\b[AOX]\d\d\b", json.dumps(table.image.spec))
    cells = table.image.spec["trays"][0]["cells"]
    assert cells[0] == {"fill": "purple", "name": "Purple", "cond": "wants main", "mark": 1}
    assert cells[2]["name"] == "Joker" and cells[2]["mark"] == 0
    assert cells[15]["mark"] == -1 and cells[3] is None
    # During the next service the table shows live trays instead.
    for pid in state.players:
        state = apply(GAME, state, pid, LevelAction(level=0))
    assert GAME.panel(state, None).image is None


def test_the_picture_is_deterministic_and_small() -> None:
    # How quick it is, is measured by hand (bench/pictures.py): a test never times anything.
    state = served([P1, P2, P3, P4])
    spec = results_spec(state)
    first = GAME.draw(spec)
    again = GAME.draw(json.loads(json.dumps(spec)))  # an equal spec, e.g. from the database
    assert first == again and first.startswith(b"\x89PNG")
    image = Image.open(io.BytesIO(first))
    assert image.width == 800 and 800 < image.height < 1100
    assert len(first) < 80_000


def test_met_and_failed_tiles_are_drawn_as_such() -> None:
    state = served([P1])
    spec = results_spec(state)
    png = GAME.draw(spec)
    # The solo tray is centred.
    offset = (WIDTH - BLOCK_W) // 2 - MARGIN
    marks = [c["mark"] if c else None for c in spec["trays"][0]["cells"]]
    assert marks[0] == 1 and marks[15] == -1
    for cell, colour in ((0, MET), (1, MET), (15, FAILED)):
        x, y = badge_point(cell)
        assert close(rgb_at(png, x + offset, y), colour), cell


def test_met_and_failed_differ_in_shape_not_only_in_colour() -> None:
    """Colour-blind safe: in greyscale, a met and a failed badge still look different."""
    from PIL import ImageDraw

    from games.alien_cafe.picture import _badge

    def badge(mark: int) -> list[bool]:
        """Light and dark pixels of the badge in greyscale (the fills have about the same
        lightness, so only the shapes can tell the badges apart)."""
        image = Image.new("RGB", (40, 40), (255, 255, 255))
        _badge(ImageDraw.Draw(image), 6, 6, 28, mark)
        return [v > 160 for v in image.convert("L").tobytes()]

    met, failed, joker = badge(1), badge(-1), badge(0)
    differ = sum(a != b for a, b in zip(met, failed, strict=True))
    assert differ > 0.1 * len(met)
    assert sum(a != b for a, b in zip(met, joker, strict=True)) > 0.1 * len(met)


def test_a_new_game_has_no_picture_yet() -> None:
    state = new_game([P1, P2])
    assert GAME.panel(state, None).image is None

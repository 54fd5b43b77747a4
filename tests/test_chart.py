"""The end-of-game chart: a PNG drawn from its spec alone, the same bytes for the same spec."""

from __future__ import annotations

import io

from PIL import Image

from bot.adapter.chart import WIDTH, ascii_label, draw_chart


def test_equal_specs_draw_equal_pictures_and_any_name_is_drawable() -> None:
    spec = {
        "title": "Café Carnage - game #3",
        "progress": [{"a": 3, "b": -2}, {"a": 7, "b": 12}, {"a": 9, "b": 12}],
        "labels": {"a": "Zoë 🎲", "b": "🎲🎲"},
    }
    first = draw_chart(spec)
    assert first == draw_chart(dict(spec))
    image = Image.open(io.BytesIO(first))
    assert image.format == "PNG" and image.size[0] == WIDTH
    assert draw_chart(spec | {"progress": [{"a": 3, "b": -2}]}) != first
    assert ascii_label("Zoë 🎲", "P1") == "Zoe" and ascii_label("🎲🎲", "P2") == "P2"


def test_a_table_line_and_a_long_game_draw() -> None:
    table = {"title": "Alien Café", "progress": [{"table": n * 3} for n in range(40)]}
    assert draw_chart(table | {"labels": {"table": "Table"}}).startswith(b"\x89PNG")
    assert draw_chart({"title": "x", "progress": [], "labels": {}}).startswith(b"\x89PNG")

"""How games build panels cheaply: the buttons grouped_controls keeps for options a game keeps."""

from __future__ import annotations

from games.kit import grouped_controls
from games.presentation import Button, Option


def test_kept_options_get_the_same_buttons_back() -> None:
    def options(picked: str) -> list[Option]:
        return [
            Option(label=name, action={"type": "pick", "card": name}, default=name == picked)
            for name in ("a", "b", "c")
        ]

    kept = options("b")
    first = grouped_controls([("Choose", kept)])
    again = grouped_controls([("Choose", kept)])
    assert all(x is y for x, y in zip(first, again, strict=True))  # drawn once
    fresh = grouped_controls([("Choose", options("b"))])  # equal options, new objects
    assert fresh == first and not any(x is y for x, y in zip(first, fresh, strict=True))
    assert [c.style for c in first if isinstance(c, Button)] == [
        "secondary",
        "primary",
        "secondary",
    ]
    other = grouped_controls([("Choose", options("c"))])
    assert [c.style for c in other if isinstance(c, Button)] == [
        "secondary",
        "secondary",
        "primary",
    ]


def test_a_kept_group_gets_its_row_back_and_a_changed_one_is_drawn_anew() -> None:
    def options(picked: str) -> tuple[Option, ...]:
        return tuple(
            Option(label=name, action={"type": "pick", "card": name}, default=name == picked)
            for name in ("a", "b", "c")
        )

    menu, hand = options("b"), options("")
    first = grouped_controls([("Menu", menu), ("Hand", hand)])
    again = grouped_controls([("Menu", menu), ("Hand", hand)])
    assert all(x is y for x, y in zip(first, again, strict=True))  # both rows kept
    assert [c.row for c in first] == [0, 0, 0, 1, 1, 1]
    # A pick in the hand: its row is drawn from the new tuple, the menu's row stays.
    picked = options("c")
    after = grouped_controls([("Menu", menu), ("Hand", picked)])
    assert all(x is y for x, y in zip(first[:3], after[:3], strict=True))
    assert [c.style for c in after[3:] if isinstance(c, Button)] == [
        "secondary",
        "secondary",
        "primary",
    ]
    assert [c.row for c in after] == [0, 0, 0, 1, 1, 1]
    # The same tuple where another layout puts it (no row of its own) is not the kept row.
    flowing = grouped_controls([("Menu", menu)] + [(str(n), options("")) for n in range(5)])
    assert [c.row for c in flowing[:3]] == [None, None, None]
    assert flowing[:3] == [b.model_copy(update={"row": None}) for b in first[:3]]

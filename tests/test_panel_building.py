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

"""How games build panels cheaply: the buttons grouped_controls keeps for options a game keeps."""

from __future__ import annotations

from games import kit
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


def test_a_group_let_go_is_never_taken_for_a_new_one_at_its_address() -> None:
    # The kit keeps drawings by their source's id: it keeps each source alive with them, so a
    # new tuple of options can never reuse the address of one drawn before and get its buttons.
    for n in range(300):
        options = tuple(
            Option(label=f"{n}-{i}", action={"type": "pick", "n": n, "i": i}) for i in range(3)
        )
        drawn = grouped_controls([("Choose", options)])
        assert [c.label for c in drawn if isinstance(c, Button)] == [f"{n}-{i}" for i in range(3)]
        del options, drawn


def test_a_made_model_is_the_validated_one() -> None:
    values = {
        "label": "Soup",
        "action": {"type": "pick", "card": "S01"},
        "description": "",
        "emoji": "🥣",
        "default": True,
    }
    fields_set = {"label", "action", "emoji", "default"}
    made = kit.made(Option, dict(values), fields_set)
    validated = Option(
        label="Soup", action={"type": "pick", "card": "S01"}, emoji="🥣", default=True
    )
    assert made == validated and repr(made) == repr(validated)
    assert made.model_dump_json() == validated.model_dump_json()
    assert made.model_fields_set == validated.model_fields_set


def test_a_drawn_button_is_the_validated_one() -> None:
    options = (
        Option(label="a", action={"type": "pick", "card": "a"}, emoji="🥣"),
        Option(label="b", action={"type": "pick", "card": "b"}, default=True),
    )
    drawn = grouped_controls([("Choose", options)], style="danger")
    validated = [
        Button(label="a", action={"type": "pick", "card": "a"}, emoji="🥣", style="danger", row=0),
        Button(label="b", action={"type": "pick", "card": "b"}, emoji=None, style="primary", row=0),
    ]
    assert drawn == validated and [repr(b) for b in drawn] == [repr(b) for b in validated]
    assert [b.model_dump_json() for b in drawn] == [b.model_dump_json() for b in validated]
    assert [b.model_fields_set for b in drawn] == [b.model_fields_set for b in validated]

"""How games build panels cheaply: kit.made (no validation) and the buttons grouped_controls
keeps for options a game keeps. Every game's panels are checked against validation in
tests/test_game_properties.py; these check the helpers themselves."""

from __future__ import annotations

import pytest

from games.kit import grouped_controls, made
from games.presentation import Button, Option, Panel, PanelField


def test_made_is_what_validation_gives() -> None:
    action = {"type": "pick", "card": "S1"}
    built = made(Button, label="Soup", action=action, style="primary", row=2)
    assert built == Button(label="Soup", action=action, style="primary", row=2)
    assert (
        built.model_dump_json()
        == Button(label="Soup", action=action, style="primary", row=2).model_dump_json()
    )
    panel = made(Panel, title="t", fields=[made(PanelField, name="n", value="v")])
    assert panel == Panel.model_validate(panel.model_dump())
    # A default made by a factory is made afresh for each model, as validation does.
    assert made(Panel, title="a").controls is not made(Panel, title="b").controls


@pytest.mark.parametrize(
    "fields",
    [
        {"label": "Soup"},  # no action
        {"label": "Soup", "action": {}, "colour": 1},  # not a Button's field
    ],
)
def test_made_refuses_what_the_model_does_not_have(fields: dict[str, object]) -> None:
    with pytest.raises(TypeError):
        made(Button, **fields)


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

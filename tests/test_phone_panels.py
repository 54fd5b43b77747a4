"""Panels a phone shows well: phone_problems' rules, and kit.grouped_controls keeping choices
as buttons (one tap) while they fit, folding only the largest groups into selects."""

from __future__ import annotations

from games.kit import grouped_controls
from games.presentation import (
    Button,
    Option,
    Panel,
    Select,
    layout_rows,
    panel_problems,
    phone_problems,
)


def options(n: int, prefix: str = "o") -> list[Option]:
    return [Option(label=f"{prefix}{i}", action={"type": prefix, "n": i}) for i in range(n)]


def test_a_label_a_phone_cuts_short_and_a_select_of_few_choices_are_found() -> None:
    short = Button(label="Seat → T1", action={"type": "seat"})
    long = Button(label="Capture Glitch Gloop: Captain Pancake + Waffle Wizard", action={})
    few = Select(placeholder="Pick", options=options(3))
    many = Select(placeholder="Pick", options=options(6))
    panel = Panel(title="t", controls=[short, long, few, many])
    assert panel_problems(panel) == []  # Discord takes all of it
    problems = phone_problems(panel)
    assert len(problems) == 2
    assert "cut short on a phone" in problems[0] and "Capture Glitch" in problems[0]
    assert "hides 3 choices" in problems[1]
    # A name counts at a typical 12 characters: a button naming a player is fine.
    assert phone_problems(Panel(title="t", controls=[Button(label="🎁 {p:1234}", action={})])) == []


def test_a_v2_message_without_room_for_the_buttons_may_keep_its_select() -> None:
    grid = [Button(label="·", action={"cell": i}, row=i // 5) for i in range(35)]
    few = Select(placeholder="Pick", options=options(3), row=7)
    full = Panel(title="t", controls=[*grid, few], layout="components")  # 2+7+35+1+1 = 46
    roomy = Panel(title="t", controls=[*grid[:20], few], layout="components")
    assert "hides 3 choices" in phone_problems(roomy)[0]
    assert not [p for p in phone_problems(full) if "hides" in p]


def test_groups_stay_buttons_while_they_fit_each_from_a_row_of_its_own() -> None:
    done = Button(label="Done", action={"type": "done"}, style="success")
    controls = grouped_controls([("a", options(3, "a")), ("b", options(4, "b"))], tail=[done])
    assert all(isinstance(c, Button) for c in controls)
    rows = layout_rows(controls)
    assert [[c.label for c in r] for r in rows] == [
        ["a0", "a1", "a2"],
        ["b0", "b1", "b2", "b3"],
        ["Done"],
    ]


def test_the_choice_made_so_far_stands_out_as_a_primary_button() -> None:
    a = options(3, "a")
    a[1] = a[1].model_copy(update={"default": True})
    controls = grouped_controls([("a", a), ("b", options(2, "b"))])
    assert [(c.label, c.style) for c in controls if isinstance(c, Button)] == [
        ("a0", "secondary"),
        ("a1", "primary"),
        ("a2", "secondary"),
        ("b0", "secondary"),
        ("b1", "secondary"),
    ]


def test_the_largest_group_folds_into_a_select_only_when_buttons_do_not_fit() -> None:
    done = Button(label="Done", action={"type": "done"})
    groups = [("a", options(5, "a")), ("b", options(12, "b")), ("c", options(8, "c"))]
    controls = grouped_controls(groups, tail=[done])
    selects = [c for c in controls if isinstance(c, Select)]
    assert [s.placeholder for s in selects] == ["b"]  # 5 + 8 + 1 buttons flow in 3 rows
    assert len(layout_rows(controls)) <= 5
    assert panel_problems(Panel(title="t", controls=controls)) == []
    # Groups of 5 or fewer never fold: a select would take a row as they do.
    small = [(str(i), options(5, f"g{i}")) for i in range(6)]
    folded = grouped_controls(small)
    assert not any(isinstance(c, Select) and len(c.options) <= 5 for c in folded)

"""Discord-free presentation models.

A game turns a view into a :class:`Panel`: a title, text, fields and controls, each control carrying
the exact action JSON it submits. The bot translates panels into embeds and components without
knowing any rule; the CLI prints them. Text may name players with ``{p:PLAYER_ID}`` tokens, which
each front end replaces (Discord: a mention in text, the display name in labels).

Discord's limits are checked here by :func:`panel_problems`, so a game's tests catch a panel that
Discord would reject long before the emulator does.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field

Style = Literal["primary", "secondary", "success", "danger"]

MAX_TITLE = 256
MAX_DESCRIPTION = 4096
MAX_FIELDS = 25
MAX_FIELD_NAME = 256
MAX_FIELD_VALUE = 1024
MAX_FOOTER = 2048
MAX_EMBED_TOTAL = 6000
MAX_ROWS = 5
MAX_BUTTONS_PER_ROW = 5
MAX_OPTIONS = 25
MAX_LABEL = 80
MAX_OPTION_DESCRIPTION = 100
MAX_PLACEHOLDER = 150

PLAYER_TOKEN = re.compile(r"\{p:([^{}]+)\}")


def player(player_id: str) -> str:
    """The token that front ends replace with a player's mention or name."""
    return f"{{p:{player_id}}}"


class PanelField(BaseModel):
    name: str
    value: str
    inline: bool = False


class Button(BaseModel):
    kind: Literal["button"] = "button"
    label: str
    action: dict[str, Any]
    style: Style = "secondary"
    emoji: str | None = None
    disabled: bool = False
    row: int | None = None  # 0-4; None packs buttons left to right


class Option(BaseModel):
    label: str
    action: dict[str, Any]
    description: str = ""
    emoji: str | None = None
    default: bool = False


class Select(BaseModel):
    kind: Literal["select"] = "select"
    placeholder: str
    options: list[Option]
    disabled: bool = False
    row: int | None = None  # a select fills a whole row


Control = Button | Select


class Panel(BaseModel):
    """One message's worth of content: an embed plus its controls."""

    title: str
    description: str = ""
    fields: list[PanelField] = Field(default_factory=list)
    colour: int | None = None
    footer: str = ""
    controls: list[Control] = Field(default_factory=list)
    # Changes when the panel deserves a new message instead of an edit (e.g. a new round's menu).
    stamp: str = ""


class Announcement(BaseModel):
    """A public event worth a new channel message (round results, whose turn, final standings)."""

    title: str
    description: str = ""
    fields: list[PanelField] = Field(default_factory=list)
    colour: int | None = None
    ping: list[str] = Field(default_factory=list)  # players to notify (mentioned in content)


def layout_rows(controls: list[Control]) -> list[list[Control]]:
    """Lay controls out in Discord action rows: a select alone in its row, buttons five a row.

    Controls with an explicit ``row`` go in that row; the rest fill rows in order after them.
    """
    rows: list[list[Control]] = [[] for _ in range(MAX_ROWS)]
    free: list[Control] = []
    for control in controls:
        if control.row is not None and 0 <= control.row < MAX_ROWS:
            rows[control.row].append(control)
        else:
            free.append(control)
    index = 0
    for control in free:
        while index < MAX_ROWS and not _fits(rows[index], control):
            index += 1
        if index >= MAX_ROWS:
            rows.append([control])  # overflow: panel_problems reports it
            continue
        rows[index].append(control)
    return [row for row in rows if row]


def _fits(row: list[Control], control: Control) -> bool:
    if isinstance(control, Select):
        return not row
    return all(isinstance(c, Button) for c in row) and len(row) < MAX_BUTTONS_PER_ROW


def embed_length(title: str, description: str, fields: list[PanelField], footer: str) -> int:
    return (
        len(title)
        + len(description)
        + len(footer)
        + sum(len(f.name) + len(f.value) for f in fields)
    )


def panel_problems(panel: Panel | Announcement) -> list[str]:
    """Everything in ``panel`` that Discord would reject (empty list when it is fine).

    Player tokens are counted at 32 characters, the longest display name we render.
    """

    def size(text: str) -> int:
        return len(PLAYER_TOKEN.sub("x" * 32, text))

    problems: list[str] = []
    footer = panel.footer if isinstance(panel, Panel) else ""
    if not panel.title or size(panel.title) > MAX_TITLE:
        problems.append(f"title empty or over {MAX_TITLE}")
    if size(panel.description) > MAX_DESCRIPTION:
        problems.append(f"description over {MAX_DESCRIPTION}")
    if len(panel.fields) > MAX_FIELDS:
        problems.append(f"{len(panel.fields)} fields (max {MAX_FIELDS})")
    for f in panel.fields:
        if not f.name or size(f.name) > MAX_FIELD_NAME:
            problems.append(f"field name {f.name!r} empty or too long")
        if not f.value or size(f.value) > MAX_FIELD_VALUE:
            problems.append(f"field {f.name!r} value empty or over {MAX_FIELD_VALUE}")
    total = size(panel.title) + size(panel.description) + size(footer)
    total += sum(size(f.name) + size(f.value) for f in panel.fields)
    if total > MAX_EMBED_TOTAL:
        problems.append(f"embed has {total} characters (max {MAX_EMBED_TOTAL})")
    if isinstance(panel, Panel):
        rows = layout_rows(panel.controls)
        if len(rows) > MAX_ROWS:
            problems.append(f"{len(rows)} action rows (max {MAX_ROWS})")
        for row in rows:
            if len(row) > MAX_BUTTONS_PER_ROW:
                problems.append("a row holds more than 5 buttons")
            if any(isinstance(c, Select) for c in row) and len(row) > 1:
                problems.append("a select shares its row")
        for control in panel.controls:
            if isinstance(control, Button):
                if not control.label or size(control.label) > MAX_LABEL:
                    problems.append(f"button label {control.label!r} empty or too long")
            else:
                if not 1 <= len(control.options) <= MAX_OPTIONS:
                    problems.append(f"select has {len(control.options)} options (1-{MAX_OPTIONS})")
                if len(control.placeholder) > MAX_PLACEHOLDER:
                    problems.append("select placeholder too long")
                actions = [repr(sorted(o.action.items())) for o in control.options]
                if len(set(actions)) != len(actions):
                    problems.append(f"select {control.placeholder!r} offers the same move twice")
                for option in control.options:
                    if not option.label or size(option.label) > MAX_LABEL:
                        problems.append(f"option label {option.label!r} empty or too long")
                    if len(option.description) > MAX_OPTION_DESCRIPTION:
                        problems.append(f"option description {option.description!r} too long")
    return problems

"""Discord-free presentation models.

A game turns a view into a :class:`Panel`: a title, text, fields and controls, each control carrying
the exact action JSON it submits. The bot translates panels into embeds and components without
knowing any rule; the CLI prints them. Text may name players with ``{p:PLAYER_ID}`` tokens, which
each front end replaces (Discord: a mention in text, the display name in labels).

Discord's limits are checked here by :func:`panel_problems`, so a game's tests catch a panel that
Discord would reject long before the emulator does; :func:`phone_problems` checks what Discord
accepts but a phone shows badly (most players play on one): a button label a phone cuts short, a
select hiding a few choices that buttons would show in its place.
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
MAX_EMBEDS = 10  # per message; MAX_EMBED_TOTAL counts across all of them
# Components V2 messages (Panel.layout "components"): no embeds, up to 40 components in all
# (nested ones included) and 4000 characters of text.
MAX_V2_COMPONENTS = 40
MAX_V2_TEXT = 4000
MAX_ALT_TEXT = 1024

# Phones: a button label longer than this is cut short on a phone held upright (a player's name
# counted at a typical 12 characters); a select is for more choices than a row of buttons holds.
MAX_PHONE_LABEL = 40
PHONE_NAME = 12

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


class Picture(BaseModel):
    """An image shown in a panel. The game draws it (``Game.draw(spec)``, PNG); front ends draw
    it only when ``spec`` changed, so equal specs must draw equal pictures."""

    name: str  # file name, e.g. "restaurant-2.png"; unique within one message
    alt: str  # what the picture shows, in words (the accessible description)
    spec: dict[str, Any]  # JSON data the drawing is made from


class Panel(BaseModel):
    """One embed plus its controls (a private panel, or one panel of the table)."""

    title: str
    description: str = ""
    fields: list[PanelField] = Field(default_factory=list)
    colour: int | None = None
    footer: str = ""
    controls: list[Control] = Field(default_factory=list)
    # Changes when the panel deserves a new message instead of an edit (e.g. a new round's menu).
    stamp: str = ""
    image: Picture | None = None
    # "embed": an embed with up to 5 rows of controls below it. "components": a Components V2
    # message (a container of text, the picture and as many rows of controls as fit in 40
    # components), for boards that need more buttons than 5 rows hold.
    layout: Literal["embed", "components"] = "embed"


class Announcement(BaseModel):
    """A public event worth a new channel message (round results, whose turn, final standings)."""

    title: str
    description: str = ""
    fields: list[PanelField] = Field(default_factory=list)
    colour: int | None = None
    ping: list[str] = Field(default_factory=list)  # players to notify (mentioned in content)
    # "event": a message of its own (round results, final standings). "turn": a short notice of
    # whose move it is; front ends keep only the newest one, so turns do not bury the table.
    kind: Literal["event", "turn"] = "event"


def layout_rows(controls: list[Control], max_rows: int = MAX_ROWS) -> list[list[Control]]:
    """Lay controls out in Discord action rows: a select alone in its row, buttons five a row.

    Controls with an explicit ``row`` go in that row; the rest fill rows in order after them.
    """
    return [[controls[i] for i in row] for row in layout_slots(controls, max_rows)]


def layout_slots(controls: list[Control], max_rows: int = MAX_ROWS) -> list[list[int]]:
    """``layout_rows`` as indexes in ``controls`` (front ends name a control by its index)."""
    rows: list[list[int]] = [[] for _ in range(max_rows)]
    free: list[int] = []
    for i, control in enumerate(controls):
        row = control.row
        if row is not None and 0 <= row < max_rows:
            rows[row].append(i)
        else:
            free.append(i)
    index = 0
    for i in free:
        while index < max_rows and not _fits(controls, rows[index], controls[i]):
            index += 1
        if index >= max_rows:
            rows.append([i])  # overflow: panel_problems reports it
            continue
        rows[index].append(i)
    return [row for row in rows if row]


def panel_rows(panel: Panel) -> list[list[Control]]:
    """The panel's controls in rows, as its layout allows."""
    return [[panel.controls[i] for i in row] for row in panel_slots(panel)]


def panel_slots(panel: Panel) -> list[list[int]]:
    """``panel_rows`` as indexes in ``panel.controls``."""
    if panel.layout == "components":
        return layout_slots(panel.controls, max_rows=MAX_V2_COMPONENTS)
    return layout_slots(panel.controls)


def v2_text(panel: Panel) -> str:
    """The text of a Components V2 panel: title as a heading, description, then each field."""
    parts = [f"### {panel.title}"]
    if panel.description:
        parts.append(panel.description)
    parts += [f"**{f.name}**\n{f.value}" for f in panel.fields]
    if panel.footer:
        parts.append(f"-# {panel.footer}")
    return "\n".join(parts)


def v2_component_count(panel: Panel) -> int:
    """Components of a V2 panel: a container, one text display, the picture (a gallery and its
    item), each action row and each control in it."""
    rows = panel_rows(panel)
    return 2 + (2 if panel.image is not None else 0) + len(rows) + sum(len(r) for r in rows)


def _fits(controls: list[Control], row: list[int], control: Control) -> bool:
    if isinstance(control, Select):
        return not row
    return all(isinstance(controls[j], Button) for j in row) and len(row) < MAX_BUTTONS_PER_ROW


def embed_length(title: str, description: str, fields: list[PanelField], footer: str) -> int:
    return (
        len(title)
        + len(description)
        + len(footer)
        + sum(len(f.name) + len(f.value) for f in fields)
    )


def _size(text: str) -> int:
    """Characters once player tokens are replaced by the longest display name we render (32)."""
    return len(PLAYER_TOKEN.sub("x" * 32, text))


def _embed_total(panel: Panel | Announcement) -> int:
    footer = panel.footer if isinstance(panel, Panel) else ""
    total = _size(panel.title) + _size(panel.description) + _size(footer)
    return total + sum(_size(f.name) + _size(f.value) for f in panel.fields)


def table_problems(panels: list[Panel]) -> list[str]:
    """Everything Discord would reject in one message holding ``panels`` as its embeds, with all
    their controls laid out together (empty list when it is fine)."""
    if not panels:
        return ["a message needs at least one panel"]
    problems: list[str] = []
    if len(panels) > MAX_EMBEDS:
        problems.append(f"{len(panels)} embeds (max {MAX_EMBEDS})")
    if any(p.layout != "embed" for p in panels):
        problems.append("a table of several panels uses embeds (layout 'embed')")
    for panel in panels:
        problems += _embed_problems(panel)
    total = sum(_embed_total(p) for p in panels)
    if total > MAX_EMBED_TOTAL:
        problems.append(f"the embeds have {total} characters together (max {MAX_EMBED_TOTAL})")
    names = [p.image.name for p in panels if p.image is not None]
    if len(set(names)) != len(names):
        problems.append("two pictures share a file name")
    return problems + _control_problems([c for p in panels for c in p.controls])


def panel_problems(panel: Panel | Announcement) -> list[str]:
    """Everything in ``panel`` that Discord would reject (empty list when it is fine).

    Player tokens are counted at 32 characters, the longest display name we render.
    """
    problems = _embed_problems(panel)
    if isinstance(panel, Panel) and panel.layout == "components":
        text = _size(v2_text(panel))
        if text > MAX_V2_TEXT:
            problems.append(f"V2 text has {text} characters (max {MAX_V2_TEXT})")
        count = v2_component_count(panel)
        if count > MAX_V2_COMPONENTS:
            problems.append(f"{count} components (max {MAX_V2_COMPONENTS})")
        return problems + _control_problems(panel.controls, max_rows=MAX_V2_COMPONENTS)
    total = _embed_total(panel)
    if total > MAX_EMBED_TOTAL:
        problems.append(f"embed has {total} characters (max {MAX_EMBED_TOTAL})")
    if isinstance(panel, Panel):
        problems += _control_problems(panel.controls)
    return problems


def phone_problems(panels: Panel | list[Panel]) -> list[str]:
    """What Discord accepts but a phone held upright shows badly, in one message (a panel, or a
    table's panels): a button label cut short (over :data:`MAX_PHONE_LABEL` characters), a
    select of a few choices where a row of buttons would fit in its place (a select has its row
    to itself; in a Components V2 message the n buttons take n - 1 more components)."""
    panels = [panels] if isinstance(panels, Panel) else panels
    room = MAX_BUTTONS_PER_ROW
    if len(panels) == 1 and panels[0].layout == "components":
        room = min(room, MAX_V2_COMPONENTS - v2_component_count(panels[0]) + 1)
    problems = []
    for control in (c for panel in panels for c in panel.controls):
        if isinstance(control, Button):
            if len(PLAYER_TOKEN.sub("x" * PHONE_NAME, control.label)) > MAX_PHONE_LABEL:
                problems.append(f"button label {control.label!r} is cut short on a phone")
        elif len(control.options) <= room:
            problems.append(
                f"select {control.placeholder!r} hides {len(control.options)} choices that "
                "buttons would show in its row"
            )
    return problems


def _embed_problems(panel: Panel | Announcement) -> list[str]:
    size = _size
    problems: list[str] = []
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
    if isinstance(panel, Panel) and panel.image is not None:
        if not panel.image.name.endswith(".png") or not panel.image.alt:
            problems.append("a picture needs a .png name and alt text")
        if len(panel.image.alt) > MAX_ALT_TEXT:
            problems.append(f"picture alt text over {MAX_ALT_TEXT}")
    return problems


def _control_problems(controls: list[Control], max_rows: int = MAX_ROWS) -> list[str]:
    size = _size
    problems: list[str] = []
    rows = layout_rows(controls, max_rows)
    if len(rows) > max_rows:
        problems.append(f"{len(rows)} action rows (max {max_rows})")
    for row in rows:
        if len(row) > MAX_BUTTONS_PER_ROW:
            problems.append("a row holds more than 5 buttons")
        if any(isinstance(c, Select) for c in row) and len(row) > 1:
            problems.append("a select shares its row")
    for control in controls:
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

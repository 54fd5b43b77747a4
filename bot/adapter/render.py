"""Panels → embeds and components. Pure translation: no rule is decided here."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import discord

from bot.adapter.items import Items
from games.presentation import (
    MAX_V2_TEXT,
    PLAYER_TOKEN,
    Announcement,
    Button,
    Control,
    Panel,
    PanelField,
    Select,
    panel_rows,
    v2_text,
)

DEFAULT_COLOUR = 0xC8814B  # coffee
STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}


def names_in(text: str, names: Mapping[str, str]) -> str:
    """Replace ``{p:ID}`` tokens with display names (mentions do not render in titles/labels)."""
    if "{p:" not in text:  # most labels and option texts name nobody
        return text
    return PLAYER_TOKEN.sub(lambda m: names.get(m.group(1), "someone"), text)


def jump_link(guild_id: int | None, channel_id: int, message_id: int | None = None) -> str:
    """A link that opens a message (or its channel) in Discord."""
    tail = f"/{message_id}" if message_id is not None else ""
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}{tail}"


def action_key(stamp: str, action: Any) -> str:
    """Names one move offered in one step: a click stays valid while the same move is still
    offered in the same step (other changes to the panel do not outdate it), and a control
    from an earlier step (another stamp) never matches."""
    # A panel offers the same moves version after version: remember their keys, by the
    # move's repr (which, unlike equality, tells 1 from True and 1.0).
    found = (stamp, repr(action))
    key = _ACTION_KEYS.get(found)
    if key is None:
        key = _digest([stamp, action])[:10]
        if len(_ACTION_KEYS) >= ACTION_KEYS_KEPT:
            _ACTION_KEYS.clear()
        _ACTION_KEYS[found] = key
    return key


ACTION_KEYS_KEPT = 50_000
_ACTION_KEYS: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class PanelKeys:
    """The key of every control of a panel (a button's move, a select's placeholder) and of
    every select option, and the enabled moves by key: computed once per panel."""

    controls: list[str]
    options: list[list[str]]
    buttons_by_key: dict[str, dict[str, Any]]
    options_by_key: dict[str, dict[str, Any]]

    @classmethod
    def of(cls, panel: Panel) -> PanelKeys:
        controls: list[str] = []
        options: list[list[str]] = []
        buttons_by_key: dict[str, dict[str, Any]] = {}
        options_by_key: dict[str, dict[str, Any]] = {}
        for control in panel.controls:
            if isinstance(control, Button):
                key = action_key(panel.stamp, control.action)
                controls.append(key)
                options.append([])
                if not control.disabled:
                    buttons_by_key.setdefault(key, control.action)
            else:
                controls.append(action_key(panel.stamp, control.placeholder))
                keys = [action_key(panel.stamp, o.action) for o in control.options]
                options.append(keys)
                if not control.disabled:
                    for key, option in zip(keys, control.options, strict=True):
                        options_by_key.setdefault(key, option.action)
        return cls(controls, options, buttons_by_key, options_by_key)

    def action(self, key: str, *, in_select: bool) -> dict[str, Any] | None:
        """The action of the enabled button (or select option) whose key is ``key``."""
        return (self.options_by_key if in_select else self.buttons_by_key).get(key)


def find_action(panel: Panel, key: str, *, in_select: bool) -> dict[str, Any] | None:
    """The action of the enabled button (or select option) whose key is ``key``, if offered."""
    return PanelKeys.of(panel).action(key, in_select=in_select)


def content_digest(*panels: Panel, extra: str = "") -> str:
    """Changes whenever anything visible in the panels changes."""
    h = hashlib.sha1(extra.encode())
    for panel in panels:
        h.update(panel.__pydantic_serializer__.to_json(panel))
    return h.hexdigest()[:16]


def merged_controls(panels: list[Panel]) -> Panel:
    """The controls of a table's panels as one panel (its keys use the first panel's stamp),
    as they are laid out under the message and looked up when clicked."""
    return Panel(
        title="controls", stamp=panels[0].stamp, controls=[c for p in panels for c in p.controls]
    )


_CANONICAL = json.JSONEncoder(sort_keys=True)  # json.dumps(…, sort_keys=True), built once


def _digest(value: Any) -> str:
    return hashlib.sha1(_CANONICAL.encode(value).encode()).hexdigest()


def embed_of(
    item: Panel | Announcement,
    names: Mapping[str, str],
    *,
    footer: str = "",
    extra_fields: list[PanelField] | None = None,
) -> discord.Embed:
    embed = discord.Embed(
        title=names_in(item.title, names)[:256],
        description=names_in(item.description, names) or None,
        colour=item.colour if item.colour is not None else DEFAULT_COLOUR,
    )
    for f in [*item.fields, *(extra_fields or [])][:25]:
        embed.add_field(
            name=names_in(f.name, names), value=names_in(f.value, names), inline=f.inline
        )
    text = " · ".join(t for t in (getattr(item, "footer", ""), footer) if t)
    if text:
        embed.set_footer(text=names_in(text, names)[:2048])
    return embed


def control_rows(panel: Panel) -> list[list[tuple[int, Control]]]:
    """The panel's controls laid out in rows, each with its index in ``panel.controls``."""
    index = {id(c): i for i, c in enumerate(panel.controls)}
    return [[(index[id(c)], c) for c in row] for row in panel_rows(panel)]


Row = list[discord.ui.Item[Any]]


def control_items(
    panel: Panel,
    names: Mapping[str, str],
    *,
    session_id: int,
    seat: str,
    items: Items,
    keys: PanelKeys | None = None,
) -> list[Row]:
    """The panel's controls as DynamicItems, row by row. A button's custom_id carries the
    session, the seat, its move's key and its index (unique in the message); a select option's
    value is its move's key."""
    keys = keys or PanelKeys.of(panel)
    rows: list[Row] = []
    for row in control_rows(panel):
        built: Row = []
        for index, control in row:
            key = keys.controls[index]
            custom_id = f"cb:g:{session_id}:{seat}:{key}:{index}"
            if isinstance(control, Button):
                button: discord.ui.Button[discord.ui.View] = discord.ui.Button(
                    label=names_in(control.label, names)[:80],
                    style=STYLES[control.style],
                    emoji=control.emoji,
                    disabled=control.disabled,
                    custom_id=custom_id,
                )
                built.append(items.game_button(button))
            elif isinstance(control, Select):
                select: discord.ui.Select[discord.ui.View] = discord.ui.Select(
                    placeholder=names_in(control.placeholder, names)[:150],
                    custom_id=custom_id,
                    disabled=control.disabled,
                    options=[
                        discord.SelectOption(
                            label=names_in(o.label, names)[:100],
                            value=value,
                            description=names_in(o.description, names)[:100] or None,
                            emoji=o.emoji,
                            default=o.default,
                        )
                        for o, value in zip(control.options[:25], keys.options[index], strict=False)
                    ],
                )
                built.append(items.game_select(select))
        rows.append(built)
    return rows


def game_view(
    panel: Panel,
    names: Mapping[str, str],
    *,
    session_id: int,
    seat: str,
    items: Items,
    extra: list[discord.ui.Item[discord.ui.View]] | None = None,
    keys: PanelKeys | None = None,
) -> discord.ui.View | None:
    """A classic view (rows of buttons and selects under embeds); ``extra`` items (e.g. "Show
    my hand") go in a free row, or at the end of the last row of buttons."""
    view = discord.ui.View(timeout=None)
    rows = control_items(panel, names, session_id=session_id, seat=seat, items=items, keys=keys)
    rows = rows[:5]
    for row_number, row in enumerate(rows):
        for item in row:
            item.row = row_number
            view.add_item(item)
    free_row = len(rows) if len(rows) < 5 else None
    last = rows[-1] if rows else []
    for item in extra or []:
        room = all(isinstance(i, discord.ui.Button) for i in last) and len(last) < 5
        if free_row is None and not room:
            break
        item.row = free_row if free_row is not None else len(rows) - 1
        view.add_item(item)
        if free_row is None:
            last.append(item)
    return view if view.children else None


def layout_view(
    panel: Panel,
    names: Mapping[str, str],
    *,
    session_id: int,
    seat: str,
    items: Items,
    footer: str = "",
    keys: PanelKeys | None = None,
) -> discord.ui.LayoutView:
    """A Components V2 message: the panel's text, its picture and all its rows of controls in
    one container (up to 40 components in all)."""
    text = names_in(v2_text(panel), names)
    if footer:
        text += f"\n-# {names_in(footer, names)}"
    container: discord.ui.Container[discord.ui.LayoutView] = discord.ui.Container(
        accent_colour=panel.colour if panel.colour is not None else DEFAULT_COLOUR
    )
    container.add_item(discord.ui.TextDisplay(text[:MAX_V2_TEXT]))
    if panel.image is not None:
        container.add_item(
            discord.ui.MediaGallery(
                discord.MediaGalleryItem(
                    f"attachment://{panel.image.name}", description=panel.image.alt[:256]
                )
            )
        )
    for row in control_items(
        panel, names, session_id=session_id, seat=seat, items=items, keys=keys
    ):
        container.add_item(discord.ui.ActionRow(*row))
    view = discord.ui.LayoutView(timeout=None)
    view.add_item(container)
    return view


def sendable(view: discord.ui.View | discord.ui.LayoutView | None) -> Any:
    """``send`` takes no ``view=None``; MISSING means "no components"."""
    return view if view is not None else discord.utils.MISSING


def mention_line(players: list[str]) -> str | None:
    return " ".join(f"<@{p}>" for p in players if p.isdigit()) or None

"""Panels → embeds and components. Pure translation: no rule is decided here."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import discord
import orjson

from games.presentation import (
    MAX_V2_TEXT,
    PLAYER_TOKEN,
    Announcement,
    Button,
    Control,
    Panel,
    PanelField,
    Picture,
    Select,
    panel_slots,
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
    # A panel offers the same moves version after version: remember their keys, by the move's
    # JSON (which, unlike equality, tells 1 from True and 1.0, as the key does); orjson writes
    # it 3× faster than repr. What it cannot write (a lone surrogate, a huge int) goes by repr.
    # (It writes a float NaN as null, as no move's JSON holds one: stored moves are JSON.)
    try:
        found: bytes | str = orjson.dumps((stamp, action))
    except TypeError:
        found = repr((stamp, action))
    key = _ACTION_KEYS.get(found)
    if key is None:
        key = _digest([stamp, action])[:10]
        if len(_ACTION_KEYS) >= ACTION_KEYS_KEPT:
            _ACTION_KEYS.clear()
        _ACTION_KEYS[found] = key
    return key


ACTION_KEYS_KEPT = 50_000
_ACTION_KEYS: dict[bytes | str, str] = {}
_NO_OPTIONS: list[str] = []  # a button's option keys (shared: never changed)


# Not frozen, though nothing changes them once made: a frozen dataclass's __init__ sets each field
# through object.__setattr__, several times the cost, and one of each is made per click.
@dataclass(slots=True)
class PanelKeys:
    """The key of every control of a panel (a button's move, a select's placeholder) and of
    every select option, and the enabled moves by key: computed once per panel."""

    controls: list[str]
    options: list[list[str]]
    buttons_by_key: dict[str, dict[str, Any]]
    options_by_key: dict[str, dict[str, Any]]

    @classmethod
    def of(cls, panel: Panel) -> PanelKeys:
        return _keyed_rows(panel, {}, "", None)[0]

    def action(self, key: str, *, in_select: bool) -> dict[str, Any] | None:
        """The action of the enabled button (or select option) whose key is ``key``."""
        return (self.options_by_key if in_select else self.buttons_by_key).get(key)


def find_action(panel: Panel, key: str, *, in_select: bool) -> dict[str, Any] | None:
    """The action of the enabled button (or select option) whose key is ``key``, if offered."""
    return PanelKeys.of(panel).action(key, in_select=in_select)


def with_image(embed: discord.Embed, panel: Panel) -> discord.Embed:
    if panel.image is not None:
        embed.set_image(url=f"attachment://{panel.image.name}")
    return embed


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
    controls = panel.controls
    return [[(i, controls[i]) for i in row] for row in panel_slots(panel)]


class PanelView(discord.ui.View):
    """A classic view whose rows are already Discord's component dicts (see ``raw_rows``).
    It has no discord.ui children: its controls are DynamicItems, which the client matches
    by custom_id (``add_dynamic_items``), so there is nothing to store per message."""

    def __init__(self, rows: list[list[dict[str, Any]]]) -> None:
        super().__init__(timeout=None)
        self.rows = rows

    def to_components(self) -> list[dict[str, Any]]:
        return [{"type": 1, "components": row} for row in self.rows if row]


def raw_rows(
    panel: Panel,
    names: Mapping[str, str],
    *,
    session_id: int,
    seat: str,
    keys: PanelKeys | None = None,
) -> list[list[dict[str, Any]]]:
    """The panel's controls as Discord's component dicts, row by row. A button's custom_id
    carries the session, the seat, its move's key and its index (unique in the message); a
    select option's value is its move's key. Built as discord.ui items (a select of 25 options
    is 27 objects), this was the largest part of drawing a panel; tests/test_raw_components.py
    keeps that builder and checks both send the same for every game's panels."""
    return _keyed_rows(panel, names, f"cb:g:{session_id}:{seat}:", keys)[1]


_STYLE_VALUES = {name: style.value for name, style in STYLES.items()}
_NO_KEYS = PanelKeys([], [], {}, {})  # a panel without controls' (shared: never changed)


def _keyed_rows(
    panel: Panel, names: Mapping[str, str], prefix: str, keys: PanelKeys | None
) -> tuple[PanelKeys, list[list[dict[str, Any]]]]:
    """The panel's keys (``keys`` if given, else computed) and its rows as ``raw_rows`` draws
    them (custom_ids begin with ``prefix``), in one walk of its controls: drawing a panel and
    keying it read the same controls. ``prefix`` empty: the keys only, nothing drawn."""
    stamp, controls = panel.stamp, panel.controls
    given = keys is not None
    if keys is None:
        if controls:
            keys = PanelKeys([""] * len(controls), [_NO_OPTIONS] * len(controls), {}, {})
        else:  # most tables and a player's panel between steps: the same (unchanged) keys
            keys = _NO_KEYS
    control_keys, option_keys = keys.controls, keys.options
    buttons_by_key, options_by_key = keys.buttons_by_key, keys.options_by_key
    draw = bool(prefix)
    rows: list[list[dict[str, Any]]] = []
    # Keys alone need no layout: the controls in their order, as one row.
    for slots in panel_slots(panel) if draw else [range(len(controls))]:
        built: list[dict[str, Any]] = []
        for index in slots:
            control = controls[index]
            if isinstance(control, Button):
                if given:
                    key = control_keys[index]
                else:
                    key = control_keys[index] = action_key(stamp, control.action)
                    if not control.disabled:
                        buttons_by_key.setdefault(key, control.action)
                if not draw:
                    continue
                button: dict[str, Any] = {
                    "type": 2,
                    "style": _STYLE_VALUES[control.style],
                    "disabled": control.disabled,
                }
                label = control.label
                if "{p:" in label:
                    label = names_in(label, names)
                if label:
                    button["label"] = label[:80]
                button["custom_id"] = f"{prefix}{key}:{index}"
                if control.emoji:
                    button["emoji"] = _emoji(control.emoji)
                built.append(button)
            elif isinstance(control, Select):
                if given:
                    key, values = control_keys[index], option_keys[index]
                else:
                    key = control_keys[index] = action_key(stamp, control.placeholder)
                    values = option_keys[index] = [
                        action_key(stamp, o.action) for o in control.options
                    ]
                    if not control.disabled:
                        for value, o in zip(values, control.options, strict=True):
                            options_by_key.setdefault(value, o.action)
                if draw:
                    built.append(_select(control, names, f"{prefix}{key}:{index}", values))
        if draw:
            rows.append(built)
    return keys, rows


def _select(
    control: Select, names: Mapping[str, str], custom_id: str, values: list[str]
) -> dict[str, Any]:
    options: list[dict[str, Any]] = []
    for o, value in zip(control.options[:25], values, strict=False):
        option: dict[str, Any] = {
            "label": names_in(o.label, names)[:100],
            "value": value,
            "default": o.default,
        }
        description = names_in(o.description, names)[:100]
        if description:
            option["description"] = description
        if o.emoji:
            option["emoji"] = _emoji(o.emoji)
        options.append(option)
    select: dict[str, Any] = {
        "type": 3,
        "custom_id": custom_id,
        "min_values": 1,
        "max_values": 1,
        "disabled": control.disabled,
        "required": True,
    }
    placeholder = names_in(control.placeholder, names)[:150]
    if placeholder:
        select["placeholder"] = placeholder
    if options:
        select["options"] = options
    return select


def _emoji(text: str) -> dict[str, Any]:
    """An emoji as a component shows it (a unicode one, or ``<:name:id>``), parsed once. The
    same dict for every component showing it: drawn components are never changed."""
    found = _EMOJIS.get(text)
    if found is None:
        if len(_EMOJIS) >= EMOJIS_KEPT:
            _EMOJIS.clear()
        found = _EMOJIS[text] = dict(discord.PartialEmoji.from_str(text).to_dict())
    return found


EMOJIS_KEPT = 1024
_EMOJIS: dict[str, dict[str, Any]] = {}


def game_view(
    panel: Panel,
    names: Mapping[str, str],
    *,
    session_id: int,
    seat: str,
    extra: list[discord.ui.Item[discord.ui.View]] | None = None,
    keys: PanelKeys | None = None,
) -> PanelView | None:
    """A classic view (rows of buttons and selects under embeds); ``extra`` items (e.g. "Show
    my hand") go in a free row, or at the end of the last row of buttons."""
    rows = raw_rows(panel, names, session_id=session_id, seat=seat, keys=keys)[:5]
    free_row = len(rows) if len(rows) < 5 else None
    if free_row is not None and extra:
        rows.append([])
    last = rows[-1] if rows else []
    for item in extra or []:
        component = item.to_component_dict()
        if free_row is None and not (all(c["type"] == 2 for c in last) and len(last) < 5):
            break
        rows[-1].append(component)
    return PanelView(rows) if any(rows) else None


class PanelLayout(discord.ui.LayoutView):
    """A Components V2 message whose components are already Discord's dicts (see
    ``layout_view``); like PanelView, nothing in it is stored per message."""

    def __init__(self, components: list[dict[str, Any]]) -> None:
        super().__init__(timeout=None)
        self.raw = components

    def to_components(self) -> list[dict[str, Any]]:
        return self.raw

    def has_components_v2(self) -> bool:
        return True  # discord.py asks its children, and it has none: sets the message's flag


def layout_view(
    panel: Panel,
    names: Mapping[str, str],
    *,
    session_id: int,
    seat: str,
    footer: str = "",
    keys: PanelKeys | None = None,
) -> PanelLayout:
    """A Components V2 message: the panel's text, its picture and all its rows of controls in
    one container (up to 40 components in all), drawn as component dicts like ``raw_rows``."""
    text = names_in(v2_text(panel), names)
    if footer:
        text += f"\n-# {names_in(footer, names)}"
    gallery = _gallery(panel.image) if panel.image is not None else None
    rows = raw_rows(panel, names, session_id=session_id, seat=seat, keys=keys)
    colour = panel.colour if panel.colour is not None else DEFAULT_COLOUR
    return PanelLayout([_container(text, gallery, rows, colour)])


def _gallery(image: Picture) -> dict[str, Any]:
    """A panel's picture as a V2 message shows it: a gallery of one."""
    gallery = discord.ui.MediaGallery[discord.ui.LayoutView](
        discord.MediaGalleryItem(f"attachment://{image.name}", description=image.alt[:256])
    )
    return gallery.to_component_dict()  # type: ignore[no-untyped-call,no-any-return]


def _container(
    text: str, gallery: dict[str, Any] | None, rows: list[list[dict[str, Any]]], colour: int
) -> dict[str, Any]:
    """A V2 message's one container: its text, its picture, then its rows of controls."""
    parts: list[dict[str, Any]] = [{"type": 10, "content": text[:MAX_V2_TEXT]}]
    if gallery is not None:
        parts.append(gallery)
    parts += [{"type": 1, "components": row} for row in rows]
    return {"type": 17, "accent_color": colour, "spoiler": False, "components": parts}


COMPONENTS_V2_FLAG = 1 << 15  # a message's flag: its components are a V2 layout


@dataclass(slots=True)  # not frozen: see PanelKeys
class PrivateDrawing:
    """A player's private panel drawn straight as Discord's JSON, once per panel (a click's
    answer and the sync's edits share it), but for what each message adds: its footer (how many
    other games wait) and the table's channel. Exactly what embed_of, game_view and layout_view
    send (tests/test_raw_components.py checks), without building their discord.py objects,
    which a click's answer does not need. Its fields and controls are kept as the JSON bytes
    they were drawn as (``data`` sends them as orjson Fragments): a drawing is kept per player,
    and its dozens of component dicts and lists were young containers the collector walked at
    every pass, and encoded again for every message showing them."""

    names: Mapping[str, str]  # the players' names it was drawn with
    v2: bool
    head: str  # the embed's title (cut); V2: the panel's text, before the footer
    description: str  # the embed's description, before the line saying where the table is
    fields: bytes  # the embed's fields as JSON (a list), b"" for none
    colour: int
    footer: str  # the panel's own footer, names unreplaced (joined to the message's first)
    image: dict[str, Any] | None  # the embed's image; V2: the picture's gallery component
    rows: bytes  # its rows of controls as JSON (a list of lists of components)
    controls: bytes  # the rows it shows, each as an action row's JSON, comma-joined
    digest: str  # changes whenever anything it shows changes
    keys: PanelKeys  # its controls' keys (drawn in the same walk)
    panel: Panel  # what it was drawn from

    def data(self, where: str, footer: str) -> dict[str, Any]:
        """The message's ``embeds`` and ``components`` (V2: its components and flags) as an
        edit sends them: ``where`` the table's channel, ``footer`` the message's own. Parts are
        orjson Fragments (``plain_data`` gives it all as dicts and lists)."""
        names = self.names
        if self.v2:
            line = names_in(f"Your private view · table in {where} · {footer}", names)
            shown = {"type": 10, "content": f"{self.head}\n-# {line}"[:MAX_V2_TEXT]}
            parts = [orjson.dumps(shown)]
            if self.image is not None:
                parts.append(orjson.dumps(self.image))
            if self.controls:
                parts.append(self.controls)
            layout = {
                "type": 17,
                "accent_color": self.colour,
                "spoiler": False,
                "components": orjson.Fragment(b"[" + b",".join(parts) + b"]"),
            }
            return {"components": [layout], "flags": COMPONENTS_V2_FLAG}
        embed: dict[str, Any] = {}
        text = " · ".join(t for t in (self.footer, footer) if t)
        if text:
            embed["footer"] = {"text": names_in(text, names)[:2048]}
        if self.image is not None:
            embed["image"] = self.image
        if self.fields:
            embed["fields"] = orjson.Fragment(self.fields)
        embed["flags"] = 0
        embed["color"] = self.colour
        embed["type"] = "rich"
        embed["description"] = f"{self.description}\n\n-# Your private view · table in {where}"
        if self.head:
            embed["title"] = self.head
        # No rows: an empty list (a falsy one: no view, and a new message leaves the key out).
        rows: Any = orjson.Fragment(b"[" + self.controls + b"]") if self.controls else []
        return {"embeds": [embed], "components": rows}


def plain_data(data: dict[str, Any]) -> dict[str, Any]:
    """``PrivateDrawing.data``'s message as plain dicts and lists (for discord.py's objects)."""
    return orjson.loads(orjson.dumps(data))  # type: ignore[no-any-return]


_ROW_HEAD = b'{"type":1,"components":'  # an action row's JSON, before its components


def draw_private(
    panel: Panel,
    names: Mapping[str, str],
    *,
    session_id: int,
    seat: str,
    keys: PanelKeys | None = None,
) -> PrivateDrawing:
    """A private panel as :class:`PrivateDrawing` (see there); its keys are ``keys`` if given,
    else computed as its controls are drawn."""
    names = dict(names)
    keys, rows = _keyed_rows(panel, names, f"cb:g:{session_id}:{seat}:", keys)
    colour = panel.colour if panel.colour is not None else DEFAULT_COLOUR
    image: dict[str, Any] | None = None
    fields = b""
    v2 = panel.layout == "components"
    if v2:
        head, description = names_in(v2_text(panel), names), ""
        if panel.image is not None:
            image = _gallery(panel.image)
    else:
        head = names_in(panel.title, names)[:256]
        description = names_in(panel.description, names)
        if panel.fields:
            fields = orjson.dumps(
                [
                    {
                        "inline": f.inline,
                        "name": names_in(f.name, names),
                        "value": names_in(f.value, names),
                    }
                    for f in panel.fields[:25]
                ]
            )
        if panel.image is not None:
            image = {"url": f"attachment://{panel.image.name}"}
    encoded = [orjson.dumps(row) for row in rows]
    rows_json = b"[" + b",".join(encoded) + b"]"
    shown_rows = encoded if v2 else encoded[:5]
    controls = b",".join([_ROW_HEAD + row + b"}" for row in shown_rows])
    # What it shows, and what its picture is drawn from (a picture's content is not in its URL).
    # The bytes already drawn go in as they are: the same JSON as the lists they were.
    shown = [panel.layout, head, description, orjson.Fragment(fields or b"[]"), colour]
    shown += [panel.footer, image, orjson.Fragment(rows_json)]
    option = 0  # all its keys are str, but a picture's spec may hold others (25 % slower)
    if panel.image is not None:
        shown.append(panel.image.model_dump(mode="json"))
        option = orjson.OPT_NON_STR_KEYS
    digest = hashlib.sha1(orjson.dumps(shown, option=option)).hexdigest()[:16]
    return PrivateDrawing(
        names,
        v2,
        head,
        description,
        fields,
        colour,
        panel.footer,
        image,
        rows_json,
        controls,
        digest,
        keys,
        panel,
    )


def sendable(view: discord.ui.View | discord.ui.LayoutView | None) -> Any:
    """``send`` takes no ``view=None``; MISSING means "no components"."""
    return view if view is not None else discord.utils.MISSING


def mention_line(players: list[str]) -> str | None:
    return " ".join(f"<@{p}>" for p in players if p.isdigit()) or None

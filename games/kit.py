"""What games share: timer options and their wording, seat-order turns, choice controls, and the
copy-on-write step of fast engines (:func:`evolve`).

Pure helpers for game packages (no rules of any one game here).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, Field

from games.presentation import (
    MAX_BUTTONS_PER_ROW,
    MAX_OPTIONS,
    MAX_ROWS,
    Button,
    Control,
    Option,
    Select,
    Style,
)

MINUTE, HOUR, DAY = 60, 3600, 86400

# Every timer a game offers, label → seconds. The lobby and /game new offer these same values.
TIMEOUT_CHOICES: dict[str, int] = {
    "1 min": MINUTE,
    "2 min": 2 * MINUTE,
    "3 min": 3 * MINUTE,
    "5 min": 5 * MINUTE,
    "10 min": 10 * MINUTE,
    "15 min": 15 * MINUTE,
    "30 min": 30 * MINUTE,
    "1 h": HOUR,
    "6 h": 6 * HOUR,
    "24 h": DAY,
    "48 h": 2 * DAY,
    "7 days": 7 * DAY,
}
MIN_TIMEOUT, MAX_TIMEOUT = MINUTE, 7 * DAY


def timer_field(default: int, description: str) -> Any:
    """An Options field for a step timer in seconds, offering :data:`TIMEOUT_CHOICES`."""
    return Field(
        default=default,
        ge=MIN_TIMEOUT,
        le=MAX_TIMEOUT,
        description=description,
        json_schema_extra={"choices": dict(TIMEOUT_CHOICES)},
    )


def duration(seconds: float) -> str:
    """Seconds in words: 90 → "1 min 30 s", 3600 → "1 h", 172800 → "2 days"."""
    rest = int(seconds)
    parts = []
    for unit, size in (("day", DAY), ("h", HOUR), ("min", MINUTE), ("s", 1)):
        count, rest = divmod(rest, size)
        if count:
            parts.append(f"{count} {unit}{'s' if unit == 'day' and count > 1 else ''}")
    return " ".join(parts) or "0 s"


def next_in_seat_order(
    players: Sequence[str], current: str, eligible: Callable[[str], bool] = lambda p: True
) -> str | None:
    """The next player clockwise (seat order) after ``current`` who is ``eligible``; ``current``
    itself comes last. None when nobody is."""
    start = players.index(current)
    for step in range(1, len(players) + 1):
        candidate = players[(start + step) % len(players)]
        if eligible(candidate):
            return candidate
    return None


def seat_order_from(players: Sequence[str], first: str) -> list[str]:
    """Every player once, clockwise, starting with ``first``."""
    start = players.index(first)
    return [players[(start + i) % len(players)] for i in range(len(players))]


def choice_controls(
    options: Sequence[Option],
    placeholder: str,
    *,
    max_buttons: int = 5,
    style: Style = "secondary",
    row: int | None = None,
) -> list[Control]:
    """Buttons while the choices fit one row (``max_buttons``), else one select (≤ 25 options).

    Each option becomes a button with the option's label, emoji and action."""
    if len(options) <= max_buttons:
        return [
            Button(label=o.label, action=o.action, emoji=o.emoji, style=style, row=row)
            for o in options
        ]
    return [Select(placeholder=placeholder, options=list(options)[:25], row=row)]


Group = tuple[str, Sequence[Option]]  # a select's placeholder, and the choices of the group


def grouped_controls(
    groups: Sequence[Group],
    *,
    tail: Sequence[Button] = (),
    max_rows: int = MAX_ROWS,
    style: Style = "secondary",
) -> list[Control]:
    """Several groups of choices as buttons (one tap each) while they fit in ``max_rows`` rows
    with ``tail`` (e.g. Done); else the largest groups, one by one, become selects (two taps:
    open, pick), so a dropdown hides only what buttons could not hold.

    While the rows allow, each group starts a row of its own and the tail has the last row;
    else the buttons flow five a row, the tail after them. A button takes the option's label
    (keep it short: phones show about 25 characters) and emoji, and an option marked ``default``
    (the choice made so far) stands out as a ``primary`` button; a select shows the option with
    its description."""
    # (a group's options as given: a tuple a game keeps gets its buttons back, see _group)
    kept = [(placeholder, options) for placeholder, options in groups if options]
    plan = _plan(tuple(len(options) for _, options in kept), len(tail), max_rows)
    if plan is not None:
        as_select, separate = plan
        return _grouped(kept, as_select, tail, style, separate=separate)
    # Still too many rows: the selects share as few selects as their options allow.
    as_select = _folded(tuple(len(options) for _, options in kept), len(tail), max_rows)
    merged = [o for i, (_, options) in enumerate(kept) if i in as_select for o in options]
    buttons = [g for i, g in enumerate(kept) if i not in as_select]
    together = [*buttons, ("Choose…", merged)]
    return _grouped(together, frozenset({len(together) - 1}), tail, style, separate=False)


def _rows_of(count: int, per_row: int) -> int:
    return -(-count // per_row)


@functools.lru_cache(maxsize=1024)
def _plan(sizes: tuple[int, ...], tail: int, max_rows: int) -> tuple[frozenset[int], bool] | None:
    """The layout of groups of ``sizes`` choices and ``tail`` buttons, worked out once per
    shape: which groups are selects and whether each group starts a row of its own (None:
    too many rows even with every group that can be a select one)."""
    as_select = _folded(sizes, tail, max_rows)
    return _fits_rows(sizes, as_select, tail, max_rows)


def _folded(sizes: tuple[int, ...], tail: int, max_rows: int) -> frozenset[int]:
    """The groups that become selects: the largest ones, one by one, until the rest fit (or
    none is left that a row of buttons cannot hold)."""
    as_select: frozenset[int] = frozenset()
    while _fits_rows(sizes, as_select, tail, max_rows) is None:
        # (a select always takes a row: folding a group a row of buttons holds never helps)
        left = [i for i, n in enumerate(sizes) if i not in as_select and n > MAX_BUTTONS_PER_ROW]
        if not left:
            break
        as_select |= {max(left, key=lambda i: (sizes[i], i))}
    return as_select


def _fits_rows(
    sizes: tuple[int, ...], as_select: frozenset[int], tail: int, max_rows: int
) -> tuple[frozenset[int], bool] | None:
    """(as_select, separate) when the groups fit in ``max_rows`` rows that way, else None."""
    selects = sum(_rows_of(n, MAX_OPTIONS) for i, n in enumerate(sizes) if i in as_select)
    buttons = [n for i, n in enumerate(sizes) if i not in as_select]
    separate = sum(_rows_of(n, MAX_BUTTONS_PER_ROW) for n in buttons)
    if selects + separate + _rows_of(tail, MAX_BUTTONS_PER_ROW) <= max_rows:
        return as_select, True
    if selects + _rows_of(sum(buttons) + tail, MAX_BUTTONS_PER_ROW) <= max_rows:
        return as_select, False
    return None


def _grouped(
    groups: Sequence[Group],
    as_select: frozenset[int],
    tail: Sequence[Button],
    style: Style,
    *,
    separate: bool,
) -> list[Control]:
    """Separate: each button group from a new row, then the selects, then the tail's row.
    Flowing: the buttons five a row, the tail after them, then the selects."""
    buttons: list[Control] = []
    selects: list[Control] = []
    row = 0
    for i, (placeholder, options) in enumerate(groups):
        if i in as_select:
            for start in range(0, len(options), MAX_OPTIONS):
                chunk = list(options[start : start + MAX_OPTIONS])
                selects.append(Select(placeholder=placeholder, options=chunk))
            continue
        if separate:
            buttons += _group(options, style, row)
            row += _rows_of(len(options), MAX_BUTTONS_PER_ROW)
        else:
            buttons += _group(options, style, None)
    if not separate:
        return [*buttons, *[_at_row(b, None) for b in tail], *selects]
    for select in selects:
        select.row = row
        row += 1
    ends = [_at_row(b, row + n // MAX_BUTTONS_PER_ROW) for n, b in enumerate(tail)]
    return [*buttons, *selects, *ends]


def _group(options: Sequence[Option], style: Style, row: int | None) -> Sequence[Button]:
    """A group's buttons from ``row`` on (None: flowing), an option marked ``default`` as a
    ``primary`` one. A tuple of options is drawn once: a game that keeps it (the same tuple
    panel after panel: a course's menu while nothing is picked in it) gets the same buttons
    back in one look-up, instead of one a button."""
    kept = type(options) is tuple
    if kept:
        key = id(options) << _ID_SHIFT | _STYLE_CODE[style] | (0 if row is None else row + 1)
        found = _GROUPS.drawn.get(key)
        if found is not None:
            return found
    drawn = tuple(
        button_of(
            o,
            "primary" if o.default else style,
            None if row is None else row + n // MAX_BUTTONS_PER_ROW,
        )
        for n, o in enumerate(options)
    )
    if kept:
        _GROUPS.keep(key, options, drawn)
    return drawn


# Buttons drawn from an option (or moved to a row) before, by the identity of what they were
# drawn from: a game that keeps its options (the same Option panel after panel: a menu's dishes)
# gets the same buttons back instead of new ones. The memo holds what each was drawn from, so
# an id cannot be another object's while it is kept. Panels are never changed once drawn
# (front ends copy a control before changing it), so they may share buttons. _GROUPS: the same
# for a whole group (a tuple of options), so a kept group costs one look-up a panel.
BUTTONS_KEPT, GROUPS_KEPT = 4096, 8192  # (as many groups as Café Carnage keeps menus)

# A key is one int (the source's id, the style and the row drawn with), a kept entry two
# plain stores: every young GC pass walks each container made since the last one, and a tuple
# key or a (source, drawn) pair a click would be two more of them (ints are never walked).
# The key: id(source) << _ID_SHIFT | _STYLE_CODE[style] | (row + 1, or 0 for None), written
# out where it is used (a call would cost more than the look-up it keys).
_ROW_BITS = 12  # rows 0-4094 (a Components V2 message has 40 at most)
_ID_SHIFT = _ROW_BITS + 3
_STYLE_CODE: dict[str | None, int] = {
    style: n << _ROW_BITS
    for n, style in enumerate((None, "primary", "secondary", "success", "danger"))
}


D = TypeVar("D")


class _DrawnFrom(Generic[D]):
    """What was drawn from an object, by key (the object's identity and how it was drawn),
    at most ``bound`` at a time (all let go when full). Look-ups read ``drawn`` directly."""

    __slots__ = ("_bound", "_sources", "drawn")

    def __init__(self, bound: int) -> None:
        self._bound = bound
        self.drawn: dict[int, D] = {}
        # Each source kept alive while its drawing is: so the id in a key is no other object's.
        self._sources: list[object] = []

    def keep(self, key: int, source: object, drawn: D) -> None:
        if len(self.drawn) >= self._bound:
            self.clear()
        self.drawn[key] = drawn
        self._sources.append(source)

    def clear(self) -> None:
        self.drawn.clear()
        self._sources.clear()


_BUTTONS: _DrawnFrom[Button] = _DrawnFrom(BUTTONS_KEPT)
_BUTTON_FIELDS = {"label", "action", "emoji", "style", "row"}  # what Button(…) would count set
_GROUPS: _DrawnFrom[tuple[Button, ...]] = _DrawnFrom(GROUPS_KEPT)


def button_of(option: Option, style: Style, row: int | None) -> Button:
    """The button of ``option`` (its label, emoji and move) in ``style`` and ``row``."""
    key = id(option) << _ID_SHIFT | _STYLE_CODE[style] | (0 if row is None else row + 1)
    found = _BUTTONS.drawn.get(key)
    if found is not None:
        return found
    # Button(label=…, action=…, emoji=…, style=…, row=…) of an option's values (validated when
    # the option was, or typed: see made), sharing its action as moved buttons do (replace).
    values = {
        "kind": "button",
        "label": option.label,
        "action": option.action,
        "style": style,
        "emoji": option.emoji,
        "disabled": False,
        "row": row,
    }
    button = made(Button, values, _BUTTON_FIELDS)
    _BUTTONS.keep(key, option, button)
    return button


def _at_row(button: Button, row: int | None) -> Button:
    key = id(button) << _ID_SHIFT | (0 if row is None else row + 1)  # (style None: code 0)
    found = _BUTTONS.drawn.get(key)
    if found is not None:
        return found
    moved = replace(button, {"row": row})
    _BUTTONS.keep(key, button, moved)
    return moved


# -- copy-on-write -------------------------------------------------------------------------------

M = TypeVar("M", bound=BaseModel)
_new = object.__new__
# BaseModel's own slots, set through their descriptors (object.__setattr__ looks each one up).
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_set_dict = BaseModel.__dict__["__dict__"].__set__
# Per model class: every field name. An evolved model counts all its fields as set (as one loaded
# from JSON does), so one set per class is shared by all of them: pydantic only ever adds a field
# name to it (on assignment), and every name is in already.
_ALL_FIELDS: dict[type[BaseModel], set[str]] = {}


def new_log_lines(before: list[str], after: list[str]) -> list[str]:
    """The lines a move added to a capped log (the newest lines, newest last): the fewest that,
    added to ``before`` and capped, make ``after``. (The log is all a stored state keeps: a
    count of lines would change every recorded game's states.)"""
    if after == before:
        return []
    for added in range(1, len(after) + 1):
        if (before + after[-added:])[-len(after) :] == after:
            return after[-added:]
    return list(after)


def _all_fields(cls: type[BaseModel]) -> set[str]:
    fields = _ALL_FIELDS[cls] = set(cls.model_fields)
    return fields


def made(cls: type[M], values: dict[str, Any], fields_set: set[str]) -> M:
    """A ``cls`` holding ``values`` (every field, in the class's order), not validated: for a
    panel's parts a game makes itself from values already of their fields' types, so that
    validating would only copy them (its tests compare such models with validated ones). Models
    made alike share ``fields_set`` (the fields a validated one would count as set): pydantic
    only adds to it, on assignment, and panels are never changed once made."""
    new = _new(cls)
    _set_dict(new, values)
    _set_fields_set(new, fields_set)
    _set_extra(new, None)
    _set_private(new, None)
    return new


def evolve(model: M, **changes: Any) -> M:
    """A shallow copy of ``model`` with ``changes`` (not validated): the copy-on-write step of a
    ``copy_on_write`` game, much cheaper than ``model_copy``. The copy shares every field it does
    not replace with ``model``, so no container of either may be mutated in place afterwards:
    replace it (``deck=state.deck[1:]``). Assigning a field of the copy itself is fine."""
    return replace(model, changes)


def replace(model: M, changes: dict[str, Any]) -> M:
    """:func:`evolve` with the changes as a dict (for a caller that builds them as one)."""
    cls = model.__class__
    new = _new(cls)
    fields = new.__dict__  # a new empty dict, filled in place (no copy to swap in)
    fields.update(model.__dict__)
    fields.update(changes)
    extra, private = model.__pydantic_extra__, model.__pydantic_private__
    if extra is None:
        _set_fields_set(new, _ALL_FIELDS.get(cls) or _all_fields(cls))
        _set_extra(new, None)
    else:  # extra fields are named in the set of fields set too: keep a set of its own
        _set_fields_set(new, model.__pydantic_fields_set__ | changes.keys())
        _set_extra(new, dict(extra))
    _set_private(new, None if private is None else dict(private))
    return new

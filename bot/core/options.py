"""Game options as Discord choices, derived from each game's pydantic Options model.

Every option field is a bool, a Literal of strings, or an int with
``json_schema_extra={"choices": {label: value}}``; that is all the lobby needs to offer them.
"""

from __future__ import annotations

import re
import typing
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from games.engine import Game
from games.kit import duration
from games.presentation import Option, Select


def choices_of(info: FieldInfo) -> list[tuple[str, Any]]:
    """(label, value) pairs a player may pick for one option field."""
    if info.annotation is bool:
        return [("on", True), ("off", False)]
    if typing.get_origin(info.annotation) is typing.Literal:
        return [(_words(str(v)), v) for v in typing.get_args(info.annotation)]
    extra = info.json_schema_extra
    choices = extra.get("choices") if isinstance(extra, dict) else None
    if isinstance(choices, dict):
        return [(str(k), v) for k, v in choices.items()][:25]
    return []


def option_fields(game: Game[Any, Any]) -> dict[str, FieldInfo]:
    return {k: v for k, v in game.Options.model_fields.items() if choices_of(v)}


def is_timer(game: Game[Any, Any], name: str) -> bool:
    return name == game.timer_option


def label_of(game: Game[Any, Any], name: str, value: Any) -> str:
    info = game.Options.model_fields[name]
    for label, v in choices_of(info):
        if v == value:
            return label
    if is_timer(game, name) and isinstance(value, int):
        return duration(value)
    return str(value)


def title_of(name: str) -> str:
    return name.replace("_", " ").capitalize()


def describe_options(game: Game[Any, Any], options: BaseModel) -> str:
    lines = []
    for name, info in game.Options.model_fields.items():
        value = getattr(options, name)
        text = f"**{title_of(name)}**: {label_of(game, name, value)}"
        if info.description:
            text += f" — {info.description}"
        lines.append(text[:200])
    return "\n".join(lines)[:1024] or "none"


def lobby_option_controls(game: Game[Any, Any], options: BaseModel) -> list[Select]:
    """One select per option (at most 3: the lobby's buttons take the first two rows)."""
    selects = []
    for name, info in list(option_fields(game).items())[:3]:
        current = getattr(options, name)
        selects.append(
            Select(
                placeholder=f"{title_of(name)}: {label_of(game, name, current)}",
                options=[
                    Option(
                        label=f"{title_of(name)}: {label}",
                        action={"option": name, "index": i},
                        default=value == current,
                    )
                    for i, (label, value) in enumerate(choices_of(info))
                ],
            )
        )
    return selects


def parse_setting(game: Game[Any, Any], text: str) -> tuple[str, Any]:
    """Turn an autocomplete value like ``no_repeats=on`` into (field, value); ValueError if bad."""
    name, _, label = text.partition("=")
    info = option_fields(game).get(name.strip())
    if info is None:
        known = ", ".join(option_fields(game)) or "none"
        # Echo at most a little of what was typed: the answer must stay short.
        raise ValueError(f"{game.title} has no option {_clip(name.strip())!r} (options: {known}).")
    typed = label.strip().casefold()
    for choice_label, value in choices_of(info):
        if typed in (choice_label.casefold(), str(value).casefold()):
            return name.strip(), value
    allowed = ", ".join(lbl for lbl, _ in choices_of(info))
    raise ValueError(f"{title_of(name.strip())} can be: {allowed}.")


def _words(value: str) -> str:
    """An option value as players read it: "full-pancake" → "Full Pancake"."""
    return " ".join(part.capitalize() for part in re.split(r"[-_ ]+", value) if part) or value


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def setting_suggestions(game: Game[Any, Any], typed: str) -> list[str]:
    suggestions = [
        f"{name}={label}"
        for name, info in option_fields(game).items()
        if not is_timer(game, name)
        for label, _ in choices_of(info)
    ]
    typed = typed.lower().strip()
    return [s for s in suggestions if typed in s.lower()][:25]

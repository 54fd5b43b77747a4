"""Discord's limits on application commands (sync) and autocomplete answers, checked the way
Discord checks them (see :mod:`emulator.validation` for how errors are reported)."""

from __future__ import annotations

import re
from typing import Any

from .validation import FormErrors, Json, max_len, required_str


def validate_autocomplete(data: Any, errors: FormErrors, path: str = "data") -> list[Json]:
    if not isinstance(data, dict):
        errors.add(path, "DICT_TYPE_CONVERT", "Autocomplete data must be an object")
        return []
    choices = data.get("choices")
    if not isinstance(choices, list):
        errors.add(f"{path}.choices", "BASE_TYPE_REQUIRED", "This field is required")
        return []
    if len(choices) > 25:
        errors.add(f"{path}.choices", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    for i, choice in enumerate(choices):
        cp = f"{path}.choices.{i}"
        required_str(errors, f"{cp}.name", choice.get("name"), 100)
        value = choice.get("value")
        if isinstance(value, str):
            max_len(errors, f"{cp}.value", value, 100)
        elif not isinstance(value, int | float) or isinstance(value, bool):
            errors.add(
                f"{cp}.value", "BASE_TYPE_REQUIRED", "Choice value must be a string or number"
            )
    return list(choices)


# ----------------------------------------------------------------------------------- commands

_NAME_RE = re.compile(r"^[-_'\w]{1,32}$")
_OPTION_TYPES = frozenset(range(1, 12))


def _command_chars(cmd: Json) -> int:
    total = len(cmd.get("name") or "") + len(cmd.get("description") or "")
    for opt in cmd.get("options") or []:
        total += _command_chars(opt)
    for choice in cmd.get("choices") or []:
        total += len(str(choice.get("name", ""))) + len(str(choice.get("value", "")))
    return total


def _validate_name(errors: FormErrors, path: str, name: Any, *, lowercase: bool) -> None:
    if not isinstance(name, str) or not _NAME_RE.match(name):
        errors.add(path, "APPLICATION_COMMAND_INVALID_NAME", f"Invalid command name {name!r}")
    elif lowercase and name != name.lower():
        errors.add(
            path, "APPLICATION_COMMAND_INVALID_NAME", f"Command names are lowercase: {name!r}"
        )


def _validate_options(options: Any, path: str, errors: FormErrors, *, depth: int) -> None:
    if options is None:
        return
    if len(options) > 25:
        errors.add(path, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    names: set[str] = set()
    seen_optional = False
    for i, opt in enumerate(options):
        p = f"{path}.{i}"
        otype = opt.get("type")
        name = opt.get("name")
        _validate_name(errors, f"{p}.name", name, lowercase=True)
        required_str(errors, f"{p}.description", opt.get("description"), 100)
        if name in names:
            errors.add(f"{p}.name", "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS", "Duplicate")
        names.add(name)
        if otype not in _OPTION_TYPES:
            errors.add(f"{p}.type", "BASE_TYPE_CHOICES", f"Unknown option type {otype}")
            continue
        if otype in (1, 2):
            if otype == 2 and depth > 0:
                errors.add(p, "APPLICATION_COMMAND_OPTION_TYPE_INVALID", "Groups cannot nest")
            if otype == 1 and depth > 1:
                errors.add(p, "APPLICATION_COMMAND_OPTION_TYPE_INVALID", "Subcommands too deep")
            sub = opt.get("options") or []
            if otype == 2 and any(o.get("type") != 1 for o in sub):
                errors.add(
                    f"{p}.options",
                    "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                    "Groups only hold subcommands",
                )
            if otype == 1 and any(o.get("type") in (1, 2) for o in sub):
                errors.add(
                    f"{p}.options",
                    "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                    "Subcommands cannot hold subcommands",
                )
            _validate_options(sub, f"{p}.options", errors, depth=depth + 1)
            continue
        if opt.get("required"):
            if seen_optional:
                errors.add(
                    p,
                    "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                    "Required options must be placed before non-required options",
                )
        else:
            seen_optional = True
        choices = opt.get("choices") or []
        if len(choices) > 25:
            errors.add(f"{p}.choices", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        if choices and opt.get("autocomplete"):
            errors.add(
                p,
                "APPLICATION_COMMAND_AUTOCOMPLETE_INVALID",
                "Autocomplete and choices are mutually exclusive",
            )
        for j, choice in enumerate(choices):
            required_str(errors, f"{p}.choices.{j}.name", choice.get("name"), 100)
            if isinstance(choice.get("value"), str):
                max_len(errors, f"{p}.choices.{j}.value", choice.get("value"), 100)


def validate_commands(commands: Any, errors: FormErrors) -> None:
    if not isinstance(commands, list):
        errors.add("", "LIST_TYPE_CONVERT", "Must be an array.")
        return
    seen: set[tuple[int, str]] = set()
    counts: dict[int, int] = {}
    for i, cmd in enumerate(commands):
        p = str(i)
        ctype = cmd.get("type", 1) or 1
        counts[ctype] = counts.get(ctype, 0) + 1
        name = cmd.get("name")
        if ctype == 1:
            _validate_name(errors, f"{p}.name", name, lowercase=True)
        else:  # context menu names may hold spaces and capitals
            required_str(errors, f"{p}.name", name, 32)
        if ctype == 1:
            required_str(errors, f"{p}.description", cmd.get("description"), 100)
        elif cmd.get("description"):
            errors.add(
                f"{p}.description", "BASE_TYPE_BAD_LENGTH", "Context menus have no description"
            )
        key = (ctype, str(name))
        if key in seen:
            errors.add(
                f"{p}.name", "APPLICATION_COMMANDS_DUPLICATE_NAME", f"Duplicate name {name!r}"
            )
        seen.add(key)
        _validate_options(cmd.get("options"), f"{p}.options", errors, depth=0)
        if _command_chars(cmd) > 4000:
            errors.add(p, "APPLICATION_COMMAND_TOO_LARGE", "Command exceeds 4000 characters")
    if counts.get(1, 0) > 100:
        errors.add("", "BASE_TYPE_MAX_LENGTH", "At most 100 chat input commands")
    for ctype in (2, 3):
        if counts.get(ctype, 0) > 15:
            errors.add("", "BASE_TYPE_MAX_LENGTH", "At most 15 context menu commands per type")

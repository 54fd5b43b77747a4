"""Discord's payload limits, checked the way Discord checks them.

Every check appends to a :class:`FormErrors`; the emulator turns a non-empty one into a
``400 {"code": 50035, "message": "Invalid Form Body", "errors": {...}}`` answer and records a
violation. The limits follow Discord's API documentation (messages, embeds, components,
components V2, modals, autocomplete, application commands).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

Json = dict[str, Any]

# Message flags
FLAG_SUPPRESS_EMBEDS = 1 << 2
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_SUPPRESS_NOTIFICATIONS = 1 << 12
FLAG_IS_COMPONENTS_V2 = 1 << 15
SENDABLE_FLAGS = (
    FLAG_SUPPRESS_EMBEDS | FLAG_EPHEMERAL | FLAG_SUPPRESS_NOTIFICATIONS | FLAG_IS_COMPONENTS_V2
)

CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4096
EMBED_FIELDS_MAX = 25
EMBED_FIELD_NAME_MAX = 256
EMBED_FIELD_VALUE_MAX = 1024
EMBED_FOOTER_MAX = 2048
EMBED_AUTHOR_MAX = 256
EMBED_TOTAL_MAX = 6000
ACTION_ROWS_MAX = 5
ROW_BUTTONS_MAX = 5
SELECT_OPTIONS_MAX = 25
SELECT_OPTION_TEXT_MAX = 100
SELECT_PLACEHOLDER_MAX = 150
BUTTON_LABEL_MAX = 80
CUSTOM_ID_MAX = 100
EMOJI_NAME_MAX = 32
EMBED_COLOR_MAX = 0xFFFFFF
V2_COMPONENTS_MAX = 40
V2_TEXT_MAX = 4000
ATTACHMENTS_MAX = 10

COMPONENT_NAMES = {
    1: "action row",
    2: "button",
    3: "string select",
    4: "text input",
    5: "user select",
    6: "role select",
    7: "mentionable select",
    8: "channel select",
    9: "section",
    10: "text display",
    11: "thumbnail",
    12: "media gallery",
    13: "file",
    14: "separator",
    17: "container",
    18: "label",
    19: "file upload",
}
SELECT_TYPES = frozenset({3, 5, 6, 7, 8})
V2_TOP_LEVEL = frozenset({1, 9, 10, 12, 13, 14, 17})
CONTAINER_CHILDREN = frozenset({1, 9, 10, 12, 13, 14})


class FormErrors:
    """Collects ``(path, code, message)`` triples; renders Discord's nested error object."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str, str]] = []

    def add(self, path: str, code: str, message: str) -> None:
        self.items.append((path, code, message))

    def __bool__(self) -> bool:
        return bool(self.items)

    def summary(self) -> str:
        return "; ".join(f"{path or '<body>'}: {message}" for path, _, message in self.items)

    def to_discord(self) -> Json:
        root: Json = {}
        for path, code, message in self.items:
            node = root
            for part in [p for p in path.split(".") if p]:
                node = node.setdefault(part, {})
            node.setdefault("_errors", []).append({"code": code, "message": message})
        return root


def max_len(errors: FormErrors, path: str, value: Any, limit: int) -> int:
    if value is None:
        return 0
    if not isinstance(value, str):
        errors.add(path, "STRING_TYPE_CONVERT", "Could not interpret value as string.")
        return 0
    if len(value) > limit:
        errors.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")
    return len(value)


def required_str(errors: FormErrors, path: str, value: Any, limit: int, min_len: int = 1) -> int:
    if value is None or value == "":
        errors.add(path, "BASE_TYPE_REQUIRED", "This field is required")
        return 0
    if isinstance(value, str) and len(value) < min_len:
        errors.add(path, "BASE_TYPE_MIN_LENGTH", f"Must be {min_len} or more in length.")
    return max_len(errors, path, value, limit)


# --------------------------------------------------------------------------------------- embeds


def validate_embeds(embeds: Any, errors: FormErrors, path: str = "embeds") -> None:
    if embeds is None:
        return
    if not isinstance(embeds, list):
        errors.add(path, "LIST_TYPE_CONVERT", "Must be an array.")
        return
    if len(embeds) > EMBEDS_MAX:
        errors.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {EMBEDS_MAX} or fewer in length.")
    total = 0
    for i, embed in enumerate(embeds):
        p = f"{path}.{i}"
        if not isinstance(embed, dict):
            errors.add(p, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        total += max_len(errors, f"{p}.title", embed.get("title"), EMBED_TITLE_MAX)
        total += max_len(
            errors, f"{p}.description", embed.get("description"), EMBED_DESCRIPTION_MAX
        )
        fields = embed.get("fields") or []
        if len(fields) > EMBED_FIELDS_MAX:
            errors.add(f"{p}.fields", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        for j, fld in enumerate(fields):
            fp = f"{p}.fields.{j}"
            total += required_str(errors, f"{fp}.name", fld.get("name"), EMBED_FIELD_NAME_MAX)
            total += required_str(errors, f"{fp}.value", fld.get("value"), EMBED_FIELD_VALUE_MAX)
        footer = embed.get("footer")
        if isinstance(footer, dict):
            total += required_str(errors, f"{p}.footer.text", footer.get("text"), EMBED_FOOTER_MAX)
        author = embed.get("author")
        if isinstance(author, dict):
            total += required_str(errors, f"{p}.author.name", author.get("name"), EMBED_AUTHOR_MAX)
        color = embed.get("color")
        if color is not None:
            if isinstance(color, bool) or not isinstance(color, int):
                errors.add(f"{p}.color", "NUMBER_TYPE_COERCE", f'Value "{color}" is not int.')
            elif color > EMBED_COLOR_MAX:
                errors.add(
                    f"{p}.color",
                    "NUMBER_TYPE_MAX",
                    f"int value should be less than or equal to {EMBED_COLOR_MAX}.",
                )
            elif color < 0:
                errors.add(
                    f"{p}.color",
                    "NUMBER_TYPE_MIN",
                    "int value should be greater than or equal to 0.",
                )
        for key in ("image", "thumbnail"):
            media = embed.get(key)
            if isinstance(media, dict) and not media.get("url"):
                errors.add(f"{p}.{key}.url", "BASE_TYPE_REQUIRED", "This field is required")
    if total > EMBED_TOTAL_MAX:
        errors.add(
            path,
            "MAX_EMBED_SIZE_EXCEEDED",
            f"Embed size exceeds maximum size of {EMBED_TOTAL_MAX} ({total} characters)",
        )


# ----------------------------------------------------------------------------------- components


class _ComponentContext:
    def __init__(self, *, v2: bool, modal: bool = False) -> None:
        self.v2 = v2
        self.modal = modal
        self.total = 0
        self.text = 0
        self.custom_ids: set[str] = set()
        self.ids: set[int] = set()


def _check_custom_id(ctx: _ComponentContext, errors: FormErrors, path: str, comp: Json) -> None:
    custom_id = comp.get("custom_id")
    if not isinstance(custom_id, str) or not custom_id:
        errors.add(f"{path}.custom_id", "BASE_TYPE_REQUIRED", "This field is required")
        return
    if len(custom_id) > CUSTOM_ID_MAX:
        errors.add(f"{path}.custom_id", "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
    if custom_id in ctx.custom_ids:
        errors.add(
            f"{path}.custom_id",
            "COMPONENT_CUSTOM_ID_DUPLICATED",
            f"Component custom id cannot be duplicated ({custom_id!r})",
        )
    ctx.custom_ids.add(custom_id)


def _validate_emoji(errors: FormErrors, path: str, emoji: Any) -> None:
    """A component's partial emoji: ``name`` (at most 32 characters) and, for a custom emoji,
    its ``id``."""
    if emoji is None:
        return
    if not isinstance(emoji, dict):
        errors.add(path, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        return
    if emoji.get("id") is None and not emoji.get("name"):
        errors.add(f"{path}.name", "BASE_TYPE_REQUIRED", "This field is required")
        return
    max_len(errors, f"{path}.name", emoji.get("name"), EMOJI_NAME_MAX)


def _validate_button(comp: Json, path: str, ctx: _ComponentContext, errors: FormErrors) -> None:
    style = comp.get("style")
    if style not in (1, 2, 3, 4, 5, 6):
        errors.add(
            f"{path}.style", "BASE_TYPE_CHOICES", f"Value must be one of (1..6), not {style}"
        )
        return
    max_len(errors, f"{path}.label", comp.get("label"), BUTTON_LABEL_MAX)
    _validate_emoji(errors, f"{path}.emoji", comp.get("emoji"))
    if style == 5:
        if not comp.get("url"):
            errors.add(f"{path}.url", "BASE_TYPE_REQUIRED", "Link buttons need a url")
        if comp.get("custom_id") is not None:
            errors.add(
                f"{path}.custom_id",
                "BUTTON_COMPONENT_LINK_HAS_CUSTOM_ID",
                "Link buttons cannot have a custom_id",
            )
    elif style == 6:
        if not comp.get("sku_id"):
            errors.add(f"{path}.sku_id", "BASE_TYPE_REQUIRED", "Premium buttons need a sku_id")
        for key in ("custom_id", "url", "label", "emoji"):
            if comp.get(key) is not None:
                errors.add(
                    f"{path}.{key}", "BUTTON_COMPONENT_INVALID", f"Premium buttons have no {key}"
                )
    else:
        _check_custom_id(ctx, errors, path, comp)
        if comp.get("url") is not None:
            errors.add(
                f"{path}.url", "BUTTON_COMPONENT_URL_NOT_ALLOWED", "Only link buttons have a url"
            )
    if style != 6 and not comp.get("label") and not comp.get("emoji"):
        errors.add(path, "BUTTON_COMPONENT_MISSING_LABEL", "A button needs a label or an emoji")


def _validate_select(comp: Json, path: str, ctx: _ComponentContext, errors: FormErrors) -> None:
    _check_custom_id(ctx, errors, path, comp)
    max_len(errors, f"{path}.placeholder", comp.get("placeholder"), SELECT_PLACEHOLDER_MAX)
    min_values = comp.get("min_values", 1)
    max_values = comp.get("max_values", 1)
    if not isinstance(min_values, int) or not 0 <= min_values <= 25:
        errors.add(f"{path}.min_values", "NUMBER_TYPE_MAX", "min_values must be between 0 and 25")
    if not isinstance(max_values, int) or not 1 <= max_values <= 25:
        errors.add(f"{path}.max_values", "NUMBER_TYPE_MAX", "max_values must be between 1 and 25")
    elif isinstance(min_values, int) and min_values > max_values:
        errors.add(f"{path}.min_values", "SELECT_COMPONENT_MIN_VALUES", "min_values > max_values")
    if comp["type"] != 3:
        if comp.get("options"):
            errors.add(
                f"{path}.options", "SELECT_COMPONENT_INVALID", "Only string selects have options"
            )
        return
    options = comp.get("options") or []
    if not options:
        errors.add(f"{path}.options", "BASE_TYPE_MIN_LENGTH", "Must be 1 or more in length.")
    if len(options) > SELECT_OPTIONS_MAX:
        errors.add(f"{path}.options", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    if isinstance(max_values, int) and options and max_values > len(options):
        errors.add(
            f"{path}.max_values",
            "SELECT_COMPONENT_MAX_VALUES",
            f"max_values ({max_values}) exceeds the number of options ({len(options)})",
        )
    seen: set[str] = set()
    for i, opt in enumerate(options):
        op = f"{path}.options.{i}"
        required_str(errors, f"{op}.label", opt.get("label"), SELECT_OPTION_TEXT_MAX)
        required_str(errors, f"{op}.value", opt.get("value"), SELECT_OPTION_TEXT_MAX)
        max_len(errors, f"{op}.description", opt.get("description"), SELECT_OPTION_TEXT_MAX)
        _validate_emoji(errors, f"{op}.emoji", opt.get("emoji"))
        value = opt.get("value")
        if isinstance(value, str):
            if value in seen:
                errors.add(
                    f"{op}.value", "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED", "Duplicate value"
                )
            seen.add(value)


def _validate_text_input(comp: Json, path: str, ctx: _ComponentContext, errors: FormErrors) -> None:
    _check_custom_id(ctx, errors, path, comp)
    if comp.get("style") not in (1, 2):
        errors.add(f"{path}.style", "BASE_TYPE_CHOICES", "Text input style must be 1 or 2")
    max_len(errors, f"{path}.label", comp.get("label"), 45)
    max_len(errors, f"{path}.placeholder", comp.get("placeholder"), 100)
    max_len(errors, f"{path}.value", comp.get("value"), 4000)
    min_length = comp.get("min_length")
    max_length = comp.get("max_length")
    if min_length is not None and not 0 <= min_length <= 4000:
        errors.add(f"{path}.min_length", "NUMBER_TYPE_MAX", "min_length must be 0..4000")
    if max_length is not None and not 1 <= max_length <= 4000:
        errors.add(f"{path}.max_length", "NUMBER_TYPE_MAX", "max_length must be 1..4000")


def _validate_media(errors: FormErrors, path: str, media: Any) -> None:
    if not isinstance(media, dict) or not media.get("url"):
        errors.add(f"{path}.url", "BASE_TYPE_REQUIRED", "This field is required")


def _validate_component(
    comp: Any, path: str, ctx: _ComponentContext, errors: FormErrors, *, parent: int | None
) -> None:
    if not isinstance(comp, dict):
        errors.add(path, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        return
    ctype = comp.get("type")
    ctx.total += 1
    cid = comp.get("id")
    if isinstance(cid, int) and cid != 0:
        if cid in ctx.ids:
            errors.add(f"{path}.id", "COMPONENT_ID_DUPLICATED", f"Duplicate component id {cid}")
        ctx.ids.add(cid)
    if ctype not in COMPONENT_NAMES:
        errors.add(f"{path}.type", "UNION_TYPE_CHOICES", f"Unknown component type {ctype}")
        return
    if ctype == 1:
        children = comp.get("components") or []
        if not children:
            errors.add(f"{path}.components", "BASE_TYPE_MIN_LENGTH", "Must be 1 or more in length.")
        kinds = [c.get("type") for c in children if isinstance(c, dict)]
        selects = [k for k in kinds if k in SELECT_TYPES]
        if selects and len(children) > 1:
            errors.add(
                f"{path}.components",
                "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                "A select menu must be alone in its action row",
            )
        if len(children) > ROW_BUTTONS_MAX:
            errors.add(
                f"{path}.components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length."
            )
        for i, child in enumerate(children):
            child_type = child.get("type") if isinstance(child, dict) else None
            allowed = {4} if ctx.modal else {2, *SELECT_TYPES}
            if child_type not in allowed:
                errors.add(
                    f"{path}.components.{i}.type",
                    "UNION_TYPE_CHOICES",
                    f"An action row cannot hold a {COMPONENT_NAMES.get(child_type or 0, child_type)}",
                )
                ctx.total += 1
                continue
            _validate_component(child, f"{path}.components.{i}", ctx, errors, parent=1)
    elif ctype == 2:
        if parent not in (1, 9):
            errors.add(path, "UNION_TYPE_CHOICES", "Buttons must be in an action row or a section")
        _validate_button(comp, path, ctx, errors)
    elif ctype in SELECT_TYPES:
        if parent not in (1, 18):
            errors.add(path, "UNION_TYPE_CHOICES", "Selects must be in an action row or a label")
        _validate_select(comp, path, ctx, errors)
    elif ctype == 4:
        if not ctx.modal:
            errors.add(path, "UNION_TYPE_CHOICES", "Text inputs are only allowed in modals")
        _validate_text_input(comp, path, ctx, errors)
    elif ctype == 9:
        texts = comp.get("components") or []
        if not 1 <= len(texts) <= 3:
            errors.add(f"{path}.components", "BASE_TYPE_BAD_LENGTH", "A section holds 1 to 3 texts")
        for i, child in enumerate(texts):
            if not isinstance(child, dict) or child.get("type") != 10:
                errors.add(
                    f"{path}.components.{i}", "UNION_TYPE_CHOICES", "Sections hold text displays"
                )
                continue
            _validate_component(child, f"{path}.components.{i}", ctx, errors, parent=9)
        accessory = comp.get("accessory")
        if not isinstance(accessory, dict) or accessory.get("type") not in (2, 11):
            errors.add(
                f"{path}.accessory", "BASE_TYPE_REQUIRED", "A section needs a button or thumbnail"
            )
        else:
            _validate_component(accessory, f"{path}.accessory", ctx, errors, parent=9)
    elif ctype == 10:
        content = comp.get("content")
        required_str(errors, f"{path}.content", content, V2_TEXT_MAX)
        if isinstance(content, str):
            ctx.text += len(content)
    elif ctype == 11:
        _validate_media(errors, f"{path}.media", comp.get("media"))
        max_len(errors, f"{path}.description", comp.get("description"), 1024)
    elif ctype == 12:
        items = comp.get("items") or []
        if not 1 <= len(items) <= 10:
            errors.add(
                f"{path}.items", "BASE_TYPE_BAD_LENGTH", "A media gallery holds 1 to 10 items"
            )
        for i, item in enumerate(items):
            _validate_media(errors, f"{path}.items.{i}.media", item.get("media"))
            max_len(errors, f"{path}.items.{i}.description", item.get("description"), 1024)
    elif ctype == 13:
        file = comp.get("file")
        named = isinstance(file, dict) and str(file.get("url", "")).startswith("attachment://")
        kept = isinstance(file, dict) and file.get("attachment_id")  # as stored: unfurled
        if not named and not kept:
            errors.add(
                f"{path}.file.url", "BASE_TYPE_REQUIRED", "File components need attachment://"
            )
    elif ctype == 14:
        if comp.get("spacing", 1) not in (1, 2):
            errors.add(f"{path}.spacing", "BASE_TYPE_CHOICES", "Separator spacing must be 1 or 2")
    elif ctype == 17:
        children = comp.get("components") or []
        if not children:
            errors.add(f"{path}.components", "BASE_TYPE_MIN_LENGTH", "Must be 1 or more in length.")
        for i, child in enumerate(children):
            child_type = child.get("type") if isinstance(child, dict) else None
            if child_type not in CONTAINER_CHILDREN:
                errors.add(
                    f"{path}.components.{i}.type",
                    "UNION_TYPE_CHOICES",
                    f"A container cannot hold a {COMPONENT_NAMES.get(child_type or 0, child_type)}",
                )
                continue
            _validate_component(child, f"{path}.components.{i}", ctx, errors, parent=17)
    elif ctype == 18:
        if not ctx.modal:
            errors.add(path, "UNION_TYPE_CHOICES", "Labels are only allowed in modals")
        required_str(errors, f"{path}.label", comp.get("label"), 45)
        max_len(errors, f"{path}.description", comp.get("description"), 100)
        inner = comp.get("component")
        if not isinstance(inner, dict) or inner.get("type") not in (4, 19, *SELECT_TYPES):
            errors.add(f"{path}.component", "BASE_TYPE_REQUIRED", "A label wraps one input")
        else:
            _validate_component(inner, f"{path}.component", ctx, errors, parent=18)
    elif ctype == 19:
        if not ctx.modal:
            errors.add(path, "UNION_TYPE_CHOICES", "File uploads are only allowed in modals")
        _check_custom_id(ctx, errors, path, comp)


def validate_components(
    components: Any, flags: int, errors: FormErrors, path: str = "components"
) -> None:
    if components is None:
        return
    if not isinstance(components, list):
        errors.add(path, "LIST_TYPE_CONVERT", "Must be an array.")
        return
    v2 = bool(flags & FLAG_IS_COMPONENTS_V2)
    ctx = _ComponentContext(v2=v2)
    if not v2 and len(components) > ACTION_ROWS_MAX:
        errors.add(path, "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
    for i, comp in enumerate(components):
        ctype = comp.get("type") if isinstance(comp, dict) else None
        if v2 and ctype not in V2_TOP_LEVEL:
            errors.add(
                f"{path}.{i}.type",
                "UNION_TYPE_CHOICES",
                f"A {COMPONENT_NAMES.get(ctype or 0, ctype)} cannot be a top-level component",
            )
            continue
        if not v2 and ctype != 1:
            errors.add(
                f"{path}.{i}.type",
                "UNION_TYPE_CHOICES",
                f"A {COMPONENT_NAMES.get(ctype or 0, ctype)} needs the IS_COMPONENTS_V2 flag "
                "(classic messages only take action rows at the top level)",
            )
            continue
        _validate_component(comp, f"{path}.{i}", ctx, errors, parent=None)
    if v2:
        if ctx.total > V2_COMPONENTS_MAX:
            errors.add(
                path,
                "MAX_COMPONENTS_EXCEEDED",
                f"A components V2 message holds at most {V2_COMPONENTS_MAX} components "
                f"(including nested ones); got {ctx.total}",
            )
        if ctx.text > V2_TEXT_MAX:
            errors.add(
                path,
                "MAX_TEXT_LENGTH_EXCEEDED",
                f"The text displays of a message hold at most {V2_TEXT_MAX} characters; "
                f"got {ctx.text}",
            )


# ------------------------------------------------------------------------------------- messages


def validate_message(message: Json, errors: FormErrors, *, require_content: bool = True) -> None:
    """Validate the *resulting* message (after an edit has been merged)."""
    flags = int(message.get("flags") or 0)
    content = message.get("content") or ""
    embeds = message.get("embeds") or []
    components = message.get("components") or []
    attachments = message.get("attachments") or []
    if not isinstance(content, str):
        errors.add("content", "STRING_TYPE_CONVERT", "Could not interpret value as string.")
        content = str(content)
    if flags & FLAG_IS_COMPONENTS_V2:
        if content:
            errors.add(
                "content",
                "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                "The 'content' field cannot be used when using MessageFlags.IS_COMPONENTS_V2",
            )
        if embeds:
            errors.add(
                "embeds",
                "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                "The 'embeds' field cannot be used when using MessageFlags.IS_COMPONENTS_V2",
            )
    elif len(content) > CONTENT_MAX:
        errors.add("content", "BASE_TYPE_MAX_LENGTH", f"Must be {CONTENT_MAX} or fewer in length.")
    validate_embeds(embeds, errors)
    validate_components(components, flags, errors)
    if len(attachments) > ATTACHMENTS_MAX:
        errors.add("attachments", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
    if (
        require_content
        and not content
        and not embeds
        and not components
        and not attachments
        and not message.get("sticker_ids")
        and not message.get("poll")
        and not flags & FLAG_LOADING
    ):
        errors.add("", "EMPTY_MESSAGE", "Cannot send an empty message")


def validate_sent_flags(flags: Any, errors: FormErrors, *, allowed: int = SENDABLE_FLAGS) -> None:
    if flags is None:
        return
    if not isinstance(flags, int) or flags & ~allowed:
        errors.add("flags", "MESSAGE_FLAGS_INVALID", f"Invalid message flags {flags!r}")


# ------------------------------------------------------------------------------- interactions


def validate_modal(data: Any, errors: FormErrors, path: str = "data") -> None:
    if not isinstance(data, dict):
        errors.add(path, "DICT_TYPE_CONVERT", "Modal data must be an object")
        return
    required_str(errors, f"{path}.title", data.get("title"), 45)
    custom_id = data.get("custom_id")
    required_str(errors, f"{path}.custom_id", custom_id, CUSTOM_ID_MAX)
    components = data.get("components") or []
    if not 1 <= len(components) <= 5:
        errors.add(f"{path}.components", "BASE_TYPE_BAD_LENGTH", "A modal holds 1 to 5 components")
    ctx = _ComponentContext(v2=True, modal=True)
    for i, comp in enumerate(components):
        cpath = f"{path}.components.{i}"
        ctype = comp.get("type") if isinstance(comp, dict) else None
        if ctype not in (1, 10, 18):
            errors.add(f"{cpath}.type", "UNION_TYPE_CHOICES", "Modals hold rows, labels and texts")
            continue
        if ctype == 1:
            children = comp.get("components") or []
            if len(children) != 1 or children[0].get("type") != 4:
                errors.add(cpath, "UNION_TYPE_CHOICES", "A modal action row holds one text input")
                continue
            if not children[0].get("label"):
                errors.add(f"{cpath}.components.0.label", "BASE_TYPE_REQUIRED", "Label required")
        _validate_component(comp, cpath, ctx, errors, parent=None)


def iter_components(components: Iterable[Any]) -> Iterable[Json]:
    """Depth-first walk over every component (rows, sections, accessories, containers...)."""
    for comp in components:
        if not isinstance(comp, dict):
            continue
        yield comp
        yield from iter_components(comp.get("components") or [])
        for key in ("accessory", "component"):
            inner = comp.get(key)
            if isinstance(inner, dict):
                yield from iter_components([inner])

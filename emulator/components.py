"""Message components as Discord stores and returns them (its components reference): ids
assigned, partial emoji trimmed, the defaults of omitted fields filled in, media unfurled."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .validation import SELECT_TYPES, Json, iter_components

ATTACHMENT_PREFIX = "attachment://"
# Fields Discord's description requires in a returned component, with the value Discord fills
# in when the sender left them out.
DEFAULTS: dict[int, Json] = {
    11: {"description": None, "spoiler": False},  # thumbnail
    13: {"spoiler": False},  # file (name and size come from its attachment)
    14: {"spacing": 1, "divider": True},  # separator
    17: {"accent_color": None, "spoiler": False},  # container
}
DEFAULTS.update({select: {"min_values": 1, "max_values": 1} for select in SELECT_TYPES})


def as_discord_stores(
    components: list[Json], attachments: Sequence[Json], new_id: Callable[[], int]
) -> list[Json]:
    """Sent (already validated) components as Discord stores them, changed in place and
    returned: every component without an ``id`` (or with 0) gets the next free integer, in the
    order they appear, skipping the ids the sender chose; a partial emoji keeps ``id`` only for a
    custom emoji (a unicode one comes back as ``{"name": ...}``); omitted fields get Discord's
    defaults; media (``attachment://name`` or a URL) become unfurled media objects."""
    walk = list(iter_components(components))
    taken = {c["id"] for c in walk if isinstance(c.get("id"), int) and c["id"]}
    next_id = 1
    by_name = {str(a["filename"]): a for a in attachments}
    for comp in walk:
        if not comp.get("id"):
            while next_id in taken:
                next_id += 1
            comp["id"] = next_id
            taken.add(next_id)
        for key, value in DEFAULTS.get(comp.get("type", 0), {}).items():
            comp.setdefault(key, value)
        options = comp.get("options") or []
        for emoji in [comp.get("emoji")] + [o.get("emoji") for o in options]:
            if isinstance(emoji, dict):
                _store_emoji(emoji)
        if comp.get("type") == 11:
            comp["media"], _ = _unfurl(comp["media"], by_name, new_id)
        elif comp.get("type") == 12:
            for item in comp.get("items") or []:
                item.setdefault("description", None)
                item.setdefault("spoiler", False)
                item["media"], _ = _unfurl(item["media"], by_name, new_id)
        elif comp.get("type") == 13:
            comp["file"], att = _unfurl(comp["file"], by_name, new_id)
            comp.setdefault("name", att["filename"] if att else None)
            comp.setdefault("size", att["size"] if att else None)
    return components


def _store_emoji(emoji: Json) -> None:
    if emoji.get("id") is None:
        emoji.pop("id", None)
        emoji.pop("animated", None)
    else:
        emoji["id"] = str(emoji["id"])
        emoji["animated"] = bool(emoji.get("animated", False))


def _unfurl(
    media: Json, by_name: dict[str, Json], new_id: Callable[[], int]
) -> tuple[Json, Json | None]:
    """An unfurled media item, and the attachment it names: ``attachment://name`` resolved to
    that attachment (the name was checked before), any other URL as given. Width and height
    are not known here."""
    url = str(media.get("url", ""))
    if "id" in media and "proxy_url" in media:
        return media, None  # already unfurled (a component sent back as it was received)
    out: Json = {"id": str(new_id()), "url": url, "proxy_url": url, "width": None, "height": None}
    att = by_name.get(url[len(ATTACHMENT_PREFIX) :]) if url.startswith(ATTACHMENT_PREFIX) else None
    if att is not None:
        out.update(
            url=att["url"],
            proxy_url=att["proxy_url"],
            content_type=att.get("content_type"),
            attachment_id=str(att["id"]),
        )
    else:
        out["content_type"] = None
    return out, att

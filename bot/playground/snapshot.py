"""What one local user sees, as JSON for the page: the server's channels, the commands, and the
messages of the channels, their DM with the bot and their own ephemeral replies. Never another
user's DM or ephemeral: the page of a user is built from this alone.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any
from urllib.parse import quote

from bot.playground.world import World
from emulator import Message

FLAG_LOADING = 1 << 7
Json = dict[str, Any]


def world_json(world: World) -> Json:
    emu = world.emu
    channels = [
        {
            "id": str(ch.id),
            "name": ch.name,
            "parent_id": str(ch.parent_id) if ch.parent_id else None,
            "thread": ch.is_thread,
        }
        for cid in emu.guilds[world.guild].channels
        if (ch := emu.channels.get(cid)) is not None and not ch.is_dm
    ]
    commands = emu.synced_commands(world.guild) + emu.synced_commands(None)
    return {
        "guild": emu.guilds[world.guild].name,
        "bot": {"id": str(emu.bot_user_id), "name": emu.users[emu.bot_user_id].name},
        "users": [{"id": str(uid), "name": name} for uid, name in world.users.items()],
        "names": {str(uid): user.global_name or user.name for uid, user in emu.users.items()},
        "channels": channels,
        "commands": commands,
    }


def visible_messages(world: World, user_id: int) -> list[Message]:
    """The messages ``user_id`` can see now: every channel's, their DMs, their ephemerals."""
    emu = world.emu
    out: list[Message] = []
    for cid in emu.guilds[world.guild].channels:
        out += emu.channel_messages(cid)
    out += emu.dm_messages(user_id)
    out += [m for m in emu.ephemerals(user_id) if not m.deleted]
    return out


def dm_channel(world: World, user_id: int) -> str | None:
    cid = world.emu.dm_channel_id(user_id)
    return str(cid) if cid is not None else None


def command_path(data: Json) -> str:
    """A slash command's full name as Discord's client shows it: "game stats", not "game"
    (subcommands and groups are options of type 1 and 2 in the interaction's data)."""
    parts = [str(data.get("name", ""))]
    options = data.get("options") or []
    while True:
        sub = next((o for o in options if o.get("type") in (1, 2)), None)
        if sub is None:
            return " ".join(parts)
        parts.append(str(sub.get("name", "")))
        options = sub.get("options") or []


def message_json(message: Message, user_id: int, command: str | None = None) -> Json:
    """One message as Discord's client would get it, with its pictures served by the page;
    ``command`` names the slash command it answers with its subcommand (see command_path)."""
    urls: dict[str, str] = {}
    attachments = []
    for att in message.attachments:
        name = str(att.get("filename", ""))
        data = message.files.get(name, b"")
        version = hashlib.sha1(data).hexdigest()[:10]
        local = f"/att/{user_id}/{message.id}/{quote(name)}?v={version}"
        urls[str(att.get("url", ""))] = local
        urls[f"attachment://{name}"] = local
        attachments.append(
            {"filename": name, "url": local, "content_type": att.get("content_type", "")}
        )
    meta = message.interaction_metadata or {}
    user = meta.get("user") or {}
    return {
        "id": str(message.id),
        "channel_id": str(message.channel_id),
        "author_id": str(message.author_id),
        "content": message.content,
        "embeds": _local_urls(message.embeds, urls),
        "components": _local_urls(message.components, urls),
        "attachments": attachments,
        "flags": message.flags,
        "ephemeral": message.ephemeral_to is not None,
        "loading": bool(message.flags & FLAG_LOADING),
        "edited": message.edited_timestamp is not None,
        "version": len(message.history),  # how many times it was edited
        "timestamp": message.timestamp,
        "interaction": {"user_id": str(user.get("id", "")), "name": command or meta.get("name")}
        if meta
        else None,
    }


def _local_urls(value: Any, urls: dict[str, str]) -> Any:
    if isinstance(value, str):
        return urls.get(value, value)
    if isinstance(value, list):
        return [_local_urls(v, urls) for v in value]
    if isinstance(value, dict):
        return {k: _local_urls(v, urls) for k, v in value.items()}
    return value


def digest(value: Any) -> str:
    return hashlib.sha1(json.dumps(value, sort_keys=True).encode()).hexdigest()

"""Guild text channels and threads: building, deleting, and their REST routes."""

from __future__ import annotations

import re

from aiohttp import web

from .core import INTENT_GUILDS, iso
from .models import (
    CHANNEL_PRIVATE_THREAD,
    CHANNEL_PUBLIC_THREAD,
    CHANNEL_TEXT,
    PERM_VIEW_CHANNEL,
    Channel,
    EmulatorError,
    Guild,
    Message,
)
from .users import UsersAndDMs
from .validation import FormErrors, Json

ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)  # minutes: Discord takes no other value


def _archive_duration(body: Json, key: str, errors: FormErrors) -> int | None:
    """``body[key]`` when it is one of Discord's archive durations (None when absent)."""
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or value not in ARCHIVE_DURATIONS:
        choices = ", ".join(str(d) for d in ARCHIVE_DURATIONS)
        errors.add(key, "BASE_TYPE_CHOICES", f"Value must be one of {{{choices}}}.")
        return None
    return int(value)


class ChannelsAndThreads(UsersAndDMs):
    def add_text_channel(self, guild_id: int, name: str, *, topic: str | None = None) -> int:
        guild = self._guild(guild_id)
        cid = self.snowflake()
        ch = Channel(
            cid,
            CHANNEL_TEXT,
            name,
            guild_id,
            position=len(guild.channels),
            created_at=iso(self.now()),
            topic=topic,
        )
        self.channels[cid] = ch
        guild.channels.append(cid)
        self._dispatch_soon(
            "CHANNEL_CREATE", self._channel_payload(ch), INTENT_GUILDS, guild_id=guild_id
        )
        return cid

    def add_thread(
        self,
        guild_id: int,
        *,
        parent: int,
        name: str,
        private: bool = False,
        owner: int | None = None,
    ) -> int:
        guild = self._guild(guild_id)
        parent_ch = self._channel_or_none(parent)
        if parent_ch is None or parent_ch.guild_id != guild_id or parent_ch.is_thread:
            raise EmulatorError(f"thread parent {parent} is not a text channel of guild {guild_id}")
        tid = self.snowflake()
        return self._create_thread(
            guild, parent_ch, tid, name, private, owner or self.owner_user_id
        )

    def _create_thread(
        self,
        guild: Guild,
        parent: Channel,
        tid: int,
        name: str,
        private: bool,
        owner: int,
        auto_archive_duration: int = 1440,
    ) -> int:
        ch = Channel(
            tid,
            CHANNEL_PRIVATE_THREAD if private else CHANNEL_PUBLIC_THREAD,
            name,
            guild.id,
            parent_id=parent.id,
            owner_id=owner,
            auto_archive_duration=auto_archive_duration,
            created_at=iso(self.now()),
        )
        self.channels[tid] = ch
        guild.channels.append(tid)
        payload = self._channel_payload(ch)
        payload["newly_created"] = True
        self._dispatch_soon("THREAD_CREATE", payload, INTENT_GUILDS, guild_id=guild.id)
        self._touch()
        return tid

    def delete_channel(self, channel_id: int) -> None:
        """Delete a guild text channel (with its threads) or a thread, as a moderator would:
        the bot gets CHANNEL_DELETE / THREAD_DELETE, REST calls on it answer 404 10003 Unknown
        Channel, and no interaction can come from it any more. Its messages stay recorded."""
        ch = self.channels.get(channel_id)
        if ch is None:
            raise EmulatorError(f"unknown channel {channel_id}")
        if ch.guild_id is None:
            raise EmulatorError("DM channels cannot be deleted")
        guild = self._guild(ch.guild_id)
        if not ch.is_thread:
            for cid in list(guild.channels):
                child = self.channels[cid]
                if child.is_thread and child.parent_id == ch.id:
                    self._remove_channel(guild, child)
        self._remove_channel(guild, ch)
        self._touch()

    def _remove_channel(self, guild: Guild, ch: Channel) -> None:
        del self.channels[ch.id]
        guild.channels.remove(ch.id)
        self.deleted_channels[ch.id] = ch
        if ch.is_thread:
            payload: Json = {
                "id": str(ch.id),
                "guild_id": str(guild.id),
                "parent_id": str(ch.parent_id),
                "type": ch.type,
            }
            self._dispatch_soon("THREAD_DELETE", payload, INTENT_GUILDS, guild_id=guild.id)
        else:
            self._dispatch_soon(
                "CHANNEL_DELETE", self._channel_payload(ch), INTENT_GUILDS, guild_id=guild.id
            )

    def _rest_channel(self, request: web.Request, cid: int) -> Channel:
        ch = self.channels.get(cid)
        if ch is None:
            raise self._fail(request, 404, 10003, "Unknown Channel")
        return ch

    def _rest_message(self, request: web.Request, ch: Channel, mid: int) -> Message:
        msg = self._messages.get(mid)
        if msg is None or msg.deleted or msg.channel_id != ch.id or msg.ephemeral_to is not None:
            raise self._fail(request, 404, 10008, "Unknown Message")
        return msg

    def _require_bot_perms(self, request: web.Request, ch: Channel, perms: int) -> None:
        if ch.guild_id is None:
            return
        have = self.permissions(ch.guild_id, self.bot_user_id)
        if have & perms != perms:
            raise self._fail(request, 403, 50013, "Missing Permissions")

    async def _h_get_channel(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        ch = self._rest_channel(request, int(m["cid"]))
        return self._json(self._channel_payload(ch))

    async def _h_edit_channel(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        ch = self._rest_channel(request, int(m["cid"]))
        body, _ = await self._read_body(request)
        body = body or {}
        if ch.is_dm:
            raise self._fail(request, 403, 50003, "Cannot execute action on a DM channel")
        errors = FormErrors()
        key = "auto_archive_duration" if ch.is_thread else "default_auto_archive_duration"
        duration = _archive_duration(body, key, errors)
        if errors:
            raise self._invalid_form(request, errors)
        if ch.is_thread and duration is not None:
            ch.auto_archive_duration = duration
        if "name" in body:
            ch.name = str(body["name"])
        if "topic" in body:
            ch.topic = body["topic"]
        if ch.is_thread:
            ch.archived = bool(body.get("archived", ch.archived))
            ch.locked = bool(body.get("locked", ch.locked))
        payload = self._channel_payload(ch)
        self._dispatch_soon(
            "THREAD_UPDATE" if ch.is_thread else "CHANNEL_UPDATE",
            payload,
            INTENT_GUILDS,
            guild_id=ch.guild_id,
        )
        return self._json(payload)

    async def _h_typing(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        self._rest_channel(request, int(m["cid"]))
        return web.Response(status=204)

    async def _h_create_thread(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        parent = self._rest_channel(request, int(m["cid"]))
        body, _ = await self._read_body(request)
        body = body or {}
        if parent.guild_id is None or parent.is_thread:
            raise self._fail(request, 400, 50024, "Cannot execute action on this channel type")
        name = body.get("name")
        errors = FormErrors()
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            errors.add("name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
        duration = _archive_duration(body, "auto_archive_duration", errors)
        if errors:
            raise self._invalid_form(request, errors)
        assert isinstance(name, str)
        mid = m.groupdict().get("mid")
        if mid is not None:
            self._rest_message(request, parent, int(mid))
            tid = int(mid)  # a thread started from a message shares its id
            if tid in self.channels:
                raise self._fail(
                    request, 400, 160004, "A thread has already been created for this message"
                )
            private = False
        else:
            tid = self.snowflake()
            private = body.get("type", CHANNEL_PRIVATE_THREAD) == CHANNEL_PRIVATE_THREAD
        self._require_bot_perms(request, parent, PERM_VIEW_CHANNEL)
        guild = self.guilds[parent.guild_id]
        self._create_thread(guild, parent, tid, name, private, self.bot_user_id, duration or 1440)
        return self._json(self._channel_payload(self.channels[tid]), 201)

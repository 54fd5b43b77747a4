"""Guilds, roles and members: building the world, and the guild REST routes."""

from __future__ import annotations

import re
from collections.abc import Iterable

from aiohttp import web

from .core import INTENT_GUILD_MEMBERS, INTENT_GUILDS, iso
from .gateway import Gateway
from .models import (
    EVERYONE_PERMISSIONS,
    PERM_ADMINISTRATOR,
    PERM_MANAGE_CHANNELS,
    PERM_MANAGE_MESSAGES,
    EmulatorError,
    Guild,
    Member,
    Role,
)


class Guilds(Gateway):
    def add_guild(self, name: str, *, owner: int | None = None, shard: int | None = None) -> int:
        """A guild the bot is in; ``shard`` picks an id that Discord routes to that shard."""
        gid = self.snowflake() if shard is None else self._snowflake_on_shard(shard)
        guild = Guild(gid, name, owner or self.owner_user_id, iso(self.now()))
        guild.roles[gid] = Role(gid, gid, "@everyone", EVERYONE_PERMISSIONS, 0)
        bot_role = Role(
            self.snowflake(),
            gid,
            self.users[self.bot_user_id].name,
            self.bot_permissions,
            1,
            managed=True,
        )
        guild.roles[bot_role.id] = bot_role
        self.guilds[gid] = guild
        self._add_member(guild, self.bot_user_id, [bot_role.id])
        self._add_member(guild, guild.owner_id, [])
        self._dispatch_soon(
            "GUILD_CREATE", self._guild_create_payload(guild), INTENT_GUILDS, guild_id=gid
        )
        return gid

    def add_role(self, guild_id: int, name: str, permissions: int) -> int:
        guild = self._guild(guild_id)
        role = Role(self.snowflake(), guild_id, name, permissions, len(guild.roles))
        guild.roles[role.id] = role
        self._dispatch_soon(
            "GUILD_ROLE_CREATE",
            {"guild_id": str(guild_id), "role": self._role_payload(role)},
            INTENT_GUILDS,
            guild_id=guild_id,
        )
        return role.id

    def add_member(
        self,
        guild_id: int,
        user_id: int,
        *,
        roles: Iterable[int] = (),
        manage_channels: bool = False,
        administrator: bool = False,
    ) -> None:
        guild = self._guild(guild_id)
        role_ids = list(roles)
        if manage_channels:
            role_ids.append(
                self._named_role(
                    guild,
                    "Moderator",
                    PERM_MANAGE_CHANNELS | PERM_MANAGE_MESSAGES | EVERYONE_PERMISSIONS,
                )
            )
        if administrator:
            role_ids.append(self._named_role(guild, "Admin", PERM_ADMINISTRATOR))
        member = self._add_member(guild, user_id, role_ids)
        payload = self._member_payload(guild, member)
        payload["guild_id"] = str(guild_id)
        self._dispatch_soon("GUILD_MEMBER_ADD", payload, INTENT_GUILD_MEMBERS, guild_id=guild_id)

    def _named_role(self, guild: Guild, name: str, permissions: int) -> int:
        for role in guild.roles.values():
            if role.name == name:
                return role.id
        return self.add_role(guild.id, name, permissions)

    def _add_member(self, guild: Guild, user_id: int, roles: list[int]) -> Member:
        if user_id not in self.users:
            raise EmulatorError(f"unknown user {user_id}")
        member = Member(user_id, guild.id, roles, iso(self.now()))
        guild.members[user_id] = member
        return member

    def _rest_guild(self, request: web.Request, gid: int) -> Guild:
        guild = self.guilds.get(gid)
        if guild is None:
            raise self._fail(request, 404, 10004, "Unknown Guild")
        return guild

    async def _h_get_guild(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        guild = self._rest_guild(request, int(m["gid"]))
        payload = self._guild_payload(guild)
        if request.query.get("with_counts") in ("true", "1", "True"):
            payload["approximate_member_count"] = len(guild.members)
            payload["approximate_presence_count"] = 0
        return self._json(payload)

    async def _h_guild_channels(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        guild = self._rest_guild(request, int(m["gid"]))
        return self._json(
            [
                self._channel_payload(self.channels[c])
                for c in guild.channels
                if not self.channels[c].is_thread
            ]
        )

    async def _h_guild_roles(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        guild = self._rest_guild(request, int(m["gid"]))
        return self._json([self._role_payload(r) for r in guild.roles.values()])

    async def _h_get_member(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        guild = self._rest_guild(request, int(m["gid"]))
        member = guild.members.get(int(m["uid"]))
        if member is None:
            raise self._fail(request, 404, 10007, "Unknown Member")
        return self._json(self._member_payload(guild, member))

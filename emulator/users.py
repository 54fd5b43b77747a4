"""Users and DM channels: building them, /users routes, opening a DM."""

from __future__ import annotations

import re

from aiohttp import web

from .core import iso
from .guilds import Guilds
from .models import CHANNEL_DM, Channel, User
from .validation import FormErrors


class UsersAndDMs(Guilds):
    def add_user(
        self,
        name: str,
        *,
        guild: int | None = None,
        dms_open: bool = True,
        manage_channels: bool = False,
        administrator: bool = False,
        bot: bool = False,
    ) -> int:
        uid = self.snowflake()
        self.users[uid] = User(uid, name, bot=bot, dms_open=dms_open, global_name=name.title())
        if guild is not None:
            self.add_member(
                guild, uid, manage_channels=manage_channels, administrator=administrator
            )
        return uid

    def set_dms_open(self, user_id: int, is_open: bool) -> None:
        self._user(user_id).dms_open = is_open

    def open_dm(self, user_id: int) -> int:
        """The DM channel between the bot and ``user_id`` (created if needed)."""
        self._user(user_id)
        cid = self._dm_by_user.get(user_id)
        if cid is None:
            cid = self.snowflake()
            self.channels[cid] = Channel(
                cid, CHANNEL_DM, recipient_id=user_id, created_at=iso(self.now())
            )
            self._dm_by_user[user_id] = cid
        return cid

    def dm_channel_id(self, user_id: int) -> int | None:
        return self._dm_by_user.get(user_id)

    async def _h_me(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        return self._json(self._me_payload())

    async def _h_get_user(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        uid = int(m["uid"])
        if uid not in self.users:
            raise self._fail(request, 404, 10013, "Unknown User")
        return self._json(self._user_payload(uid))

    async def _h_create_dm(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        body, _ = await self._read_body(request)
        try:
            uid = int((body or {})["recipient_id"])
        except (KeyError, TypeError, ValueError):
            errors = FormErrors()
            errors.add("recipient_id", "BASE_TYPE_REQUIRED", "This field is required")
            raise self._invalid_form(request, errors) from None
        if uid not in self.users or uid == self.bot_user_id:
            raise self._fail(request, 400, 50033, "Invalid Recipient(s)")
        return self._json(self._channel_payload(self.channels[self.open_dm(uid)]))
